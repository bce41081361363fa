"""The JSONL report: one task's result per line, as the run store holds it (``-o results.jsonl``)."""

from __future__ import annotations

import os
from pathlib import Path

from bench import jsonio
from bench.reporter import Reporter
from bench.results import RunReport


class JsonlReporter(Reporter):
    """Writes each task's result as one JSON line, in suite order."""

    name = "jsonl"
    description = "one task's result per line (JSON Lines), in suite order"

    def write(self, report: RunReport, path: Path) -> None:
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "w", encoding="utf-8") as out:
            lines = report.task_lines() if report.task_lines else map(jsonio.dumps, report.tasks())
            for line in lines:
                out.write(line + "\n")
        os.replace(tmp, path)
