"""``bench import FILE``: another tool's results (or bench's own results JSONL) as a stored run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bench.cli.errors import handle_errors
from bench.cli.loading import load_registry
from bench.cli.options import RUNS_DIR, RunsDir


@handle_errors
def import_run(
    file: Annotated[
        Path,
        typer.Argument(
            help="The results file, recognised by its content: promptfoo's eval -o JSON, an inspect_ai "
            "log (.eval or .json), lm-eval's samples JSONL, an OTLP JSON trace, bench's results JSONL.",
            show_default=False,
        ),
    ],
    run_id: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="RUN", help="The new run's id [default: a fresh one]."),
    ] = None,
    runs_dir: RunsDir = RUNS_DIR,
) -> None:
    """Import another tool's results as a bench run: compare, view, report and rescore it.

    The run keeps the tool's own verdicts and scores beside bench's fields (each result's
    ``imported``, the manifest's ``source``); a task the tool gave no verdict is an error until
    ``bench rescore RUN_ID --suite SUITE`` judges it.
    """
    from bench.intake.importing import import_file

    landed = import_file(file, runs_dir, load_registry(), run_id)
    s = landed.summary
    typer.echo(
        f"imported {file.name} ({landed.source['importer']}): {s.total} tasks: {s.passed} passed, "
        f"{s.failed} failed, {s.errors} errors"
    )
    typer.echo(f"run: {landed.run_id} in {runs_dir}")
