"""The JSONL report: one task's result per line, as the run store holds it (``-o results.jsonl``)."""

from __future__ import annotations

from pathlib import Path

from bench.report.reporters.formats import replacing
from bench.reporter import Reporter
from bench.vocabulary.results import RunReport


class JsonlReporter(Reporter):
    """Writes each task's result as one JSON line, in suite order."""

    name = "jsonl"
    description = "one task's result per line (JSON Lines), in suite order"

    def write(self, report: RunReport, path: Path) -> None:
        with replacing(path) as out:
            for line in report.lines():
                out.write(line + "\n")
