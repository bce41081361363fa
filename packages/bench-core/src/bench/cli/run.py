"""``bench run``: its flags mapped onto the run's options, the run through ``bench.api.execute``
(the entry ``bench.run`` uses), then what it prints and its exit code (``bench.cli.run_console``).

Only typer is imported here at start-up (``bench --help`` stays instant); the run's modules load
inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bench.cli.errors import EXIT_INVALID, fail, handle_errors
from bench.cli.options import (
    RUNS_DIR,
    AllowOutsideRoot,
    EnvFiles,
    NoCache,
    NoEnvFile,
    Offline,
    RunsDir,
    SuiteArg,
    TargetSpec,
    Vars,
    output_option,
)

if TYPE_CHECKING:
    from decimal import Decimal

    from bench.pipeline.options import RunOptions

Outputs = Annotated[
    list[Path] | None,
    output_option(
        "Write a report; its extension picks the format: .json, .jsonl, .csv, .xml (JUnit), .html, .md, or "
        "one a plugin's reporter declares. '-' writes JSON to stdout (repeatable).",
        metavar="FILE",
    ),
]
Junit = Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML for CI.")]
Reports = Annotated[
    list[str] | None,
    typer.Option(
        "--report",
        metavar="NAME=PATH",
        help="Write a reporter's report, e.g. markdown=summary.md (repeatable).",
    ),
]
Concurrency = Annotated[
    int | None, typer.Option("--concurrency", "-j", min=1, help="Tasks in flight at once [default: 8].")
]
SharedCache = Annotated[
    str | None,
    typer.Option(
        "--shared-cache",
        metavar="URL",
        help="A second level of the LLM response cache that machines and people share: a folder, "
        "file://, s3://... (any fsspec URL) [default: $BENCH_SHARED_CACHE].",
    ),
]
Resume = Annotated[
    str | None, typer.Option("--resume", help="Finish the run RUN_ID (or latest: this suite's newest).")
]
Quiet = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No progress and no start-up lines: only the summary and errors."),
]
DryRunFlag = Annotated[
    bool, typer.Option("--dry-run", help="Count the model calls and estimate their cost; call nothing.")
]
BatchFlag = Annotated[
    bool,
    typer.Option(
        "--batch", help="Send model calls through the providers' batch APIs (about half the price)."
    ),
]
Detach = Annotated[
    bool,
    typer.Option("--detach", help="With --batch: exit once the batches are submitted; --resume collects."),
]
BatchRetryLive = Annotated[
    bool,
    typer.Option(
        "--batch-retry-live", help="Call live what a batch expired or cancelled, not in a new batch."
    ),
]
Repeat = Annotated[
    int | None,
    typer.Option("--repeat", min=1, help="Run every task this many times (pass@k, flaky tasks, intervals)."),
]
KeepWorkspaces = Annotated[
    bool, typer.Option("--keep-workspaces", help="Leave each task's workspace on disk for inspection.")
]
Verbose = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help="Print a line per finished task, and log each model call (bench's own or litellm's debug "
        "log, by the model's transport), redacted.",
    ),
]
PassRateThreshold = Annotated[
    str | None,
    typer.Option(
        "--pass-rate-threshold",
        metavar="P",
        help="Exit 0 when at least this share of tasks passed, as 0.8 or 80% (errors still exit 3).",
    ),
]
Keyword = Annotated[
    str | None,
    typer.Option(
        "-k",
        "--keyword",
        metavar="EXPR",
        help="Run the tasks whose id contains a name or whose tags hold it: 'math and not slow'.",
    ),
]
Filters = Annotated[
    list[str] | None,
    typer.Option(
        "--filter", metavar="KEY=VALUE", help="Run the tasks whose metadata has KEY=VALUE (repeatable)."
    ),
]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Run the first N selected tasks.")]
Sample = Annotated[
    int | None, typer.Option("--sample", min=1, help="Run N selected tasks drawn at random (see --seed).")
]
Seed = Annotated[
    int, typer.Option("--seed", help="The seed of --sample: the same seed draws the same tasks.")
]
Failed = Annotated[
    str | None,
    typer.Option("--failed", metavar="RUN_ID", help="Run again the tasks that failed in RUN_ID (or latest)."),
]
Errors = Annotated[
    str | None,
    typer.Option(
        "--errors", metavar="RUN_ID", help="Run again the tasks that errored in RUN_ID (or latest)."
    ),
]
RequireCalibration = Annotated[
    bool,
    typer.Option(
        "--require-calibration",
        help="Exit 2 before running when a judge's kappa against its labels is below its min_kappa.",
    ),
]
ExecutorName = Annotated[
    str,
    typer.Option(
        "--executor",
        metavar="NAME",
        help="What runs the tasks: local (this process), or an executor a plugin registers "
        "(bench plugins lists them).",
    ),
]
Workers = Annotated[
    int | None,
    typer.Option(
        "--workers", min=1, help="Worker processes of the executor (not local).", show_default=False
    ),
]
Chunk = Annotated[
    int | None,
    typer.Option("--chunk", min=1, help="Tasks handed to a worker at once (not local).", show_default=False),
]
# --ray-address is the spelling docs/scale.md uses; any cluster executor reads the address.
Address = Annotated[
    str | None,
    typer.Option(
        "--address",
        "--ray-address",
        metavar="ADDRESS",
        help="The executor's cluster: auto (the one running here) or its URL; default: a new local one.",
    ),
]
ExecutorOptions = Annotated[
    list[str] | None,
    typer.Option(
        "--executor-option",
        metavar="KEY=VALUE",
        help="A setting of the executor, as its documentation names them (repeatable).",
    ),
]

#: Flags named as the run's option they set (``RunOptions``), passed on as they are.
SAME_NAMES = (
    "concurrency",
    "shared_cache",
    "resume",
    "runs_dir",
    "repeat",
    "keep_workspaces",
    "allow_outside_root",
    "target",
    "require_calibration",
    "executor",
    "workers",
    "chunk",
    "address",
    "dry_run",
    "offline",
    "batch",
    "detach",
    "batch_retry_live",
)


@handle_errors
def run(
    ctx: typer.Context,
    suite: SuiteArg,
    output: Outputs = None,
    junit: Junit = None,
    report: Reports = None,
    concurrency: Concurrency = None,
    no_cache: NoCache = False,
    shared_cache: SharedCache = None,
    resume: Resume = None,
    runs_dir: RunsDir = RUNS_DIR,
    quiet: Quiet = False,
    dry_run: DryRunFlag = False,
    repeat: Repeat = None,
    keep_workspaces: KeepWorkspaces = False,
    verbose: Verbose = False,
    allow_outside_root: AllowOutsideRoot = False,
    var: Vars = None,
    env_file: EnvFiles = None,
    no_env_file: NoEnvFile = False,
    pass_rate_threshold: PassRateThreshold = None,
    keyword: Keyword = None,
    filters: Filters = None,
    limit: Limit = None,
    sample: Sample = None,
    seed: Seed = 0,
    failed: Failed = None,
    errors: Errors = None,
    require_calibration: RequireCalibration = False,
    target: TargetSpec = None,
    executor: ExecutorName = "local",
    workers: Workers = None,
    chunk: Chunk = None,
    address: Address = None,
    executor_option: ExecutorOptions = None,
    offline: Offline = False,
    batch: BatchFlag = False,
    detach: Detach = False,
    batch_retry_live: BatchRetryLive = False,
) -> None:
    """Run a suite: produce each task's response, evaluate it, record and report the results.

    Exit codes: 0 all tasks passed, 1 some task failed, 2 invalid input (nothing run), 3 some task
    could not be evaluated (or the run was stopped), 4 internal error, 5 a conversation waits for
    a person (bench answer, then --resume), 130 interrupted.
    """
    from bench.api import execute, run_blocking
    from bench.cli import run_console
    from bench.cli.loading import load_registry
    from bench.pipeline.run import DryRun

    run_console.prepare_process(verbose)
    threshold = None if pass_rate_threshold is None else _threshold(pass_rate_threshold)
    options = run_options(ctx.params)
    registry = load_registry()
    outputs = output or []
    reporters = run_console.reporters(registry, outputs, junit, report or [])
    console = run_console.RunConsole(enabled=not quiet, verbose=verbose)
    if resume and not dry_run:
        from bench.report.person_turn import answer_waiting

        answer_waiting(runs_dir, resume)
    with console:
        result = run_blocking(lambda: execute(suite, options, console, registry=registry))
    if isinstance(result, DryRun):
        raise typer.Exit(run_console.print_dry_run(result))
    raise typer.Exit(run_console.finish(result, console, reporters, outputs, _command_line(ctx), threshold))


@handle_errors
def answer(
    run_id: Annotated[str, typer.Argument(help="The run (or latest).", show_default=False)],
    task_id: Annotated[
        str, typer.Argument(help="The task that waits for a person (ID, or ID@N).", show_default=False)
    ],
    runs_dir: RunsDir = RUNS_DIR,
) -> None:
    """Take a person's turn in a conversation that waits for one; --resume then goes on from it."""
    from bench.report.person_turn import answer_person

    answer_person(run_id, task_id, runs_dir)


def run_options(flags: dict[str, Any]) -> RunOptions:
    """The run's options from ``bench run``'s flags (``ctx.params``)."""
    from bench.pipeline.options import RunOptions
    from bench.suite.selection.narrowing import Selection, parse_filters
    from bench.suite.variables.command_line import parse_vars

    selection = Selection(
        keyword=flags["keyword"],
        filters=parse_filters(flags["filters"] or []),
        limit=flags["limit"],
        sample=flags["sample"],
        seed=flags["seed"],
        failed=flags["failed"],
        errors=flags["errors"],
    )
    return RunOptions(
        **{name: flags[name] for name in SAME_NAMES},
        cache=not flags["no_cache"],
        select=selection,
        vars=parse_vars(flags["var"] or []),
        env_files=flags["env_file"] or [],
        dotenv=not flags["no_env_file"],
        executor_options=_pairs("--executor-option", flags["executor_option"] or []),
    )


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


def _threshold(text: str) -> Decimal:
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
