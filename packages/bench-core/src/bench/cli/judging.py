"""``bench calibrate`` and ``bench label``: judges measured against human labels, and the labelling."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from bench.cli.errors import handle_errors
from bench.cli.loading import load_registry, read_env_files
from bench.cli.options import (
    LABELS_FILE,
    RUNS_DIR,
    AllowOutsideRoot,
    NoCache,
    RunsDir,
    SuiteArg,
    labels_file_option,
    output_option,
    rater_option,
)
from bench.cli.outputs import checked_outputs, is_html


@handle_errors
def calibrate(
    suite: SuiteArg,
    labels: Annotated[
        Path, typer.Option("--labels", help="Human labels (JSONL or CSV).", show_default=False)
    ],
    run_id: Annotated[
        str | None, typer.Option("--run", help="Judge the responses of stored run RUN_ID (or latest).")
    ] = None,
    runs_dir: RunsDir = RUNS_DIR,
    output: Annotated[
        list[Path] | None,
        output_option("Write the calibration as JSON, or as an HTML page (FILE.html) (repeatable)."),
    ] = None,
    no_cache: NoCache = False,
    allow_outside_root: AllowOutsideRoot = False,
) -> None:
    """Measure how far each judge of a suite agrees with human labels (kappa, with intervals)."""
    import json

    from bench.judging import calibrate as cal
    from bench.judging.calibration_report import render, write_html
    from bench.llm.providers import eventloop
    from bench.pipeline.client import make_client
    from bench.pipeline.options import RunOptions
    from bench.report.reporters.formats import write_text
    from bench.scoring.labels import read_labels
    from bench.suite.loader import load_suite

    outputs = checked_outputs(output)
    read_env_files(suite, None, no_env_file=False)
    plan = load_suite(suite, load_registry(), allow_outside_root=allow_outside_root)
    cal.judges(plan)
    grouped = cal.by_task(read_labels(labels), plan, str(labels), _warn)
    responses = None
    if run_id is not None:
        responses = cal.responses_from(cal.run_results(runs_dir, run_id, "bench calibrate --run")[1])
    llm = make_client(plan, RunOptions(runs_dir=runs_dir, cache=not no_cache))
    try:
        results = eventloop.run(cal.calibrate(plan, grouped, llm, responses))
    finally:
        llm.close()
    summaries = [r.as_dict() for r in results]
    typer.echo(render(summaries))
    document = {"suite": plan.name, "labels": str(labels), "judges": summaries}
    for path in outputs:
        if is_html(path):
            write_html(path, document)
        else:
            write_text(path, json.dumps(document, indent=2))


@handle_errors
def label(
    run_id: Annotated[str, typer.Argument(help="The run to label (or latest).", show_default=False)],
    out: Annotated[Path, labels_file_option("The labels file to append to (JSONL).")] = LABELS_FILE,
    rater: Annotated[str | None, rater_option("Who labels [default: your user name].")] = None,
    runs_dir: RunsDir = RUNS_DIR,
) -> None:
    """Walk a run's tasks and label each by hand (p pass, f fail, 0-9 score, s skip, n note, q quit).

    On a terminal each key counts as pressed (no Enter); a note is a line. Piped in, every key is
    a line."""
    import getpass

    from bench.judging.calibrate import run_results
    from bench.judging.labelling import walk
    from bench.scoring.labels import check_output

    check_output(out)
    who = rater if rater is not None else getpass.getuser()
    found, rows = run_results(runs_dir, run_id, "bench label")
    lines = (line.rstrip("\n") for line in sys.stdin)
    keys = _pressed_keys() if sys.stdin.isatty() else lines
    written = walk(rows, out, who, keys, typer.echo, notes=lines)
    typer.echo(f"{written} labels by {who} from run {found} written to {out}")


def _pressed_keys() -> Iterator[str]:
    """Keys as the rater presses them, each shown; Ctrl-D ends the walk as ``q`` does."""
    while True:
        try:
            key = typer.getchar()
        except EOFError:
            return
        typer.echo(key if key.isprintable() else "")
        yield key


def _warn(text: str) -> None:
    """A warning on stderr; ``text`` may hold what a file said (printed as plain text)."""
    from bench.report.console import plain

    typer.echo(f"warning: {plain(text, 1000).plain}", err=True)
