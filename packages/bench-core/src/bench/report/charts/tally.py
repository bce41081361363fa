"""What the charts of one run are drawn from, counted in one pass over its results.

A column is one prompt variant on one target (as the matrix's columns): a target's prompts are
never mixed. An evaluator is counted by its name over every task it judged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bench.scoring.stats import Interval, wilson
from bench.vocabulary.results import PASSED


@dataclass
class Column:
    """One prompt variant on one target: runs, passes, cost and durations."""

    prompt: str
    target: str
    runs: int = 0
    passed: int = 0
    cost: float | None = None
    durations_ms: list[float] = field(default_factory=list)

    @property
    def name(self) -> str:
        """As the matrix heads it: ``prompt · target``, or the one of them there is."""
        return " · ".join(part for part in (self.prompt, self.target) if part) or "(all tasks)"

    @property
    def rate(self) -> Interval | None:
        return wilson(self.passed, self.runs) if self.runs else None


@dataclass
class EvaluatorTally:
    """One evaluator's verdicts (errors count as not passed) and the scores it gave."""

    name: str
    runs: int = 0
    passed: int = 0
    scores: list[float] = field(default_factory=list)

    @property
    def rate(self) -> Interval | None:
        return wilson(self.passed, self.runs) if self.runs else None


@dataclass
class Tally:
    """The columns and evaluators of a run, in the order they first appear."""

    columns: dict[tuple[str, str], Column] = field(default_factory=dict)
    evaluators: dict[str, EvaluatorTally] = field(default_factory=dict)

    def add(self, result: dict[str, Any]) -> None:
        prompt = result.get("prompt_label")
        key = (prompt if isinstance(prompt, str) else "", target_name(result.get("target")))
        column = self.columns.get(key)
        if column is None:
            column = self.columns[key] = Column(*key)
        column.runs += 1
        column.passed += result.get("status") == PASSED
        usage = result.get("usage")
        cost = _number(usage.get("cost_usd") if isinstance(usage, dict) else None)
        if cost is not None:
            column.cost = (column.cost or 0.0) + cost
        duration = _number(result.get("duration_ms"))
        if duration is not None:
            column.durations_ms.append(duration)
        for outcome in result.get("evaluators") or []:
            if not isinstance(outcome, dict):
                continue
            name = str(outcome.get("name"))
            judged = self.evaluators.get(name)
            if judged is None:
                judged = self.evaluators[name] = EvaluatorTally(name)
            judged.runs += 1
            judged.passed += bool(outcome.get("passed")) and not outcome.get("error")
            score = _number(outcome.get("score"))
            if score is not None:
                judged.scores.append(score)


def tally(results: Iterable[dict[str, Any]]) -> Tally:
    """Every result of a run counted once."""
    counted = Tally()
    for result in results:
        counted.add(result)
    return counted


def target_name(target: Any) -> str:
    """A target as the report names it: its label, else its name, model or type."""
    if target is None:
        return ""
    if not isinstance(target, dict):
        return str(target)
    for key in ("label", "name", "model", "type"):
        if target.get(key):
            return str(target[key])
    return str(target)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (sorted), interpolated between closest ranks."""
    position = (len(values) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (position - low)


def _number(value: Any) -> float | None:
    """A finite number from a record, else None (a hand-edited record may hold anything)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None
