"""Each target's statistics in a run of several: counts, pass rate and mean score with the
intervals of the run's own statistics, cost, and time per task (mean and 95th percentile).

Records are grouped by their ``target.label``; records without one (a recorded response, a suite
with a single target) belong to no target. A run with fewer than two labelled targets has no
per-target section, so single-target reports keep exactly the keys they had.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bench.scoring.run_stats import StatsCollector
from bench.scoring.stats import _percentile
from bench.vocabulary.results import ERROR, FAILED, PASSED


def target_label(result: dict[str, Any]) -> str | None:
    """The label of the target that answered ``result``, if it has one."""
    target = result.get("target")
    label = target.get("label") if isinstance(target, dict) else None
    return label if isinstance(label, str) else None


@dataclass
class _Target:
    kind: str | None
    model: str | None
    stats: StatsCollector
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys((PASSED, FAILED, ERROR), 0))
    runs: int = 0
    interrupted: int = 0
    cost: float | None = None
    durations: list[float] = field(default_factory=list)


class TargetStats:
    """Accumulates records as they are recorded (or read back from the store), per target label."""

    def __init__(self, repeats: bool = True) -> None:
        self.repeats = repeats
        self.targets: dict[str, _Target] = {}

    def add(self, result: dict[str, Any]) -> None:
        label = target_label(result)
        if label is None:
            return
        target = result["target"]
        found = self.targets.get(label)
        if found is None:
            found = self.targets[label] = _Target(
                target.get("type"), target.get("model"), StatsCollector(self.repeats)
            )
        found.stats.add(result)
        found.runs += 1
        status = result.get("status")
        if status in found.counts:
            found.counts[status] += 1
        else:
            found.interrupted += 1
        cost = (result.get("usage") or {}).get("cost_usd")
        if isinstance(cost, (int, float)):
            found.cost = (found.cost or 0.0) + cost
        duration = result.get("duration_ms")
        if isinstance(duration, (int, float)):
            found.durations.append(float(duration))

    def statistics(self, confidence: float = 0.95) -> list[dict[str, Any]] | None:
        """One row per target in the order first seen; None when fewer than two targets answered."""
        if len(self.targets) < 2:
            return None
        return [_row(label, t, confidence) for label, t in self.targets.items()]


def _row(label: str, target: _Target, confidence: float) -> dict[str, Any]:
    row: dict[str, Any] = {"label": label, "type": target.kind}
    if target.model is not None:
        row["model"] = target.model
    row["runs"] = target.runs
    row.update(
        passed=target.counts[PASSED],
        failed=target.counts[FAILED],
        errors=target.counts[ERROR],
        interrupted=target.interrupted,
    )
    block = target.stats.statistics(confidence) or {}
    row["tasks"] = block.get("tasks", 0)
    row["pass_rate"] = block.get("pass_rate")
    row["mean_score"] = block.get("mean_score")
    row["cost_usd"] = None if target.cost is None else round(target.cost, 6)
    durations = sorted(target.durations)
    row["duration_ms"] = (
        {
            "mean": round(sum(durations) / len(durations), 3),
            "p95": round(_percentile(durations, 0.95), 3),
        }
        if durations
        else None
    )
    return row


def target_statistics(
    results: Iterable[dict[str, Any]], confidence: float = 0.95
) -> list[dict[str, Any]] | None:
    """The per-target rows of a run's records (as the store holds them), or None (fewer than two)."""
    collector = TargetStats()
    for result in results:
        collector.add(result)
    return collector.statistics(confidence)
