"""A task's scorecard from its evidence: each dimension's score, then the strategy's verdict.

The strategies' semantics are AgentClash's (see ``bench.scoring.scorecard``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from bench.scoring.collectors import collect_metrics, outcome_score
from bench.scoring.scorecard import Dimension, Scorecard


def lower_is_better(value: float, target: float, maximum: float) -> float:
    if value <= target:
        return 1.0
    if value >= maximum or maximum <= target:
        return 0.0
    return 1.0 - (value - target) / (maximum - target)


def higher_is_better(value: float, target: float, floor: float) -> float:
    if value >= target:
        return 1.0
    if value <= floor or target <= floor:
        return 0.0
    return (value - floor) / (target - floor)


@dataclass
class Evidence:
    """What a task produced, as scorecards read it."""

    outcomes: list[dict[str, Any]]  # evaluator outcomes: name, type, passed, score, error
    metrics: dict[str, float | None]
    #: The evaluator types that are behavioural signals (``collectors.signal_collectors``).
    signals: Collection[str] = ()
    #: The task's id (dimensions fed per task from outside the run, such as human labels).
    task: str = ""


def _dimension(
    dim: Dimension, evidence: Evidence, metrics: dict[str, str]
) -> tuple[float | None, float | None, str]:
    """(raw value, normalised score, reason when unavailable) of one dimension."""
    outcomes = evidence.outcomes
    if dim.source == "validators":
        selected = [o for o in outcomes if not dim.validators or o["name"] in dim.validators]
        if not selected:
            return None, None, "no evaluators in scope"
        for o in selected:
            if o.get("error") is not None:
                return None, None, f"evaluator '{o['name']}' errored: {o['error']}"
        value = sum(outcome_score(o) for o in selected) / len(selected)
        return value, value, ""
    if dim.source == "llm_judge":
        judge = next((o for o in outcomes if o["name"] == dim.judge_key), None)
        if judge is None or judge.get("error") is not None:
            return None, None, f"llm judge '{dim.judge_key}' is unavailable"
        value = outcome_score(judge)
        return value, value, ""
    if dim.source == "human_preference":
        human = dim.human.get(evidence.task)
        if human is None:
            return None, None, f"no human label for task '{evidence.task}'"
        return human, human, ""
    if dim.source == "behavioral":
        signals = [o for o in outcomes if o["type"] in evidence.signals and o.get("error") is None]
        if not signals:
            return None, None, "no behavioral signal evaluators on this task"
        gates = [o["name"] for o in signals if o.get("gate") is True and not o["passed"]]
        if gates:  # a failed gate signal fails the dimension (AgentClash's per-signal gate)
            return 0.0, 0.0, ""
        weight = sum(o.get("weight", 1.0) for o in signals)
        if weight == 0:
            return None, None, "every behavioral signal has weight 0"
        value = sum(outcome_score(o) * o.get("weight", 1.0) for o in signals) / weight
        return value, value, ""
    if dim.source == "reliability":
        completed = evidence.metrics["run_completed_successfully"]
        failures = evidence.metrics["run_failure_count"]
        value = 1.0 if completed == 1.0 and failures == 0 else 0.0
        return value, value, ""
    collector = {"latency": "run_total_latency_ms", "cost": "run_model_cost_usd"}.get(str(dim.source))
    if collector is None:
        collector = metrics.get(str(dim.metric), str(dim.metric))
    raw = evidence.metrics.get(collector)
    if raw is None:
        return None, None, f"{collector} is unknown for this task"
    norm = dim.normalization
    assert norm is not None  # checked when the suite is loaded
    assert norm.target is not None
    assert norm.max is not None
    if dim.source == "metric" and dim.better_direction == "higher":
        return raw, higher_is_better(raw, norm.target, norm.max), ""
    return raw, lower_is_better(raw, norm.target, norm.max), ""


def compute(card: Scorecard, evidence: Evidence, metrics: dict[str, str] | None = None) -> dict[str, Any]:
    """The scorecard of one task: every dimension's raw value, score, weight and gate verdict."""
    metrics = metrics or {}
    rows: list[dict[str, Any]] = []
    for dim in card.dims:
        raw, score, reason = _dimension(dim, evidence, metrics)
        gated = dim.gate or card.strategy == "binary"
        row: dict[str, Any] = {
            "key": dim.key,
            "source": dim.source,
            "raw": raw,
            "score": None if score is None else round(score, 6),
            "weight": dim.weight,
            "gate": gated,
            "pass_threshold": dim.pass_threshold,
            "state": "available" if score is not None else "unavailable",
        }
        if dim.pass_threshold is not None:
            row["passed"] = score is not None and score >= dim.pass_threshold
        if reason:
            row["reason"] = reason
        rows.append(row)
    overall, passed, reason = _combine(card, rows)
    return {
        "strategy": card.strategy,
        "score": overall,
        "passed": passed,
        "reason": reason,
        "dimensions": rows,
    }


def task_scorecard(
    card: Scorecard,
    outcomes: list[dict[str, Any]],
    measured: dict[str, Any],
    *,
    signals: Mapping[str, str],
    metrics: dict[str, str],
    task_id: str,
) -> dict[str, Any]:
    """One task's scorecard from its evaluators' outcomes (name, type, passed, score, error,
    weight, gate) and what its response measured (``collect_metrics``'s keyword arguments other
    than ``outcomes`` and ``signals``), the collected metrics included."""
    collected = collect_metrics(outcomes=outcomes, signals=signals, **measured)
    card_result = compute(card, Evidence(outcomes, collected, signals, task_id), metrics)
    card_result["metrics"] = collected
    return card_result


def _mean(rows: list[dict[str, Any]]) -> float | None:
    available = [r for r in rows if r["score"] is not None]
    weight = float(sum(r["weight"] for r in available))
    if not available or weight == 0:
        return None
    total = float(sum(r["score"] * r["weight"] for r in available))
    return round(total / weight, 6)


def _gate_failures(rows: list[dict[str, Any]]) -> list[str]:
    failures = []
    for row in rows:
        if not row["gate"]:
            continue
        if row["score"] is None:
            failures.append(f'"{row["key"]}" is unavailable ({row.get("reason", "no evidence")})')
        elif not row["passed"]:
            failures.append(
                f'"{row["key"]}" scored {row["score"]:.3g}, '
                f"below its pass_threshold {row['pass_threshold']:g}"
            )
    return failures


def _combine(card: Scorecard, rows: list[dict[str, Any]]) -> tuple[float | None, bool | None, str]:
    failures = _gate_failures(rows)
    if card.strategy == "binary":
        if failures:
            return 0.0, False, "binary: " + "; ".join(failures)
        return 1.0, True, "binary: every dimension cleared its threshold"
    overall = _mean(rows)
    if card.strategy == "hybrid":
        # AgentClash (runtime/scoring/engine.go computeOverallScore): the score is the weighted
        # mean of the non-gate dimensions only, so a gate never drags it down or props it up;
        # when none is available every requirement is met and the score is 1.
        if failures:
            return 0.0, False, "hybrid: gate " + "; ".join(failures)
        rest = _mean([r for r in rows if not r["gate"]])
        if rest is None:
            return 1.0, True, "hybrid: gates passed; no other dimension to weigh"
        if card.pass_threshold is not None and rest < card.pass_threshold:
            return (
                rest,
                False,
                f"hybrid: the other dimensions' weighted score {rest:.3g} is below {card.pass_threshold:g}",
            )
        return rest, True, f"hybrid: gates passed; other dimensions {rest:.3g}"
    if overall is None:
        return None, None, "no dimension has evidence for this task"
    if failures:
        return overall, False, "weighted: gate " + "; ".join(failures)
    if card.pass_threshold is not None and overall < card.pass_threshold:
        return overall, False, f"weighted score {overall:.3g} is below {card.pass_threshold:g}"
    return overall, True, f"weighted score {overall:.3g}"
