"""Groups of rows decided together: after a run's tasks, each evaluator with ``groups`` re-decides
the rows of each group from the stored results, and the rows it changes land again.

The run's driver does it, from the store, so rows kept by ``--resume`` or run by an executor's
workers count too. A group with a row not finished yet (interrupted, not run) waits for the run
that finishes it. Each row keeps its own verdict in its outcome (``details.row_verdict``), so a
group decided again starts from the rows' own verdicts, and a row that does not change is not
written again.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterable
from typing import Any

from bench.evaluator import Result, Sample
from bench.execution.deadline import Exceeded, sync_deadline
from bench.execution.evaluation import task_score, task_status
from bench.execution.sink import StoreSink
from bench.llm.client import LLMClient
from bench.scoring.run_stats import StatsCollector
from bench.suite.plan import BoundEvaluator, Plan, PlannedTask
from bench.vocabulary.errors import EvaluatorError, RunStopped
from bench.vocabulary.models import Response
from bench.vocabulary.results import ERROR, FAILED, PASSED, EvaluatorOutcome, TaskResult
from bench.vocabulary.store import RunStore, parsed

#: Where an outcome a group re-decided keeps the evaluator's verdict on the row alone.
ROW_VERDICT = "row_verdict"
#: A row with a scorecard whose group re-decided an outcome: no verdict rather than a stale one.
SCORECARD = "a group re-decided an evaluator of this task, and its scorecard is not recomputed from it"
#: The statuses of a row whose group may be decided (the row ran to its end).
_DONE = frozenset({PASSED, FAILED, ERROR})


def groups_of(tasks: Iterable[PlannedTask]) -> list[list[PlannedTask]]:
    """The plan's tasks judged by an evaluator with ``groups``, by group and repeat, in plan order."""
    found: dict[tuple[str, int], list[PlannedTask]] = {}
    for planned in tasks:
        if any(e.instance.in_groups() for e in planned.evaluators):
            task = planned.task
            found.setdefault((task.group or task.id, task.repeat), []).append(planned)
    return list(found.values())


async def decide_groups(
    plan: Plan, store: RunStore, sink: StoreSink, llm: LLMClient | None, timeout: float
) -> int:
    """Decide every finished group of the plan again; how many rows changed."""
    if not plan.grouping:
        return 0
    refs = store.latest_refs()
    changed = 0
    for members in groups_of(plan.tasks):
        found = [refs.pop(planned.key) for planned in members]
        rows = [None if ref is None else parsed(store.read_line(ref.offset)) for ref in found]
        if any(row is None or row.get("status") not in _DONE for row in rows):
            continue  # not every row ran to its end yet: a resumed run decides the group
        stored: list[dict[str, Any]] = [row for row in rows if row is not None]
        decided = [dict(row) for row in stored]
        try:
            for evaluator in members[0].evaluators:
                if evaluator.instance.in_groups():
                    await _decide(evaluator, members, decided, llm, timeout)
        except RunStopped:
            break  # a budget or the circuit breaker: the groups left are decided on --resume
        for planned, before, after in zip(members, stored, decided, strict=True):
            if after != before:
                sink.replace(before, TaskResult.model_validate(_restatus(planned, after)))
                changed += 1
    return changed


def restated(collector: StatsCollector, store: RunStore, order: Iterable[str]) -> StatsCollector:
    """The run's statistics read again from the store, once groups changed rows."""
    fresh = StatsCollector(repeats=collector.repeats)
    for row in store.iter_results(order):
        fresh.add(row)
    return fresh


async def _decide(
    evaluator: BoundEvaluator,
    members: list[PlannedTask],
    rows: list[dict[str, Any]],
    llm: LLMClient | None,
    timeout: float,
) -> None:
    """One evaluator's verdicts on a group's rows, set in ``rows`` (their outcomes of it)."""
    found = [_outcome(row, evaluator) for row in rows]
    group = [
        (_sample(planned, row, llm), _own(outcome))
        for planned, row, outcome in zip(members, rows, found, strict=True)
    ]
    try:
        with sync_deadline(timeout):  # a plain evaluate_group that hangs is stopped too (D16)
            value = evaluator.instance.evaluate_group(group)
        if inspect.isawaitable(value):
            value = await asyncio.wait_for(value, timeout)
        verdicts = _checked(evaluator, value, len(rows))
    except RunStopped:
        raise
    except (asyncio.TimeoutError, Exceeded):
        verdicts = [f"evaluator '{evaluator.name}' ({evaluator.type}) exceeded {timeout:g} s on its group"]
        verdicts *= len(rows)
    except EvaluatorError as exc:
        verdicts = [str(exc)] * len(rows)
    except Exception as exc:  # a plugin's bug: the rows it would decide say so
        verdicts = [f"evaluator '{evaluator.name}' raised {type(exc).__name__}: {exc}"] * len(rows)
    for row, outcome, verdict in zip(rows, found, verdicts, strict=True):
        if outcome is None or (
            outcome[1].get("error") is not None and ROW_VERDICT not in outcome[1]["details"]
        ):
            continue  # no verdict of its own to re-decide: the row keeps what it has
        index, current = outcome
        own = current["details"].get(ROW_VERDICT) or _verdict_fields(current)
        outcomes = list(row["evaluators"])
        outcomes[index] = _landed(current, own, verdict)
        row["evaluators"] = outcomes


def _sample(planned: PlannedTask, row: dict[str, Any], llm: LLMClient | None) -> Sample:
    """A stored row as a sample: its task, and the response text or the target's error."""
    response = Response(output=row.get("response"), error=row.get("error"))
    is_error = response.error is not None
    return Sample(
        planned.task, response, (response.error if is_error else response.text) or "", is_error, llm
    )


def _outcome(row: dict[str, Any], evaluator: BoundEvaluator) -> tuple[int, dict[str, Any]] | None:
    """Where ``evaluator``'s outcome is in a stored row, and the outcome (None: not on this row)."""
    for index, outcome in enumerate(row.get("evaluators") or ()):
        if outcome.get("name") == evaluator.name and outcome.get("type") == evaluator.type:
            return index, outcome
    return None


def _verdict_fields(outcome: dict[str, Any]) -> dict[str, Any]:
    return {key: outcome.get(key) for key in ("passed", "score", "reason", "error", "details")}


def _own(found: tuple[int, dict[str, Any]] | None) -> Result | None:
    """The evaluator's verdict on the row alone (None: it reached none)."""
    if found is None:
        return None
    outcome = found[1]
    own = outcome["details"].get(ROW_VERDICT) or _verdict_fields(outcome)
    if own.get("error") is not None:
        return None
    return Result(
        bool(own["passed"]), own.get("score"), own.get("reason") or "", dict(own.get("details") or {})
    )


def _checked(evaluator: BoundEvaluator, value: Any, count: int) -> list[Result | str | None]:
    who = f"evaluator '{evaluator.name}' ({evaluator.type})"
    if not isinstance(value, list) or len(value) != count:
        raise EvaluatorError(f"{who} did not return one verdict per row of its group ({count})")
    for item in value:
        if item is not None and not isinstance(item, Result):
            raise EvaluatorError(f"{who} returned {type(item).__name__} for a row, not a bench.Result")
        if item is not None and item.score is not None and not 0.0 <= item.score <= 1.0:
            raise EvaluatorError(f"{who} returned score={item.score!r} for a row, outside 0..1")
    return list(value)


def _landed(current: dict[str, Any], own: dict[str, Any], verdict: Result | str | None) -> dict[str, Any]:
    """The outcome a row keeps: the group's verdict (or its error), with the row's own beside it."""
    base = {"name": current["name"], "type": current["type"], "weight": current.get("weight", 1.0)}
    if verdict is None:  # the group leaves the row as it was on its own
        return {
            **base,
            **{k: v for k, v in own.items() if k != "details"},
            "details": own.get("details") or {},
        }
    if isinstance(verdict, str):
        details = {ROW_VERDICT: own}
        return {**base, "passed": False, "score": None, "reason": "", "error": verdict, "details": details}
    decided = {"passed": verdict.passed, "score": verdict.score, "reason": verdict.reason, "error": None}
    return {**base, **decided, "details": {**verdict.details, ROW_VERDICT: own}}


def _restatus(planned: PlannedTask, row: dict[str, Any]) -> dict[str, Any]:
    """The row with its status and score from its outcomes, as the runner decides them."""
    if row.get("status") == ERROR and not row.get("evaluators"):
        return row  # the target failed: nothing was judged
    if row.get("scorecard") is not None:  # its verdict would be the scorecard's, not recomputed
        return {**row, "status": ERROR, "passed": False, "error": SCORECARD}
    outcomes = [EvaluatorOutcome.model_validate(o) for o in row["evaluators"]]
    status, unjudged = task_status(outcomes)
    error = {"error": unjudged} if unjudged is not None else {}
    return {**row, **error, "status": status, "passed": status == PASSED, "score": task_score(outcomes)}
