"""Evaluating one response: each evaluator under its time limit, its verdict checked and weighed."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import math
from collections.abc import Mapping
from typing import Any

from bench.evaluator import Evaluator, Result, Sample
from bench.evidence import as_text
from bench.execution import killable
from bench.execution.deadline import Exceeded, sync_deadline
from bench.llm.providers import credentials
from bench.llm.providers.offline import SKIPPED, needs, remote_models
from bench.scoring.compute import task_scorecard
from bench.suite.plan import BoundEvaluator, PlannedTask
from bench.vocabulary.errors import EvaluatorError, RunStopped
from bench.vocabulary.models import Response
from bench.vocabulary.results import ERROR, FAILED, NOT_APPLICABLE, PASSED, EvaluatorOutcome, TaskStatus
from bench.workspace import network_guard

#: How long an async evaluator (an LLM judge with its retries, samples and panel) may take.
EVALUATOR_TIMEOUT_S = 600.0


def _check_result(evaluator: BoundEvaluator, value: Any) -> Result:
    """Reject malformed verdicts from a plugin instead of trusting them."""
    if not isinstance(value, Result):
        raise EvaluatorError(f"{_who(evaluator)} returned {type(value).__name__}, not a bench.Result")
    if not isinstance(value.passed, bool):
        raise EvaluatorError(f"{_who(evaluator)} returned passed={value.passed!r}, not a bool")
    score = value.score
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
            raise EvaluatorError(f"{_who(evaluator)} returned score={score!r}, not a number")
        if not 0.0 <= score <= 1.0:
            raise EvaluatorError(f"{_who(evaluator)} returned score={score!r}, outside 0..1")
    return value


def _who(evaluator: BoundEvaluator) -> str:
    return f"evaluator '{evaluator.name}' ({evaluator.type} from {evaluator.distribution})"


def _apply_settings(evaluator: BoundEvaluator, result: Result) -> tuple[bool, float | None, str]:
    passed, score, reason = result.passed, result.score, result.reason
    if evaluator.threshold is not None and score is not None:
        if evaluator.threshold_direction == "max":
            passed = score <= evaluator.threshold
            reason = f"{reason} (score {score:.3g}, at most {evaluator.threshold:g} allowed)"
        else:
            passed = score >= evaluator.threshold
            reason = f"{reason} (score {score:.3g}, at least {evaluator.threshold:g} needed)"
    if evaluator.negate:
        passed = not passed
        score = None if score is None else 1.0 - score
        reason = f"negated: {reason}"
    return passed, score, reason.strip()


def with_evidence(evaluator: BoundEvaluator, sample: Sample) -> Sample:
    evidence = sample.evidence
    changes: dict[str, Any] = {"target": evaluator.target}
    if evaluator.target is not None and not evaluator.instance.resolves_target:
        changes["output"] = evidence.resolve(evaluator.target)
    if evaluator.expected_from is not None:
        value = evidence.value(evaluator.expected_from)
        changes["expected"] = as_text(value)
        changes["expected_value"] = value
    return dataclasses.replace(sample, **changes)


def _isolated(instance: Evaluator[Any], sample: Sample) -> bool:
    limit = instance.isolate_above
    if limit is None or instance.aggregates:  # what it keeps for the suite would stay in the worker
        return False
    return len(sample.output) + len(sample.expected or "") > limit


def _evaluate_in_worker(instance: Evaluator[Any], sample: Sample) -> Any:
    return instance.evaluate(sample)


async def evaluate(
    evaluator: BoundEvaluator, sample: Sample, timeout: float = EVALUATOR_TIMEOUT_S
) -> EvaluatorOutcome:
    """Run one evaluator; any failure to reach a verdict becomes an outcome with ``error`` set."""
    base: dict[str, Any] = {"name": evaluator.name, "type": evaluator.type, "weight": evaluator.weight}
    if evaluator.expect_error and not sample.is_error:
        return EvaluatorOutcome(
            **base, passed=False, reason="expected an error, but the target returned a response"
        )
    skipped = offline_skipped(evaluator)
    if skipped is not None:
        return EvaluatorOutcome(**base, passed=False, error=skipped, details={SKIPPED: [skipped]})
    try:
        if evaluator.target is not None or evaluator.expected_from is not None:
            sample = with_evidence(evaluator, sample)
        if not evaluator.is_async and _isolated(evaluator.instance, sample):
            alone = dataclasses.replace(sample, llm=None)  # the run's LLM client stays here
            # The deadline counts the time queued for a worker, not only the time in one.
            value = await asyncio.wait_for(
                killable.run_killable(_evaluate_in_worker, evaluator.instance, alone, timeout=timeout),
                timeout,
            )
        elif evaluator.is_async:
            value = evaluator.instance.evaluate(sample)
        else:
            # Sync code on the event loop: an interval timer interrupts it at the deadline. Types
            # that can be slow also opt in to a killable worker process (``isolate_above``).
            with sync_deadline(timeout):
                value = evaluator.instance.evaluate(sample)
        if not isinstance(value, Result) and inspect.isawaitable(value):
            value = await asyncio.wait_for(value, timeout)
        result = _check_result(evaluator, value)
    except RunStopped:
        raise  # a budget or the circuit breaker: the task is not evaluated at all
    except (asyncio.TimeoutError, Exceeded):
        error = f"evaluator '{evaluator.name}' ({evaluator.type}) exceeded {timeout:g} s"
        return EvaluatorOutcome(**base, passed=False, error=error)
    except EvaluatorError as exc:
        return EvaluatorOutcome(**base, passed=False, error=str(exc), details=exc.details)
    except Exception as exc:  # a bug in a plugin is its error, not the system's failure
        error = (
            f"evaluator '{evaluator.name}' ({evaluator.type} from {evaluator.distribution}) "
            f"raised {type(exc).__name__}: {exc}"
        )
        return EvaluatorOutcome(**base, passed=False, error=error)
    passed, score, reason = _apply_settings(evaluator, result)
    return EvaluatorOutcome(**base, passed=passed, score=score, reason=reason, details=result.details)


def offline_skipped(evaluator: BoundEvaluator) -> str | None:
    """In an offline run, why ``evaluator`` does not run (a model it calls is not on loopback);
    None when it runs. A type that skips its own graded checks (``skips_offline_checks``) runs."""
    instance = evaluator.instance
    if not network_guard.active() or instance.skips_offline_checks or not instance.llm_calls():
        return None
    remote = remote_models(credentials.endpoints(instance))
    return needs(evaluator.type, remote) if remote else None


def decided_despite_skips(outcomes: list[EvaluatorOutcome]) -> bool:
    """Whether a task whose only errors are checks skipped offline fails anyway: a check that ran
    failed, so no skipped verdict could make it pass."""
    errors = [o for o in outcomes if o.error is not None]
    ran = [o for o in outcomes if o.error is None]
    return all(SKIPPED in o.details for o in errors) and any(not o.passed for o in ran)


def task_status(outcomes: list[EvaluatorOutcome]) -> tuple[TaskStatus, str | None]:
    """The task's status from its checks' outcomes, with the task's error when none applied.

    A check that did not apply (``NOT_APPLICABLE`` in its details) decides nothing, but a task
    whose every check did not apply is an error: a check that did not run never passes."""
    applied = [o for o in outcomes if NOT_APPLICABLE not in o.details]
    if outcomes and not applied:
        why = "; ".join(f"{o.name}: {o.reason}" for o in outcomes)
        return ERROR, f"no check applied to this transcript: {why}"
    if any(o.error is not None for o in applied):
        return (FAILED if decided_despite_skips(applied) else ERROR), None
    return (PASSED if all(o.passed for o in applied) else FAILED), None


def task_score(outcomes: list[EvaluatorOutcome]) -> float | None:
    total = weight = 0.0
    for o in outcomes:
        if o.error is not None or NOT_APPLICABLE in o.details:
            continue
        value = o.score if o.score is not None else (1.0 if o.passed else 0.0)
        total += value * o.weight
        weight += o.weight
    return total / weight if weight else None


def scorecard(
    planned: PlannedTask,
    outcomes: list[EvaluatorOutcome],
    response: Response,
    latency: float | None,
    signals: Mapping[str, str],
    metrics: dict[str, str],
) -> dict[str, Any]:
    """The task's scorecard: it, not the evaluators' conjunction, decides pass or fail."""
    assert planned.scorecard is not None
    rows = [
        {
            **o.model_dump(include={"name", "type", "passed", "score", "error", "weight"}),
            "gate": o.details.get("gate"),
        }
        for o in outcomes
        if NOT_APPLICABLE not in o.details  # a check that did not apply is no evidence
    ]
    measured = {
        "latency_ms": latency,
        "usage": response.usage.model_dump(),
        "target_error": response.error is not None,
        "tool_calls": None if response.error is not None else len(response.tool_calls),
    }
    return task_scorecard(
        planned.scorecard, rows, measured, signals=signals, metrics=metrics, task_id=planned.task.id
    )
