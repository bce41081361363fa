"""``bench run``: run a suite, report the results, exit with their verdict."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Annotated, Any

import typer

from bench.cli.errors import (
    EXIT_ERRORS,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    fail,
    handle_errors,
)
from bench.cli.loading import load_registry, print_template_warnings
from bench.cli.options import (
    AllowOutsideRoot,
    EnvFiles,
    NoCache,
    NoEnvFile,
    RunsDir,
    SuiteArg,
    TargetSpec,
    Vars,
)
from bench.cli.outputs import check_output


@handle_errors
def run(
    ctx: typer.Context,
    suite: SuiteArg,
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write a report; its extension picks the format: .json, .jsonl, .csv, .xml (JUnit), "
            ".html, .md, or one a plugin's reporter declares. '-' writes JSON to stdout (repeatable).",
        ),
    ] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML for CI.")] = None,
    report: Annotated[
        list[str] | None,
        typer.Option(
            "--report",
            metavar="NAME=PATH",
            help="Write a reporter's report, e.g. markdown=summary.md (repeatable).",
        ),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option("--concurrency", "-j", min=1, help="Tasks in flight at once [default: 8].")
    ] = None,
    no_cache: NoCache = False,
    shared_cache: Annotated[
        str | None,
        typer.Option(
            "--shared-cache",
            metavar="URL",
            help="A second level of the LLM response cache that machines and people share: a folder, "
            "file://, s3://... (any fsspec URL) [default: $BENCH_SHARED_CACHE].",
        ),
    ] = None,
    resume: Annotated[
        str | None, typer.Option("--resume", help="Finish the run RUN_ID (or latest: this suite's newest).")
    ] = None,
    runs_dir: RunsDir = Path(".bench/runs"),
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No progress and no start-up lines: only the summary and errors."),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count the model calls and estimate their cost; call nothing.")
    ] = False,
    repeat: Annotated[
        int | None,
        typer.Option(
            "--repeat", min=1, help="Run every task this many times (pass@k, flaky tasks, intervals)."
        ),
    ] = None,
    keep_workspaces: Annotated[
        bool, typer.Option("--keep-workspaces", help="Leave each task's workspace on disk for inspection.")
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Print a line per finished task, and log each model call (bench's own or litellm's debug "
            "log, by the model's transport), redacted.",
        ),
    ] = False,
    allow_outside_root: AllowOutsideRoot = False,
    var: Vars = None,
    env_file: EnvFiles = None,
    no_env_file: NoEnvFile = False,
    pass_rate_threshold: Annotated[
        str | None,
        typer.Option(
            "--pass-rate-threshold",
            metavar="P",
            help="Exit 0 when at least this share of tasks passed, as 0.8 or 80% (errors still exit 3).",
        ),
    ] = None,
    keyword: Annotated[
        str | None,
        typer.Option(
            "-k",
            "--keyword",
            metavar="EXPR",
            help="Run the tasks whose id contains a name or whose tags hold it: 'math and not slow'.",
        ),
    ] = None,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter", metavar="KEY=VALUE", help="Run the tasks whose metadata has KEY=VALUE (repeatable)."
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="Run the first N selected tasks.")
    ] = None,
    sample: Annotated[
        int | None, typer.Option("--sample", min=1, help="Run N selected tasks drawn at random (see --seed).")
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="The seed of --sample: the same seed draws the same tasks.")
    ] = 0,
    failed: Annotated[
        str | None,
        typer.Option(
            "--failed", metavar="RUN_ID", help="Run again the tasks that failed in RUN_ID (or latest)."
        ),
    ] = None,
    errors: Annotated[
        str | None,
        typer.Option(
            "--errors", metavar="RUN_ID", help="Run again the tasks that errored in RUN_ID (or latest)."
        ),
    ] = None,
    require_calibration: Annotated[
        bool,
        typer.Option(
            "--require-calibration",
            help="Exit 2 before running when a judge's kappa against its labels is below its min_kappa.",
        ),
    ] = False,
    target: TargetSpec = None,
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            metavar="NAME",
            help="What runs the tasks: local (this process), or an executor a plugin registers "
            "(bench plugins lists them).",
        ),
    ] = "local",
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", min=1, help="Worker processes of the executor (not local).", show_default=False
        ),
    ] = None,
    chunk: Annotated[
        int | None,
        typer.Option(
            "--chunk", min=1, help="Tasks handed to a worker at once (not local).", show_default=False
        ),
    ] = None,
    # --ray-address is the spelling docs/scale.md uses; any cluster executor reads the address.
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            "--ray-address",
            metavar="ADDRESS",
            help="The executor's cluster: auto (the one running here) or its URL; default: a new local one.",
        ),
    ] = None,
    executor_option: Annotated[
        list[str] | None,
        typer.Option(
            "--executor-option",
            metavar="KEY=VALUE",
            help="A setting of the executor, as its documentation names them (repeatable).",
        ),
    ] = None,
) -> None:
    """Run a suite: produce each task's response, evaluate it, record and report the results.

    Exit codes: 0 all tasks passed, 1 some task failed, 2 invalid input (nothing run), 3 some task
    could not be evaluated (or the run was stopped), 4 internal error, 130 interrupted.
    """
    from bench.pipeline.session import run_plan
    from bench.report.console import ConsoleObserver, print_summary, print_threshold, summary_on_stderr
    from bench.report.reporters.formats import STDOUT
    from bench.suite.selection.narrowing import Selection, parse_filters
    from bench.suite.variables.command_line import parse_vars

    if verbose:
        _verbose_logging()
    # A run allocates many short-lived objects; the default GC thresholds make Python rescan
    # long-lived ones (modules, the registry) over and over. Freeze those and collect less often.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)
    threshold = None if pass_rate_threshold is None else _threshold(pass_rate_threshold)
    selection = Selection(
        keyword=keyword,
        filters=parse_filters(filters or []),
        limit=limit,
        sample=sample,
        seed=seed,
        failed=failed,
        errors=errors,
    )
    variables = parse_vars(var or [])
    registry = load_registry()
    outputs = output or []
    reporters = _reporters(registry, outputs, junit, report or [])
    observer = ConsoleObserver(enabled=not quiet, verbose=verbose)
    plan, options = _load_for_run(
        suite,
        registry,
        observer,
        repeat=repeat,
        allow_outside_root=allow_outside_root,
        vars=variables,
        env_files=env_file or [],
        dotenv=not no_env_file,
        runs_dir=runs_dir,
        concurrency=concurrency,
        resume=resume,
        cache=not no_cache,
        shared_cache=shared_cache,
        keep_workspaces=keep_workspaces,
        select=selection,
        target=target,
        require_calibration=require_calibration,
        executor=executor,
        workers=workers,
        chunk=chunk,
        address=address,
        executor_options=_pairs("--executor-option", executor_option or []),
    )
    print_template_warnings(plan)
    if dry_run:
        from bench.llm.providers.credentials import describe_missing, missing_credentials
        from bench.pipeline.estimate import estimate
        from bench.pipeline.rerun import apply_selection
        from bench.pipeline.session import make_client
        from bench.report.overview import print_estimate

        if selection.active:
            chosen = apply_selection(plan, selection, runs_dir).narrowed
            plan = chosen.plan
            typer.echo(chosen.note)
        print_estimate(plan, estimate(plan, make_client(plan, options).prices))
        missing = missing_credentials(plan.endpoints)
        if missing:
            typer.echo(f"warning: {describe_missing(missing)}", err=True)
        raise typer.Exit(EXIT_OK)
    options = _check_calibration(plan, options)
    with observer:
        outcome = run_plan(plan, options, observer)
    written = _write_reports(reporters, outcome.report)
    json_on_stdout = any(str(path) == STDOUT for path in outputs)
    with summary_on_stderr(json_on_stdout):  # stdout holds the JSON
        print_summary(outcome, observer, _command_line(ctx))
        for path in written:
            typer.echo(f"wrote {path}", err=json_on_stdout)
        summary = outcome.report.summary
        if outcome.interrupted:
            raise typer.Exit(EXIT_INTERRUPTED)
        if summary.errors or outcome.report.stopped:
            raise typer.Exit(EXIT_ERRORS)
        if threshold is not None and summary.total:
            raise typer.Exit(EXIT_OK if print_threshold(summary, threshold) else EXIT_FAILED)
        raise typer.Exit(EXIT_FAILED if outcome.report.failures else EXIT_OK)


def _command_line(ctx: typer.Context) -> list[str]:
    """This command as given: its arguments and each option set on the command line (by its
    long name), ``--resume`` left out; what the resume hint repeats so that pasting it resumes."""
    words, options = ["bench", ctx.info_name or ""], []
    for param in ctx.command.params:
        name = param.name
        source = None if name is None else ctx.get_parameter_source(name)
        if name is None or name == "resume" or source is None or source.name != "COMMANDLINE":
            continue
        value = ctx.params[name]
        if param.param_type_name != "option":
            words.append(str(value))
            continue
        flag = next((o for o in param.opts if o.startswith("--")), param.opts[0])
        if getattr(param, "is_flag", False):
            options.append(flag if value else param.secondary_opts[0])
        else:
            for one in value if param.multiple else [value]:
                options += [flag, str(one)]
    return words + options


def _pairs(flag: str, items: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` items as a mapping; anything else is a usage error naming the flag."""
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise fail(f"error: {flag} {item!r}: write KEY=VALUE", EXIT_INVALID)
        pairs[key.strip()] = value.strip()
    return pairs


def _write_reports(reporters: list[tuple[Any, Path]], report: Any) -> list[Path]:
    """Each report (``-o -`` on stdout), then the Markdown summary on ``$GITHUB_STEP_SUMMARY``;
    the files written."""
    from bench.report.reporters.formats import STDOUT, write_to_stdout
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


def _load_for_run(suite: Path, registry: Any, observer: Any, **options: Any) -> Any:
    """The plan and run options (bench.api.prepare), with a counter on stderr while a large suite
    is read (not under --quiet)."""
    from bench.api import prepare
    from bench.report.overview import TaskCounter

    if not observer.enabled:
        return prepare(suite, registry, **options)
    with TaskCounter(f"loading {suite.name}") as counter:
        return prepare(suite, registry, load_progress=counter, **options)


def _check_calibration(plan: Any, options: Any) -> Any:
    """Print each calibrated judge's agreement; with ``--require-calibration``, refuse one below its
    bar. The options returned carry the standings, for the run's report."""
    from bench.pipeline.calibration_gate import measure, require, with_standings

    found = measure(plan, options)
    for standing in found:
        typer.echo(f"calibration: {standing.text()}" + ("" if standing.passes else " - below the bar"))
    if options.require_calibration:
        require(found)
    return with_standings(options, found)


def _threshold(text: str) -> Any:
    """``--pass-rate-threshold``: a fraction from 0 to 1 or a percentage, as a percentage Decimal."""
    from decimal import Decimal, InvalidOperation

    from bench.vocabulary.errors import ConfigError

    value = text.strip()
    percent = value.endswith("%")
    try:
        number = Decimal(value[:-1] if percent else value)
    except InvalidOperation:
        number = Decimal("NaN")
    if not percent and number.is_finite():
        number *= 100
    if not number.is_finite() or not 0 <= number <= 100:
        raise ConfigError(
            f"--pass-rate-threshold {text}: write a fraction from 0 to 1 (0.8) or a percentage (80%)"
        )
    return number


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


def _reporters(
    registry: Any, outputs: list[Path], junit: Path | None, extra: list[str]
) -> list[tuple[Any, Path]]:
    """The reports to write after the run, each checked before anything runs."""
    from bench.plugins import catalogue
    from bench.report.reporters.formats import STDOUT, reporter_name
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
