"""Runs made elsewhere: ``bench import FILE`` (another tool's results, or bench's own results
JSONL, as a stored run) and ``bench rescore RUN_ID`` (a run's stored answers judged again)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from bench.cli.errors import EXIT_ERRORS, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, handle_errors
from bench.cli.loading import load_registry
from bench.cli.options import RUNS_DIR, NoCache, Offline, RunsDir, output_option
from bench.cli.outputs import check_output


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


@handle_errors
def rescore(
    run_id: Annotated[
        str, typer.Argument(help="The run whose responses to judge (or latest).", show_default=False)
    ],
    suite: Annotated[
        Path | None,
        typer.Option(
            "--suite",
            help="The suite whose evaluators judge them [default: the suite the run ran; an imported "
            "run has none].",
        ),
    ] = None,
    output: Annotated[
        list[Path] | None, output_option("Write a report; its extension picks the format (repeatable).")
    ] = None,
    runs_dir: RunsDir = RUNS_DIR,
    no_cache: NoCache = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the summary.")] = False,
    offline: Offline = False,
) -> None:
    """Judge a stored run's responses again with the suite's evaluators as they are now (added,
    removed, changed), calling no target; judges still call their model (cached).

    The new run's manifest records the run it re-scored (``rescored_from``): ``bench compare
    OLD NEW`` shows what the evaluators' change did. A task of the suite with no stored response
    is refused before anything runs. Exit codes as ``bench run``'s.
    """
    from bench.intake.rescore import record_source, rescoring
    from bench.pipeline.offline import offline_guard
    from bench.pipeline.options import RunOptions
    from bench.pipeline.run import run_plan
    from bench.report.console import ConsoleObserver, print_summary

    registry = load_registry()
    reporters = _reporters(registry, output or [])
    with offline_guard(offline):
        rescored = rescoring(run_id, runs_dir, registry, suite)
    observer = ConsoleObserver(enabled=not quiet, verbose=False)
    with observer:
        outcome = run_plan(
            rescored.plan, RunOptions(runs_dir=runs_dir, cache=not no_cache, offline=offline), observer
        )
    record_source(outcome.folder, rescored)
    for reporter, path in reporters:
        reporter.write(outcome.report, path)
    print_summary(outcome, observer, ["bench", "rescore", run_id])
    source = rescored.source_run
    if rescored.left_out:
        typer.echo(f"left out {rescored.left_out} tasks of run {source} that the suite does not have")
    typer.echo(f"rescored run {source}; compare: bench compare {source} {outcome.report.run_id}")
    for _, path in reporters:
        typer.echo(f"wrote {path}")
    summary = outcome.report.summary
    if outcome.interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)
    if summary.errors or outcome.report.stopped:
        raise typer.Exit(EXIT_ERRORS)
    raise typer.Exit(EXIT_FAILED if outcome.report.failures else EXIT_OK)


def _reporters(registry: Any, outputs: list[Path]) -> list[tuple[Any, Path]]:
    """The reporter of each ``-o FILE`` (by its extension), checked before anything runs."""
    from bench.report.reporters.formats import reporter_name

    chosen = []
    for path in outputs:
        check_output("-o", path)
        chosen.append((registry.reporters[reporter_name(path, registry)].cls(), path))
    return chosen
