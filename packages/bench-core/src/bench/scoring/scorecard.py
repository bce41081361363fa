"""Scorecards as written (AgentClash ``002``), and the rules a suite's scorecard must follow.

A scorecard weighs correctness against reliability, latency and cost (``bench.scoring.compute``
computes it for a task).

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

from collections.abc import Sequence
from typing import Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from bench.scoring.collectors import COLLECTORS

Source = Literal[
    "validators", "metric", "reliability", "latency", "cost", "behavioral", "llm_judge", "human_preference"
]
BUILTIN: dict[str, Source] = {
    "correctness": "validators",
    "reliability": "reliability",
    "latency": "latency",
    "cost": "cost",
    "behavioral": "behavioral",
}

#: Largest weight an evaluator or a dimension may have: larger sums overflow to infinity.
MAX_WEIGHT = 1_000_000


class _Strict(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", allow_inf_nan=False)


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
    #: The labels file of a ``human_preference`` dimension (relative to the suite file).
    labels: str | None = None
    #: Its human scores per task id, read when the suite is loaded.
    _human: dict[str, float] = PrivateAttr(default_factory=dict)

    @property
    def human(self) -> dict[str, float]:
        """The human score per task id (``human_preference``)."""
        return self._human

    def set_human(self, scores: dict[str, float]) -> None:
        self._human = dict(scores)


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
    #: One of the collectors known when the suite is validated (``context={"collectors": ...}``).
    collector: str
    unit: str | None = None

    @field_validator("collector", mode="before")
    @classmethod
    def _known(cls, value: Any, info: ValidationInfo) -> Any:
        known: Sequence[str] = (info.context or {}).get("collectors", COLLECTORS)
        if value not in known:
            quoted = [repr(k) for k in known]
            choices = f"{', '.join(quoted[:-1])} or {quoted[-1]}" if len(quoted) > 1 else quoted[0]
            raise PydanticCustomError("literal_error", "Input should be {choices}", {"choices": choices})
        return value


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
    collectors: Sequence[str] = COLLECTORS,
) -> list[tuple[tuple[Any, ...], str]]:
    """AgentClash's evaluation_spec rules; returns (field path under the scorecard, message) pairs.

    Also fills each latency/cost dimension's normalisation from the legacy block and the runtime
    limits, so the scorecard is ready to compute afterwards. ``collectors`` are the metric
    collectors known (bench-core's own, then the installed behavioural signals').
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
        found = _dimension_problems(card, dim)
        if dim.source == "metric":
            found += _metric_problems(dim, metrics, collectors)
        if dim.source in ("latency", "cost"):
            _migrate(card, dim, max_duration_ms if dim.source == "latency" else max_cost_usd)
            found += _limit_problems(dim)
        problems += [((*at, field), message) for field, message in found]
    return problems


def _dimension_problems(card: Scorecard, dim: Dimension) -> list[tuple[str, str]]:
    """(field, message) for the settings a dimension's strategy and source need or refuse."""
    problems: list[tuple[str, str]] = []
    if (dim.gate or card.strategy == "binary") and dim.pass_threshold is None:
        why = "a gate" if dim.gate else "every dimension of a binary scorecard"
        problems.append(("pass_threshold", f"{why} needs pass_threshold (0..1)"))
    if dim.source == "llm_judge" and not dim.judge_key:
        problems.append(("judge_key", "an llm_judge dimension needs judge_key (the judge evaluator's name)"))
    if dim.source != "llm_judge" and dim.judge_key:
        problems.append(("judge_key", "judge_key is only for source: llm_judge"))
    if dim.source == "human_preference" and not dim.labels:
        problems.append(
            ("labels", "a human_preference dimension needs labels (a file of task, passed or score)")
        )
    if dim.source != "human_preference" and dim.labels:
        problems.append(("labels", "labels is only for source: human_preference"))
    return problems


def _metric_problems(
    dim: Dimension, metrics: dict[str, str], collectors: Sequence[str]
) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    if not dim.metric:
        problems.append(("metric", "a metric dimension needs metric (a declared metric or a collector)"))
    elif dim.metric not in metrics and dim.metric not in collectors:
        known = ", ".join([*metrics, *collectors])
        problems.append(("metric", f"unknown metric '{dim.metric}'; known: {known}"))
    if dim.better_direction is None:
        problems.append(("better_direction", "a metric dimension needs better_direction: higher or lower"))
    if dim.normalization is None or None in (dim.normalization.target, dim.normalization.max):
        problems.append(("normalization", "a metric dimension needs normalization {target, max}"))
    return problems


def _limit_problems(dim: Dimension) -> list[tuple[str, str]]:
    """A latency or cost dimension's normalization, once filled from the legacy block and limits."""
    norm = dim.normalization
    unit = "ms" if dim.source == "latency" else "usd"
    if norm is None or norm.target is None:
        return [
            (
                "normalization",
                f"a {dim.source} dimension needs normalization.target "
                f"(or scorecard normalization.{dim.source}.target_{unit})",
            )
        ]
    if norm.max is None:
        limit = "max_duration_ms" if dim.source == "latency" else "max_cost_usd"
        return [
            ("normalization", f"a {dim.source} dimension needs normalization.max (or runtime_limits.{limit})")
        ]
    if norm.max <= norm.target:
        return [("normalization", "normalization.max must be greater than target")]
    return []


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
