"""The ``--output`` JSON report (the contract in docs/runs.md), streamed task by task."""

from __future__ import annotations

from pathlib import Path

from bench.report.reporters.formats import replacing
from bench.reporter import Reporter
from bench.vocabulary import jsonio, redact
from bench.vocabulary.results import RunReport


class JsonReporter(Reporter):
    """Writes the whole run as one JSON document."""

    name = "json"
    description = "the run as one JSON document: suite, passed, summary, tasks"

    def write(self, report: RunReport, path: Path) -> None:
        with replacing(path) as out:
            out.write(redact.current()(jsonio.dumps(report.head()))[:-1] + ',"tasks":[')
            for i, line in enumerate(report.lines()):
                out.write(("," if i else "") + "\n" + line)
            out.write("\n]}\n")
