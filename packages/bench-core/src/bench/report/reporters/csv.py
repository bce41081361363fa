"""The CSV report: one row per task for a spreadsheet (``-o results.csv``).

Columns: id, repeat, status, score, passed, response, error, reasons (each evaluator's
``name: reason``, joined by ``; ``). Text that a spreadsheet would run as a formula (a cell
starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) gets a leading ``'``.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from bench.report.reporters.formats import replacing
from bench.reporter import Reporter
from bench.vocabulary import redact
from bench.vocabulary.results import RunReport

COLUMNS = ("id", "repeat", "status", "score", "passed", "response", "error", "reasons")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: Any) -> str:
    """Text for a cell: redacted before the CSV writer escapes it (escaped, a secret would not match)."""
    value = redact.current()("" if text is None else str(text))
    return "'" + value if value.startswith(_FORMULA) else value


def _reasons(task: dict[str, Any]) -> str:
    return "; ".join(
        f"{e.get('name')}: {'error: ' + e['error'] if e.get('error') else e.get('reason', '')}"
        for e in task.get("evaluators", [])
    )


class CsvReporter(Reporter):
    """Writes one row per task: its status, score, response, error and the evaluators' reasons."""

    name = "csv"
    description = "one row per task: id, status, score, passed, response, error, reasons"

    def write(self, report: RunReport, path: Path) -> None:
        with replacing(path, errors="surrogatepass", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(COLUMNS)
            for task in report.tasks():
                writer.writerow(
                    [
                        _cell(task.get("id")),
                        task.get("repeat", 0),
                        task.get("status"),
                        "" if task.get("score") is None else task["score"],
                        task.get("passed"),
                        _cell(task.get("response")),
                        _cell(task.get("error")),
                        _cell(_reasons(task)),
                    ]
                )
