"""The ``--output`` JSON report (the contract in DESIGN.md), streamed task by task."""

from __future__ import annotations

import os
from pathlib import Path

from bench import jsonio, redact
from bench.reporter import Reporter
from bench.results import RunReport


class JsonReporter(Reporter):
    """Writes the whole run as one JSON document."""

    name = "json"
    description = "the run as one JSON document: suite, passed, summary, tasks"

    def write(self, report: RunReport, path: Path) -> None:
        head = {
            "suite": report.suite,
            "run_id": report.run_id,
            "passed": report.passed,
            "summary": report.summary.as_dict(),
            "started_at": report.started_at,
            "finished_at": report.finished_at,
            "duration_s": round(report.duration_s, 3),
            "stopped": report.stopped,
            **report.extra,
        }
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(redact.current()(jsonio.dumps(head))[:-1] + ',"tasks":[')
            lines = report.task_lines() if report.task_lines else map(jsonio.dumps, report.tasks())
            for i, line in enumerate(lines):
                out.write(("," if i else "") + "\n" + line)
            out.write("\n]}\n")
        os.replace(tmp, path)
