"""JUnit XML, so CI systems show a run's tasks as test cases."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from bench.reporter import Reporter
from bench.vocabulary import redact
from bench.vocabulary.results import ERROR, FAILED, INTERRUPTED, NOT_APPLICABLE, WAITING, RunReport

# Characters XML 1.0 forbids; ElementTree would write them and produce an unreadable file.
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: Any) -> str:
    """Text for the XML: redacted before ElementTree escapes it (escaped, a secret would no longer match)."""
    return _ILLEGAL.sub("\ufffd", redact.current()("" if text is None else str(text)))


def _failure_text(task: dict[str, Any]) -> str:
    lines = []
    for ev in task.get("evaluators", []):
        if ev.get("error"):
            lines.append(f"{ev['name']} ({ev['type']}): error: {ev['error']}")
        elif not ev.get("passed") and NOT_APPLICABLE not in (ev.get("details") or {}):
            lines.append(f"{ev['name']} ({ev['type']}): {ev.get('reason', '')}")
    if task.get("error"):
        lines.append(f"error: {task['error']}")
    if task.get("response") is not None:
        lines.append(f"response: {redact.excerpt(str(task['response']), 2000)}")
    return "\n".join(lines)


def _properties(prefix: str, value: Any) -> list[tuple[str, str]]:
    """The statistics' leaves as ``(dotted.name, text)`` pairs; a list of names joined by commas."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _properties(f"{prefix}.{key}", item)]
    if isinstance(value, list):
        return [(prefix, ", ".join(str(item) for item in value))]
    return [(prefix, str(value))]


class JunitReporter(Reporter):
    """One ``<testcase>`` per task; failed tasks carry ``<failure>``, task errors ``<error>``."""

    name = "junit"
    description = "JUnit XML for CI systems"

    def write(self, report: RunReport, path: Path) -> None:
        s = report.summary
        suite = ET.Element(
            "testsuite",
            name=_clean(report.suite),
            tests=str(s.total),
            failures=str(s.failed),
            errors=str(s.errors),
            skipped=str(s.interrupted + s.waiting),
            time=f"{report.duration_s:.3f}",
        )
        statistics = report.extra.get("statistics")
        if statistics:  # JUnit's own place for a suite's facts; CI tools show or keep them
            props = ET.SubElement(suite, "properties")
            for name, value in _properties("statistics", statistics):
                ET.SubElement(props, "property", name=_clean(name), value=_clean(value))
        for task in report.tasks():
            case = ET.SubElement(
                suite,
                "testcase",
                classname=_clean(report.suite),
                name=_clean(
                    task["id"] if not task.get("repeat") else f"{task['id']} (run {task['repeat'] + 1})"
                ),
                time=f"{task.get('duration_ms', 0) / 1000:.3f}",
            )
            status = task.get("status")
            text = _clean(_failure_text(task))
            first = redact.excerpt(text.split("\n", 1)[0], 500)
            if status == FAILED:
                ET.SubElement(case, "failure", message=first).text = text
            elif status == ERROR:
                ET.SubElement(case, "error", message=first).text = text
            elif status == INTERRUPTED:
                ET.SubElement(case, "skipped", message="interrupted")
            elif status == WAITING:
                ET.SubElement(case, "skipped", message="waiting for a person")
        root = ET.Element("testsuites", name=_clean(report.suite))
        root.append(suite)
        ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
