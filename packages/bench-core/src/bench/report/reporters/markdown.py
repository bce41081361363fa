"""A Markdown summary of a run, for CI step summaries (GitHub's ``$GITHUB_STEP_SUMMARY``)."""

from __future__ import annotations

import html
import os
import re
from itertools import islice
from pathlib import Path
from typing import Any

from bench.report.console import interval_text, statistics_lines
from bench.report.reporters.formats import replacing
from bench.reporter import Reporter
from bench.vocabulary import redact
from bench.vocabulary.results import PASSED, RunReport, falls_short

#: Tasks that did not pass listed in full; the rest are counted.
MAX_LISTED = 50
MAX_REASON = 300
# Markdown punctuation that could turn untrusted text into links, emphasis, code or cells
# (the rest only acts at the start of a line, which a cell never is).
_MARKDOWN = re.compile(r"([\\`*_{}\[\]|~])")


def _text(value: Any, limit: int = MAX_REASON) -> str:
    """Untrusted text as one inert table cell: redacted (before the whitespace is joined, it is
    cut and it is escaped, each of which would make a secret no longer match), one line,
    shortened, HTML escaped, Markdown punctuation escaped."""
    text = redact.excerpt(" ".join(redact.current()(str(value)).split()), limit)
    return _MARKDOWN.sub(r"\\\1", html.escape(text, quote=False))


def _why(task: dict[str, Any]) -> str:
    if task.get("error"):
        return f"error: {task['error']}"
    reasons = [
        f"{ev['name']}: error: {ev['error']}" if ev.get("error") else f"{ev['name']}: {ev.get('reason', '')}"
        for ev in task.get("evaluators", [])
        if falls_short(ev)
    ]
    return "; ".join(reasons) or "did not pass"


def _targets(rows: list[dict[str, Any]] | None) -> list[str]:
    """The run's targets side by side (a run of several), one row each."""
    if not rows:
        return []
    lines = [
        "",
        "### Targets",
        "",
        "| target | tasks | passed | failed | errors | pass rate | mean score | cost | time/task | p95 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        duration = row.get("duration_ms")
        cost = row.get("cost_usd")
        cells = [
            _text(row["label"], 120),
            *(str(row[key]) for key in ("tasks", "passed", "failed", "errors")),
            interval_text(row.get("pass_rate"), True),
            interval_text(row.get("mean_score"), False),
            "-" if cost is None else f"${cost:.4f}",
            *(("-", "-") if not duration else (f"{duration[k] / 1000:.2f} s" for k in ("mean", "p95"))),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _statistics(statistics: dict[str, Any] | None) -> list[str]:
    """The run's statistics as a list, the same lines as the console and ``bench show``."""
    if not statistics:
        return []
    return ["", "### Statistics", "", *(f"- {_text(line)}" for line in statistics_lines(statistics))]


class MarkdownReporter(Reporter):
    """The summary table and the tasks that did not pass, with their reasons."""

    name = "markdown"
    description = "a Markdown summary for CI step summaries: counts, pass rate, failures and why"

    def write(self, report: RunReport, path: Path) -> None:
        with replacing(path) as out:  # reading the results may fail too: the same one-line error
            out.write(self.render(report))

    def render(self, report: RunReport) -> str:
        """The Markdown text of ``report``, redacted."""
        s = report.summary
        verdict = "passed" if report.passed else f"{s.total - s.passed} of {s.total} tasks did not pass"
        rate = f"{100 * s.passed / s.total:.1f}%" if s.total else "-"
        lines = [
            f"## bench: {_text(report.suite, 120)}: {verdict}",
            "",
            "| tasks | passed | failed | errors | pass rate | time |",
            "| ---: | ---: | ---: | ---: | ---: | ---: |",
            f"| {s.total} | {s.passed} | {s.failed} | {s.errors} | {rate} | {report.duration_s:.1f} s |",
            "",
            f"run `{report.run_id}`"
            + (f"; stopped: {_text(report.stopped)}" if report.stopped else "")
            + (f"; {s.waiting} waiting for a person" if s.waiting else ""),
        ]
        lines += _targets(report.extra.get("targets"))
        lines += _statistics(report.extra.get("statistics"))
        not_passed = (t for t in report.tasks() if t.get("status") != PASSED)
        listed = list(islice(not_passed, MAX_LISTED))
        if listed:
            lines += ["", "### Tasks that did not pass", "", "| task | status | why |", "| --- | --- | --- |"]
            for task in listed:
                name = task["id"] if not task.get("repeat") else f"{task['id']} (run {task['repeat'] + 1})"
                lines.append(f"| {_text(name, 120)} | {task.get('status')} | {_text(_why(task))} |")
            more = sum(1 for _ in not_passed)
            if more:
                lines += ["", f"and {more:,} more (see the JSON report)"]
        return redact.current()("\n".join(lines) + "\n")


STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def append_step_summary(report: RunReport) -> str | None:
    """Append the Markdown summary to ``$GITHUB_STEP_SUMMARY`` when it is set; a warning when
    it cannot be written (the run's results are not at stake), else ``None``."""
    target = os.environ.get(STEP_SUMMARY)
    if not target:
        return None
    try:
        with open(target, "a", encoding="utf-8") as out:
            out.write(MarkdownReporter().render(report))
    except OSError as exc:
        return f"cannot append the summary to ${STEP_SUMMARY} ({target}): {exc.strerror}"
    return None
