"""The Python API: ``bench.load``, ``bench.run`` and ``bench.arun`` (docs/python-api.md).

``execute`` is the one entry of a run: these functions and the ``bench run`` command go through
it, with the run's options (``RunOptions``, whose fields ``RunKeywords`` names) and an observer
(``bench run``'s console; nothing by default). Nothing here prints, exits or installs signal
handlers outside the main thread.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from bench.executor import ExecutorSettings
from bench.llm.providers import eventloop
from bench.pipeline.loading import load_environment, load_for_run
from bench.pipeline.options import RunOptions
from bench.pipeline.run import DryRun, run_suite
from bench.report.observer import RunObserver
from bench.suite.loader import load_suite
from bench.suite.plan import Plan
from bench.vocabulary.results import RunReport, Summary, TaskResult

T = TypeVar("T")

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from bench.llm.client import LLMClient
    from bench.llm.limits.coordination import Coordinator
    from bench.plugins.registry import Registry
    from bench.suite.selection.narrowing import Selection

__all__ = [
    "DryRun",
    "LoadedSuite",
    "RunKeywords",
    "RunResult",
    "arun",
    "execute",
    "load",
    "load_environment",
    "load_plan",
    "plan_client",
    "run",
    "run_blocking",
]


class RunKeywords(TypedDict, total=False):
    """The options of a run, named as ``bench run``'s flags (every one optional): each is the
    field of ``RunOptions`` (bench.pipeline.options) of its name, which says what it does; and
    ``progress`` shows the progress bar (off by default; ``bench run`` shows it unless ``--quiet``)."""

    concurrency: int | None
    repeat: int | None
    cache: bool
    shared_cache: str | None
    runs_dir: str | Path
    resume: str | None
    keep_workspaces: bool
    allow_outside_root: bool
    select: Selection | None
    vars: Mapping[str, str] | None
    env_files: Sequence[str | Path]
    dotenv: bool
    progress: bool
    target: str | Mapping[str, Any] | None
    require_calibration: bool
    executor: str
    workers: int | None
    chunk: int | None
    address: str | None
    executor_options: Mapping[str, str] | None
    offline: bool
    batch: bool
    detach: bool
    batch_retry_live: bool


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
    #: What ``select`` chose, as ``selected 3 of 40 tasks (-k 'math')``; None: every task ran.
    selected: str | None = None

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


def run_options(options: Mapping[str, Any], **internal: Any) -> RunOptions:
    """``RunOptions`` from ``bench.run``'s keywords (``RunKeywords``; ``progress`` aside); an unknown
    keyword is a TypeError naming the options. ``internal``: options no keyword sets."""
    unknown = sorted(set(options) - _KEYWORDS)
    if unknown:
        known = ", ".join(sorted(_KEYWORDS))
        raise TypeError(f"unexpected keyword argument {unknown[0]!r} (the options: {known})")
    given = {name: value for name, value in options.items() if name != "progress"}
    return RunOptions(**given, **internal)


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
    from bench.pipeline.client import make_client

    cache = settings.cache_path
    options = RunOptions(cache=settings.cache, cache_path=cache, shared_cache=settings.shared_cache)
    return make_client(plan, options, coordinator=coordinator, worker_id=worker_id)


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
    options = RunOptions(
        repeat=repeat, allow_outside_root=allow_outside_root, vars=vars, env_files=env_files, dotenv=dotenv
    )
    plan = load_for_run(suite, options)
    return LoadedSuite(
        name=plan.name,
        path=plan.path,
        target=plan.target_type,
        task_ids=tuple(plan.tasks.ids),
        template_warnings=tuple(plan.template_warnings),
        plan=plan,
    )


async def execute(
    suite: str | Path,
    options: RunOptions,
    observer: RunObserver | None = None,
    *,
    registry: Registry | None = None,
    offload: bool = False,
) -> RunResult | DryRun:
    """Run ``suite`` with ``options``, telling ``observer`` (default: nobody; template warnings
    become Python warnings): the one entry of ``bench run``, ``bench.run`` and ``bench.arun``.

    The calibration gate and the template warnings happen here, once. ``options.dry_run``
    returns what the run would call instead (``DryRun``). ``registry``: where the suite's types
    are looked up (default: the installed plugins'). ``offload``: read the suite in a worker
    thread, so that the caller's event loop keeps running meanwhile.
    """
    outcome = await run_suite(suite, options, observer or RunObserver(), registry, offload=offload)
    if isinstance(outcome, DryRun):
        return outcome
    return RunResult(outcome.report, outcome.folder, outcome.interrupted, outcome.selected)


async def arun(suite: str | Path, **options: Unpack[RunKeywords]) -> RunResult:
    """Run a suite from code already inside an event loop (a notebook cell, an async test).

    The caller's loop runs the tasks; no signal handler is installed (the loop's owner handles
    Ctrl-C). Options are ``bench run``'s flags (``RunKeywords``); nothing is printed unless
    ``progress=True``.
    """
    chosen = run_options(options, handle_signals=False)
    return await _run(suite, chosen, bool(options.get("progress")), offload=True)


def run(suite: str | Path, **options: Unpack[RunKeywords]) -> RunResult:
    """Run a suite and return its result; options are ``bench run``'s flags (``RunKeywords``).

    Called from a thread whose event loop is running (a notebook cell), the run goes to a worker
    thread with its own loop; ``await bench.arun(...)`` there keeps the caller's loop free.
    Ctrl-C stops the run cleanly when called from the main thread, as ``bench run`` does.
    """
    chosen = run_options(options)
    progress = bool(options.get("progress"))

    def make() -> Coroutine[Any, Any, RunResult]:  # in the thread that runs it: is it the main one?
        main = threading.current_thread() is threading.main_thread()
        return _run(suite, dataclasses.replace(chosen, handle_signals=main), progress)

    return run_blocking(make)


async def _run(suite: str | Path, options: RunOptions, progress: bool, *, offload: bool = False) -> RunResult:
    """``execute`` with the console's progress bar when ``progress`` (template warnings stay
    Python warnings)."""
    if not progress:
        result = await execute(suite, options, offload=offload)
    else:
        from bench.report.console import ConsoleObserver

        with ConsoleObserver(enabled=True) as observer:
            result = await execute(suite, options, observer, offload=offload)
    assert isinstance(result, RunResult)  # no keyword asks for a dry run
    return result


def run_blocking(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run the coroutine ``make()`` to its end, in a worker thread when this thread's event loop is
    running (an event loop cannot nest); ``make`` is called in the thread that runs it."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        running = False
    else:
        running = True
    if not running:  # outside the except block, so a run's error is not chained to this one
        return eventloop.run(make())
    outcome: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            outcome.append(eventloop.run(make()))
        except BaseException as exc:  # re-raised in the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=work, name="bench-run")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]
    return outcome[0]
