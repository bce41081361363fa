"""Running a plan's tasks elsewhere: what an executor plugin (bench-ray's ``ray``) builds on.

The executor contract itself (``Executor``, ``Job``, ``Sink``, ``ExecutorSettings``) is in
``bench``; this package exports the plumbing around it (docs/plugins.md): the plan a job carries
(``Plan``, ``PlannedTask``, ``PlanRow``), loading it again on a worker (``load_plan``) with a
client of the worker's own (``plan_client``), running tasks there (``LocalExecutor``), sending
results back (``serialize_result``, ``statistics_row``, ``land_captures``), answering the workers'
batched calls from the driver's batches (``RelayedBatches``, ``answer_batched``), sharing the run's
rate limits and budgets among the workers' clients (``Coordinator``, ``LocalCoordinator``,
``LeaseBook``, ``Leases``, ``Deltas``) and running slow work in a killable worker process
(``run_killable``).

A package of re-exports only, at the top of bench's layers (it names ``bench.api``); names load
on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.vocabulary import lazy_exports

if TYPE_CHECKING:
    from bench.api import load_plan as load_plan
    from bench.api import plan_client as plan_client
    from bench.execution.killable import run_killable as run_killable
    from bench.execution.local import LocalExecutor as LocalExecutor
    from bench.execution.sink import serialize_result as serialize_result
    from bench.execution.sink import statistics_row as statistics_row
    from bench.llm.batch.relay import RelayedBatches as RelayedBatches
    from bench.llm.batch.relay import answer_batched as answer_batched
    from bench.llm.limits.coordination import Coordinator as Coordinator
    from bench.llm.limits.coordination import Deltas as Deltas
    from bench.llm.limits.coordination import LeaseBook as LeaseBook
    from bench.llm.limits.coordination import Leases as Leases
    from bench.llm.limits.coordination import LocalCoordinator as LocalCoordinator
    from bench.suite.plan import Plan as Plan
    from bench.suite.plan import PlannedTask as PlannedTask
    from bench.suite.plan import PlanRow as PlanRow
    from bench.workspace.captures import land_captures as land_captures
    from bench.workspace.disk import disk_of as disk_of
    from bench.workspace.disk import format_size as format_size
    from bench.workspace.disk import parse_size as parse_size
    from bench.workspace.disk import size_on_disk as size_on_disk
    from bench.workspace.disk import without_disk as without_disk

#: name -> the module that defines it
_EXPORTS = {
    "LocalExecutor": "bench.execution.local",
    "Plan": "bench.suite.plan",
    "PlannedTask": "bench.suite.plan",
    "PlanRow": "bench.suite.plan",
    "load_plan": "bench.api",
    "plan_client": "bench.api",
    "serialize_result": "bench.execution.sink",
    "statistics_row": "bench.execution.sink",
    "land_captures": "bench.workspace.captures",
    "disk_of": "bench.workspace.disk",
    "without_disk": "bench.workspace.disk",
    "parse_size": "bench.workspace.disk",
    "format_size": "bench.workspace.disk",
    "size_on_disk": "bench.workspace.disk",
    "run_killable": "bench.execution.killable",
    "RelayedBatches": "bench.llm.batch.relay",
    "answer_batched": "bench.llm.batch.relay",
    "Coordinator": "bench.llm.limits.coordination",
    "LocalCoordinator": "bench.llm.limits.coordination",
    "LeaseBook": "bench.llm.limits.coordination",
    "Leases": "bench.llm.limits.coordination",
    "Deltas": "bench.llm.limits.coordination",
}

__all__ = [*_EXPORTS]


__getattr__ = lazy_exports("bench.distributed", _EXPORTS)
