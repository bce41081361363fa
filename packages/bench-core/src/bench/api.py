"""The Python API: ``bench.load``, ``bench.run`` and ``bench.arun`` (docs/python-api.md).

``prepare`` turns a run's options into a loaded plan and ``RunOptions``; the ``bench run``
command and these functions share it, so an option is added in one place (``RunKeywords``).
Nothing here prints, exits or installs signal handlers outside the main thread.
"""

from __future__ import annotations

import asyncio
import threading
import warnings
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from bench.executor import DEFAULT_EXECUTOR, Executor, ExecutorSettings
from bench.pipeline.session import DEFAULT_RUNS_DIR, RunOptions, RunOutcome, execute
from bench.suite.loader import load_suite
from bench.suite.plan import Plan
from bench.suite.target_spec import parse_target
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.results import RunReport, Summary, TaskResult

T = TypeVar("T")

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bench.llm.client import LLMClient
    from bench.llm.limits.coordination import Coordinator
    from bench.plugins.registry import Registry
    from bench.suite.selection.narrowing import Selection


class RunKeywords(TypedDict, total=False):
    """The options of a run, named as ``bench run``'s flags (every one optional)."""

    #: Tasks in flight at once (``--concurrency``; default: the suite's, else 8).
    concurrency: int | None
    #: Run every task this many times (``--repeat``).
    repeat: int | None
    #: Read and write the LLM response cache (``--no-cache`` is ``cache=False``).
    cache: bool
    #: A second cache level shared by machines and people, an fsspec URL (``--shared-cache``;
    #: default ``$BENCH_SHARED_CACHE``, else none).
    shared_cache: str | None
    #: Where runs are stored (``--runs-dir``; default ``.bench/runs``).
    runs_dir: str | Path
    #: Finish the run with this id (``--resume``).
    resume: str | None
    #: Leave each task's workspace on disk (``--keep-workspaces``).
    keep_workspaces: bool
    #: Let rows of a tasks file name paths outside the suite's folder (``--allow-outside-root``).
    allow_outside_root: bool
    #: Which tasks to run (``-k``, ``--filter``, ``--limit``, ``--sample``, ``--failed``, ``--errors``).
    select: Selection | None
    #: Values for the tasks' vars, winning over the suite's and the tasks' own (``--var``).
    vars: Mapping[str, str] | None
    #: More files of environment variables, read before the default ``.env`` files (``--env-file``).
    env_files: Sequence[str | Path]
    #: Read the ``.env`` beside the suite and in the working directory (``--no-env-file`` is False).
    dotenv: bool
    #: Show the progress bar (off by default in the API; ``bench run`` shows it unless ``--quiet``).
    progress: bool
    #: Replace every target of the file for this run: a type name or a mapping (``--target``).
    target: str | Mapping[str, Any] | None
    #: Raise ``ConfigError`` before running when a judge's kappa against its labels is below its
    #: ``min_kappa`` (``--require-calibration``).
    require_calibration: bool
    #: What runs the tasks (``--executor``): ``local`` (default) or one a plugin registers.
    executor: str
    #: Worker processes of the executor (``--workers``; local runs ignore it).
    workers: int | None
    #: Tasks handed to a worker at once (``--chunk``; local runs ignore it).
    chunk: int | None
    #: Where the executor's cluster is (``--address``; local runs ignore it).
    address: str | None
    #: The executor's own settings (``--executor-option KEY=VALUE``).
    executor_options: Mapping[str, str] | None


_KEYWORDS = frozenset(RunKeywords.__annotations__)


@dataclass(frozen=True)
class LoadedSuite:
    """A validated suite, as ``bench.load`` returns it: nothing has run."""

    name: str
    path: Path
    #: The target's type (``litellm``, ``command``, ...).
    target: str
    #: One id per run of a task: ``id``, then ``id@1``, ``id@2``... when tasks repeat.
    task_ids: tuple[str, ...]
    #: Prompts that write a var as ``{{name}}``, which bench sends as text.
    template_warnings: tuple[str, ...]
    #: The plan the runner takes (internal: its fields may change between versions).
    plan: Plan = field(repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.task_ids)


@dataclass(frozen=True)
class RunResult:
    """A finished (or interrupted) run: its id and folder, the summary and every task's result."""

    #: What reporters receive (``bench.Reporter.write(result.report, path)``).
    report: RunReport
    #: The run's folder in the run store (``results.jsonl``, ``manifest.json``).
    folder: Path
    #: Ctrl-C (or SIGTERM) stopped the run; ``resume=run_id`` finishes it.
    interrupted: bool

    @property
    def run_id(self) -> str:
        return self.report.run_id

    @property
    def summary(self) -> Summary:
        return self.report.summary

    @property
    def passed(self) -> bool:
        """Every task ran and passed."""
        return self.report.passed

    @property
    def stopped(self) -> str | None:
        """Why the run stopped early (a budget, a fatal model error), when it did."""
        return self.report.stopped

    @property
    def results(self) -> Iterator[TaskResult]:
        """Each task's result in suite order, read from the run store (a fresh iterator each time)."""
        return (TaskResult.model_validate(row) for row in self.report.tasks())

    def __iter__(self) -> Iterator[TaskResult]:
        return self.results


def prepare(
    suite: str | Path,
    registry: Registry | None = None,
    *,
    handle_signals: bool = True,
    load_progress: Callable[[int], None] | None = None,
    **options: Any,
) -> tuple[Plan, RunOptions]:
    """Check ``options`` (``RunKeywords``, ``progress`` aside), load the suite and build ``RunOptions``."""
    unknown = sorted(set(options) - _KEYWORDS)
    if unknown:
        known = ", ".join(sorted(_KEYWORDS))
        raise TypeError(f"unexpected keyword argument {unknown[0]!r} (the options: {known})")
    for name in ("concurrency", "repeat", "workers", "chunk"):
        value = options.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ConfigError(f"{name} must be a whole number of at least 1, got {value!r}")
    load_environment(suite, options.get("env_files", ()), dotenv=bool(options.get("dotenv", True)))
    suite_args: dict[str, Any] = {
        "repeat": options.get("repeat"),
        "allow_outside_root": bool(options.get("allow_outside_root", False)),
        "variables": dict(options["vars"]) if options.get("vars") else None,
        "target": None if options.get("target") is None else parse_target(options["target"]),
    }
    executor = options.get("executor") or DEFAULT_EXECUTOR
    executor_type = None if executor == DEFAULT_EXECUTOR else find_executor(executor, registry)
    plan = load_suite(suite, registry, progress=load_progress, **suite_args)
    run_options = RunOptions(
        runs_dir=Path(options.get("runs_dir", DEFAULT_RUNS_DIR)),
        concurrency=options.get("concurrency"),
        resume=options.get("resume"),
        cache=bool(options.get("cache", True)),
        shared_cache=options.get("shared_cache"),
        keep_workspaces=bool(options.get("keep_workspaces", False)),
        handle_signals=handle_signals,
        selection=options.get("select"),
        require_calibration=bool(options.get("require_calibration", False)),
        executor=executor,
        executor_type=executor_type,
        workers=options.get("workers"),
        chunk=options.get("chunk"),
        address=options.get("address"),
        executor_options=dict(options.get("executor_options") or {}),
        suite_args=suite_args,
    )
    return plan, run_options


def find_executor(name: str, registry: Registry | None = None) -> type[Executor]:
    """The executor class registered as ``name``; an unknown name says which package provides it."""
    from bench.plugins import catalogue
    from bench.plugins.registry import get_registry
    from bench.vocabulary.errors import did_you_mean

    table = (registry or get_registry()).executors
    provided = table.get(name)
    if provided is None:
        hint = catalogue.hint("executors", name) or did_you_mean(name, list(table))
        raise ConfigError(f"--executor: unknown executor '{name}'{hint}")
    found: type[Executor] = provided.cls
    return found


def load_plan(suite: str | Path, suite_args: Mapping[str, Any], registry: Registry | None = None) -> Plan:
    """The plan of a run, loaded again from ``ExecutorSettings.suite_args`` (an executor's worker)."""
    return load_suite(suite, registry, **suite_args)


def plan_client(
    plan: Plan,
    settings: ExecutorSettings,
    *,
    coordinator: Coordinator | None = None,
    worker_id: str | None = None,
) -> LLMClient:
    """An LLM client for ``plan`` with a run's cache settings, its shared cache included (an
    executor's worker makes its own); with a ``coordinator``, its limits and budgets are the run's."""
    from bench.pipeline.session import make_client

    cache = settings.cache_path
    options = RunOptions(cache=settings.cache, cache_path=cache, shared_cache=settings.shared_cache)
    return make_client(plan, options, coordinator=coordinator, worker_id=worker_id)


def load_environment(suite: str | Path, env_files: Sequence[str | Path] = (), *, dotenv: bool = True) -> None:
    """Read the environment files of a run (bench.suite.variables.command_line) into ``os.environ``, never
    replacing what is set, and treat the secrets they hold as secrets."""
    from bench.suite.variables.command_line import env_files as chosen
    from bench.suite.variables.command_line import load_env_files
    from bench.vocabulary import redact

    if load_env_files(chosen(Path(suite), [Path(f) for f in env_files], defaults=dotenv)):
        redact.refresh()


def load(
    suite: str | Path,
    *,
    repeat: int | None = None,
    allow_outside_root: bool = False,
    vars: Mapping[str, str] | None = None,
    env_files: Sequence[str | Path] = (),
    dotenv: bool = True,
) -> LoadedSuite:
    """Load and validate a suite without running it; bad input raises a ``bench.BenchError``."""
    plan, _ = prepare(
        suite,
        repeat=repeat,
        allow_outside_root=allow_outside_root,
        vars=vars,
        env_files=env_files,
        dotenv=dotenv,
    )
    return _loaded(plan)


def _loaded(plan: Plan) -> LoadedSuite:
    return LoadedSuite(
        name=plan.name,
        path=plan.path,
        target=plan.target_type,
        task_ids=tuple(plan.tasks.ids),
        template_warnings=tuple(plan.template_warnings),
        plan=plan,
    )


async def arun(suite: str | Path, **options: Unpack[RunKeywords]) -> RunResult:
    """Run a suite from code already inside an event loop (a notebook cell, an async test).

    The caller's loop runs the tasks; no signal handler is installed (the loop's owner handles
    Ctrl-C). Options are ``bench run``'s flags (``RunKeywords``); nothing is printed unless
    ``progress=True``.
    """
    return await _execute(suite, dict(options), handle_signals=False)


def run(suite: str | Path, **options: Unpack[RunKeywords]) -> RunResult:
    """Run a suite and return its result; options are ``bench run``'s flags (``RunKeywords``).

    Called from a thread whose event loop is running (a notebook cell), the run goes to a worker
    thread with its own loop; ``await bench.arun(...)`` there keeps the caller's loop free.
    Ctrl-C stops the run cleanly when called from the main thread, as ``bench run`` does.
    """
    return run_blocking(
        lambda: _execute(
            suite, dict(options), handle_signals=threading.current_thread() is threading.main_thread()
        )
    )


def run_blocking(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run the coroutine ``make()`` to its end, in a worker thread when this thread's event loop is
    running (``asyncio.run`` cannot nest); ``make`` is called in the thread that runs it."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    if not running:  # outside the except block, so a run's error is not chained to this one
        return asyncio.run(make())
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            outcome.append(asyncio.run(make()))
        except BaseException as exc:  # re-raised in the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=work, name="bench-run")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome[0]


async def _execute(suite: str | Path, options: dict[str, Any], *, handle_signals: bool) -> RunResult:
    progress = bool(options.pop("progress", False))
    # Reading a large suite (and measuring calibration, which runs its own loop) takes a while:
    # a worker thread does it, so that the caller's loop (``arun``) keeps running meanwhile.
    plan, run_options = await asyncio.to_thread(prepare, suite, handle_signals=handle_signals, **options)
    # As ``bench run``: the calibrated judges are measured (their standings go into the report);
    # with ``require_calibration``, one below its bar refuses the run.
    from bench.pipeline.calibration_gate import bars, measure, require, with_standings

    if run_options.require_calibration or bars(plan):
        found = await asyncio.to_thread(measure, plan, run_options)
        if run_options.require_calibration:
            require(found)
        run_options = with_standings(run_options, found)
    for line in plan.template_warnings:
        warnings.warn(line, UserWarning, stacklevel=3)
    if not progress:
        return _result(await execute(plan, run_options))
    from bench.report.console import ConsoleObserver

    with ConsoleObserver(enabled=True) as observer:
        outcome = await execute(plan, run_options, observer)
    return _result(outcome)


def _result(outcome: RunOutcome) -> RunResult:
    return RunResult(outcome.report, outcome.folder, outcome.interrupted)
