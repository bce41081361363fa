"""The executor API: what runs a plan's tasks (``local`` in bench-core, others from plugins).

A run's session opens the store, selects what is left to run, writes the manifest, handles
signals and reports; an executor only runs the tasks it is given and hands every result to the
``Sink``, the one way a result lands in the store.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from bench.execution.figures import Aggregators
    from bench.llm.accounting import Totals
    from bench.llm.client import LLMClient
    from bench.suite.plan import Plan, PlannedTask
    from bench.vocabulary.results import TaskResult

#: The executor a run uses unless told otherwise.
DEFAULT_EXECUTOR = "local"


class Sink(Protocol):
    """Where an executor lands each finished result: redacted, appended to the run store (one
    line per result), counted in the summary and the statistics, shown as progress."""

    def record(self, result: TaskResult) -> None:
        """Land a result made in this process."""

    def land(self, line: str, status: str, stats: dict[str, Any]) -> None:
        """Land a result made elsewhere: its JSON ``line`` (``serialize``), its ``status`` and its
        ``statistics_row`` (so the driver never parses the line again)."""


@dataclass
class ExecutorSettings:
    """How the user asked the tasks to run (``bench run``'s flags that executors read)."""

    #: Tasks in flight at once, per process that runs tasks.
    concurrency: int = 8
    #: Processes (or machines' workers) that run tasks; None: the executor's default.
    workers: int | None = None
    #: Tasks handed to a worker at once; None: the executor's default.
    chunk: int | None = None
    #: Where the executor's cluster is (``--address``); None: the executor's default.
    address: str | None = None
    #: The executor's own settings (``--executor-option KEY=VALUE``), checked by the executor.
    options: Mapping[str, str] = field(default_factory=dict)
    #: Seconds an async evaluator may take.
    evaluator_timeout: float = 60.0
    keep_workspaces: bool = False
    #: Where captured workspace files go (``<run>/captures``).
    captures_dir: Path | None = None
    #: Captured files travel in each result for the store's owner to write (a worker elsewhere).
    portable_captures: bool = False
    #: Read and write the LLM response cache, and where it is (None: the default path).
    cache: bool = True
    cache_path: Path | None = None
    #: The shared second level of the response cache (an fsspec URL), if any.
    shared_cache: str | None = None
    #: ``load_suite``'s keyword arguments for this run, so a worker can load the same plan.
    suite_args: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Job:
    """One executor's work: the plan and which of its runs to do, in plan order."""

    plan: Plan
    #: The keys to run (``PlannedTask.key``); None: every run of the plan.
    selected: set[str] | None
    settings: ExecutorSettings
    #: The driver's LLM client (the local executor's tasks call through it).
    llm: LLMClient
    #: Where an executor that evaluates in this process adds the evaluators with suite-level
    #: figures it ran (the deprecated ``Evaluator.aggregate`` needs their instances); None: nowhere.
    aggregators: Aggregators | None = None

    @property
    def count(self) -> int:
        """How many runs the job has."""
        return len(self.plan.tasks) if self.selected is None else len(self.selected)

    def keys(self) -> Iterator[str]:
        """The keys to run, in plan order, without building the tasks."""
        ids = self.plan.tasks.ids
        return iter(ids) if self.selected is None else (k for k in ids if k in self.selected)

    def tasks(self) -> Iterator[PlannedTask]:
        """The planned tasks to run, in plan order."""
        tasks = iter(self.plan.tasks)
        return tasks if self.selected is None else (p for p in tasks if p.key in self.selected)


class Executor:
    """Base class of an executor type.

    Subclasses set ``name`` (``bench run --executor NAME``) and implement ``run``; ``open`` runs
    before the manifest is written (start workers, refuse a bad set-up) and ``close`` after the
    last result, whatever happened. ``interrupt`` is called from a signal handler (Ctrl-C): stop
    starting tasks; results not landed run again on ``--resume``.
    """

    name: ClassVar[str]
    #: One line for ``bench plugins``.
    description: ClassVar[str] = ""
    #: It can run ``--batch``: its workers' batched calls are answered by the driver's batches
    #: (``job.llm.batcher``; bench.distributed's ``RelayedBatches``). Else ``--batch`` is refused.
    batches: ClassVar[bool] = False
    #: It runs every task in the driver's process, through the run's one instance of each target:
    #: a target whose answers depend on the tasks it answered before (``Target.sequential``) runs
    #: on it. Else such a suite is refused before anything runs.
    sequential_targets: ClassVar[bool] = False

    def __init__(self, settings: ExecutorSettings) -> None:
        self.settings = settings
        #: Ctrl-C or SIGTERM stopped the run.
        self.interrupted = False
        #: Why the run stopped starting tasks (a budget, a failing provider), if it did.
        self.stopped: str | None = None
        #: The model calls made outside the driver's client (by workers), set by ``close``: the
        #: run's ``llm`` totals are these plus the driver's own.
        self.llm_totals: Totals | None = None

    async def open(self, job: Job) -> None:
        """Get ready to run ``job`` (raise ``bench.ConfigError`` for a set-up that cannot run)."""

    async def run(self, job: Job, sink: Sink) -> None:
        """Run the job's tasks; each result goes to ``sink`` once, as it finishes."""
        raise NotImplementedError

    async def close(self) -> None:
        """Release what ``open`` took (processes, connections)."""

    def interrupt(self) -> None:
        """Stop starting tasks (called from a signal handler)."""
        self.interrupted = True
