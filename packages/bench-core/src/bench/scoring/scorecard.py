"""Scorecards (AgentClash ``002``): weigh correctness against reliability, latency and cost.

A scorecard has dimensions; each reads one source of evidence for a task and normalises it to
0..1. A strategy combines them (semantics of AgentClash's ``runtime/scoring``):

``weighted``
    the weighted mean of the available dimensions; passes when every gated dimension clears its
    ``pass_threshold`` and, if the scorecard sets one, the mean clears ``pass_threshold``.
``binary``
    every dimension is a gate; the score is 1 when all clear their thresholds, else 0. A
    scorecard-level ``pass_threshold`` is refused.
``hybrid``
    gates must pass (a failing or unavailable gate makes the score 0), and the weighted mean of
    the *other* dimensions must clear the scorecard's ``pass_threshold`` when it has one. The
    reported score is the weighted mean of all dimensions, as AgentClash reports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

Source = Literal["validators", "metric", "reliability", "latency", "cost", "behavioral", "llm_judge"]
BUILTIN: dict[str, Source] = {
    "correctness": "validators",
    "reliability": "reliability",
    "latency": "latency",
    "cost": "cost",
    "behavioral": "behavioral",
}
#: Metric collectors (AgentClash's names) every task result provides.
COLLECTORS = (
    "run_total_latency_ms",
    "run_ttft_ms",
    "run_input_tokens",
    "run_output_tokens",
    "run_total_tokens",
    "run_model_cost_usd",
    "run_completed_successfully",
    "run_failure_count",
    "validator_pass_rate",
    "behavioral_recovery_score",
    "behavioral_exploration_score",
    "behavioral_error_cascade_score",
    "behavioral_scope_score",
    "behavioral_confidence_score",
)
#: The collector of each behavioural signal's score (bench-agent's evaluator types).
SIGNAL_COLLECTORS = {
    "recovery_behavior": "behavioral_recovery_score",
    "exploration_efficiency": "behavioral_exploration_score",
    "error_cascade": "behavioral_error_cascade_score",
    "scope_adherence": "behavioral_scope_score",
    "confidence_calibration": "behavioral_confidence_score",
}
BEHAVIORAL_TYPES = frozenset(
    {
        "recovery_behavior",
        "exploration_efficiency",
        "error_cascade",
        "scope_adherence",
        "confidence_calibration",
    }
)


#: Largest weight an evaluator or a dimension may have: larger sums overflow to infinity.
MAX_WEIGHT = 1_000_000


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Normalization(_Strict):
    """Linear normalisation: ``target`` scores 1, ``max`` (the worst case) scores 0."""

    target: float | None = None
    max: float | None = None


class Dimension(_Strict):
    """One dimension of a scorecard."""

    key: str
    source: Source | None = None
    validators: list[str] = Field(default_factory=list)
    metric: str | None = None
    judge_key: str | None = None
    better_direction: Literal["higher", "lower"] | None = None
    normalization: Normalization | None = None
    weight: float = Field(default=1.0, ge=0, le=MAX_WEIGHT)
    gate: bool = False
    pass_threshold: float | None = Field(default=None, ge=0, le=1)


class LatencyTargets(_Strict):
    target_ms: float | None = Field(default=None, ge=0)
    max_ms: float | None = Field(default=None, gt=0)


class CostTargets(_Strict):
    target_usd: float | None = Field(default=None, ge=0)
    max_usd: float | None = Field(default=None, gt=0)


class LegacyNormalization(_Strict):
    """AgentClash's older scorecard-level normalisation, migrated onto the dimensions."""

    latency: LatencyTargets | None = None
    cost: CostTargets | None = None


class MetricDeclaration(_Strict):
    """A named metric (AgentClash ``metrics:``): a collector under a key of the suite's choosing."""

    key: str
    type: Literal["numeric", "text", "boolean"] = "numeric"
    collector: Literal[COLLECTORS]  # type: ignore[valid-type]
    unit: str | None = None


class Scorecard(_Strict):
    """A scorecard as written in a suite (``scorecard:``) or on a task."""

    strategy: Literal["weighted", "binary", "hybrid"] = "weighted"
    dimensions: list[str | Dimension] = Field(min_length=1)
    pass_threshold: float | None = Field(default=None, ge=0, le=1)
    normalization: LegacyNormalization | None = None

    @model_validator(mode="after")
    def _expand(self) -> Scorecard:
        self.dimensions = [_expand(d) for d in self.dimensions]
        return self

    @property
    def dims(self) -> list[Dimension]:
        return [d for d in self.dimensions if isinstance(d, Dimension)]


def _expand(dimension: str | Dimension) -> Dimension:
    if isinstance(dimension, str):
        if dimension not in BUILTIN:
            raise ValueError(
                f"unknown dimension '{dimension}'; the built-in ones are {', '.join(BUILTIN)} "
                "(or write {key, source, ...})"
            )
        return Dimension(key=dimension, source=BUILTIN[dimension])
    if dimension.source is None:
        if dimension.key not in BUILTIN:
            raise ValueError(f"dimension '{dimension.key}' needs a source ({', '.join(get_args(Source))})")
        dimension.source = BUILTIN[dimension.key]
    return dimension


def check(
    card: Scorecard,
    *,
    metrics: dict[str, str],
    max_duration_ms: float | None,
    max_cost_usd: float | None,
) -> list[tuple[tuple[Any, ...], str]]:
    """AgentClash's evaluation_spec rules; returns (field path under the scorecard, message) pairs.

    Also fills each latency/cost dimension's normalisation from the legacy block and the runtime
    limits, so the scorecard is ready to compute afterwards.
    """
    problems: list[tuple[tuple[Any, ...], str]] = []
    seen: set[str] = set()
    if card.strategy == "binary" and card.pass_threshold is not None:
        problems.append(
            (("pass_threshold",), "binary strategy derives pass/fail from its gates; remove pass_threshold")
        )
    if card.strategy == "hybrid" and not any(d.gate for d in card.dims):
        problems.append((("strategy",), "hybrid strategy needs at least one dimension with gate: true"))
    for i, dim in enumerate(card.dims):
        at = ("dimensions", i)
        if dim.key in seen:
            problems.append(((*at, "key"), f"dimension key '{dim.key}' is used twice"))
        seen.add(dim.key)
        if (dim.gate or card.strategy == "binary") and dim.pass_threshold is None:
            why = "a gate" if dim.gate else "every dimension of a binary scorecard"
            problems.append(((*at, "pass_threshold"), f"{why} needs pass_threshold (0..1)"))
        if dim.source == "llm_judge" and not dim.judge_key:
            problems.append(
                ((*at, "judge_key"), "an llm_judge dimension needs judge_key (the judge evaluator's name)")
            )
        if dim.source != "llm_judge" and dim.judge_key:
            problems.append(((*at, "judge_key"), "judge_key is only for source: llm_judge"))
        if dim.source == "metric":
            if not dim.metric:
                problems.append(
                    ((*at, "metric"), "a metric dimension needs metric (a declared metric or a collector)")
                )
            elif dim.metric not in metrics and dim.metric not in COLLECTORS:
                known = ", ".join([*metrics, *COLLECTORS])
                problems.append(((*at, "metric"), f"unknown metric '{dim.metric}'; known: {known}"))
            if dim.better_direction is None:
                problems.append(
                    ((*at, "better_direction"), "a metric dimension needs better_direction: higher or lower")
                )
        if dim.source in ("latency", "cost"):
            _migrate(card, dim, max_duration_ms if dim.source == "latency" else max_cost_usd)
            norm = dim.normalization
            unit = "ms" if dim.source == "latency" else "usd"
            if norm is None or norm.target is None:
                problems.append(
                    (
                        (*at, "normalization"),
                        f"a {dim.source} dimension needs normalization.target "
                        f"(or scorecard normalization.{dim.source}.target_{unit})",
                    )
                )
            elif norm.max is None:
                limit = "max_duration_ms" if dim.source == "latency" else "max_cost_usd"
                problems.append(
                    (
                        (*at, "normalization"),
                        f"a {dim.source} dimension needs normalization.max (or runtime_limits.{limit})",
                    )
                )
            elif norm.max <= norm.target:
                problems.append(((*at, "normalization"), "normalization.max must be greater than target"))
        if dim.source == "metric" and (
            dim.normalization is None or None in (dim.normalization.target, dim.normalization.max)
        ):
            problems.append(((*at, "normalization"), "a metric dimension needs normalization {target, max}"))
    return problems


def _migrate(card: Scorecard, dim: Dimension, limit: float | None) -> None:
    legacy = card.normalization
    target = maximum = None
    if legacy is not None and dim.source == "latency" and legacy.latency is not None:
        target, maximum = legacy.latency.target_ms, legacy.latency.max_ms
    if legacy is not None and dim.source == "cost" and legacy.cost is not None:
        target, maximum = legacy.cost.target_usd, legacy.cost.max_usd
    norm = dim.normalization or Normalization()
    dim.normalization = Normalization(
        target=norm.target if norm.target is not None else target,
        max=norm.max if norm.max is not None else maximum if maximum is not None else limit,
    )


# -- computing ---------------------------------------------------------------------------------


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


def collect_metrics(
    *, latency_ms: float | None, usage: dict[str, Any], target_error: bool, outcomes: list[dict[str, Any]]
) -> dict[str, float | None]:
    """The metric collectors' values for one task (``None`` where unknown, never a made-up 0)."""
    errors = sum(o.get("error") is not None for o in outcomes)
    judged = [o for o in outcomes if o.get("error") is None]
    signals: dict[str, float | None] = dict.fromkeys(SIGNAL_COLLECTORS.values())
    for o in judged:
        key = SIGNAL_COLLECTORS.get(o["type"])
        if key is not None and signals[key] is None:
            signals[key] = _outcome_score(o)
    return {
        "run_total_latency_ms": latency_ms,
        "run_ttft_ms": usage.get("ttft_ms"),
        "run_input_tokens": usage.get("input_tokens"),
        "run_output_tokens": usage.get("output_tokens"),
        "run_total_tokens": usage.get("total_tokens"),
        "run_model_cost_usd": usage.get("cost_usd"),
        "run_completed_successfully": 0.0 if target_error else 1.0,
        "run_failure_count": float(int(target_error) + errors),
        "validator_pass_rate": sum(bool(o["passed"]) for o in judged) / len(judged) if judged else None,
        **signals,
    }


def _outcome_score(outcome: dict[str, Any]) -> float:
    score = outcome.get("score")
    return float(score) if score is not None else (1.0 if outcome["passed"] else 0.0)


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
        value = sum(_outcome_score(o) for o in selected) / len(selected)
        return value, value, ""
    if dim.source == "llm_judge":
        judge = next((o for o in outcomes if o["name"] == dim.judge_key), None)
        if judge is None or judge.get("error") is not None:
            return None, None, f"llm judge '{dim.judge_key}' is unavailable"
        value = _outcome_score(judge)
        return value, value, ""
    if dim.source == "behavioral":
        signals = [o for o in outcomes if o["type"] in BEHAVIORAL_TYPES and o.get("error") is None]
        if not signals:
            return None, None, "no behavioral signal evaluators (bench-agent) on this task"
        gates = [o["name"] for o in signals if o.get("gate") is True and not o["passed"]]
        if gates:  # a failed gate signal fails the dimension (AgentClash's per-signal gate)
            return 0.0, 0.0, ""
        weight = sum(o.get("weight", 1.0) for o in signals)
        if weight == 0:
            return None, None, "every behavioral signal has weight 0"
        value = sum(_outcome_score(o) * o.get("weight", 1.0) for o in signals) / weight
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
        if failures:
            return 0.0, False, "hybrid: gate " + "; ".join(failures)
        rest = _mean([r for r in rows if not r["gate"]])
        if card.pass_threshold is not None:
            if rest is None:
                return overall, False, "hybrid: no non-gate dimension available to weigh"
            if rest < card.pass_threshold:
                return (
                    overall,
                    False,
                    f"hybrid: the other dimensions' weighted score {rest:.3g} "
                    f"is below {card.pass_threshold:g}",
                )
        return (
            overall,
            True,
            "hybrid: gates passed" + (f"; other dimensions {rest:.3g}" if rest is not None else ""),
        )
    if overall is None:
        return None, None, "no dimension has evidence for this task"
    if failures:
        return overall, False, "weighted: gate " + "; ".join(failures)
    if card.pass_threshold is not None and overall < card.pass_threshold:
        return overall, False, f"weighted score {overall:.3g} is below {card.pass_threshold:g}"
    return overall, True, f"weighted score {overall:.3g}"
