"""What ``bench run`` prints around its run, and its exit code: the console observer (the
progress, and the lines before the first task), the reports, the dry run's estimate, the summary.

Imported by the ``run`` command when it runs, never at start-up.
"""

from __future__ import annotations

import contextlib
import gc
from decimal import Decimal
from pathlib import Path
from typing import Any

import typer

from bench.api import RunResult
from bench.cli.errors import EXIT_ERRORS, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_WAITING
from bench.cli.outputs import check_output
from bench.pipeline.run import DryRun
from bench.plugins.registry import Registry
from bench.report.console import ConsoleObserver, print_summary, print_threshold, summary_on_stderr
from bench.report.observer import LoadProgress
from bench.report.overview import TaskCounter, print_estimate
from bench.report.reporters.formats import STDOUT, reporter_name, write_to_stdout
from bench.vocabulary.results import RunReport


class RunConsole(ConsoleObserver):
    """The console's progress, plus ``bench run``'s start-up lines: a counter while a large suite
    is read (not under ``--quiet``), the template warnings and the calibrated judges' agreement."""

    def loading(self, suite: Path) -> contextlib.AbstractContextManager[LoadProgress | None]:
        if not self.enabled:
            return contextlib.nullcontext()
        return TaskCounter(f"loading {suite.name}")

    def warning(self, message: str) -> None:
        typer.echo(f"warning: {message}", err=True)

    def calibrated(self, text: str, passes: bool) -> None:
        typer.echo(f"calibration: {text}" + ("" if passes else " - below the bar"))


def prepare_process(verbose: bool) -> None:
    """Set up this process for a run: ``--verbose``'s logging, and the garbage collector."""
    if verbose:
        _verbose_logging()
    # A run allocates many short-lived objects; the default GC thresholds make Python rescan
    # long-lived ones (modules, the registry) over and over. Freeze those and collect less often,
    # from here on (``bench.cli.main`` held the collector back until now).
    # No full collection first: start-up leaves no garbage cycles to free (it found none), and
    # scanning every object cost ~20 ms, a twentieth of a one-task run.
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    gc.enable()


def print_dry_run(dry: DryRun) -> int:
    """What ``--dry-run`` shows: the selection, the estimate, a missing key; its exit code."""
    if dry.selected is not None:
        typer.echo(dry.selected)
    print_estimate(dry.plan, dry.estimate)
    if dry.missing is not None:
        typer.echo(f"warning: {dry.missing}", err=True)
    return EXIT_OK


def finish(
    result: RunResult,
    console: RunConsole,
    reporters: list[tuple[Any, Path]],
    outputs: list[Path],
    command: list[str],
    threshold: Decimal | None,
) -> int:
    """Write the reports, print the summary (on stderr when ``-o -`` holds stdout); the exit code."""
    written = _write_reports(reporters, result.report)
    json_on_stdout = any(str(path) == STDOUT for path in outputs)
    with summary_on_stderr(json_on_stdout):  # stdout holds the JSON
        print_summary(result, console, command)
        for path in written:
            typer.echo(f"wrote {path}", err=json_on_stdout)
        summary = result.report.summary
        if result.interrupted:
            return EXIT_INTERRUPTED
        if summary.errors or result.report.stopped:
            return EXIT_ERRORS
        if summary.waiting:
            return EXIT_WAITING
        if threshold is not None and summary.total:
            return EXIT_OK if print_threshold(summary, threshold) else EXIT_FAILED
        return EXIT_FAILED if result.report.failures else EXIT_OK


def _write_reports(reporters: list[tuple[Any, Path]], report: RunReport) -> list[Path]:
    """Each report (``-o -`` on stdout), then the Markdown summary on ``$GITHUB_STEP_SUMMARY``;
    the files written."""
    from bench.report.reporters.markdown import append_step_summary

    written = []
    for reporter, path in reporters:
        if str(path) == STDOUT:
            write_to_stdout(reporter, report)
        else:
            reporter.write(report, path)
            written.append(path)
    warning = append_step_summary(report)
    if warning:
        typer.echo(f"warning: {warning}", err=True)
    return written


def reporters(
    registry: Registry, outputs: list[Path], junit: Path | None, extra: list[str]
) -> list[tuple[Any, Path]]:
    """The reports to write after the run, each checked before anything runs."""
    from bench.plugins import catalogue
    from bench.vocabulary.errors import ConfigError, did_you_mean

    wanted: list[tuple[str, str, Path | None]] = [
        *(("-o", reporter_name(output, registry), output) for output in outputs),
        ("--junit", "junit", junit),
    ]
    for item in extra:
        name, sep, target = item.partition("=")
        if not sep or not target:
            raise ConfigError(f"--report {item}: write it as NAME=PATH")
        wanted.append(("--report", name, Path(target)))
    chosen = []
    for option, name, path in wanted:
        if path is None:
            continue
        provided = registry.reporters.get(name)
        if provided is None:
            hint = catalogue.hint("reporters", name) or did_you_mean(name, registry.reporters)
            raise ConfigError(f"--report: unknown reporter '{name}'{hint}")
        if option != "-o" or str(path) != STDOUT:
            check_output(option, path)
        chosen.append((provided.cls(), path))
    return chosen


def _verbose_logging() -> None:
    """Debug records of bench and of litellm and its HTTP clients on stderr, each one redacted."""
    import logging
    import sys

    from bench.llm.providers.litellm_import import LOGGERS
    from bench.vocabulary.redact import guard_loggers

    handler = logging.StreamHandler(sys.stderr)  # the redacting stream of this command
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    for name in ("bench", *LOGGERS):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        if not logger.handlers:
            logger.addHandler(handler)
    guard_loggers(("bench", *LOGGERS))
