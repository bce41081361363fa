"""A test's verdict from its assertions' results (``src/assertions/assertionsResult.ts``).

score = Σ score·weight / Σ weight (Σ weight = 0 → 0); pass = no assertion failed; the reason is
the **last** failing assertion's (promptfoo overwrites it at each failure), else "All assertions
passed". A named metric is the weighted mean of its assertions' scores. A ``threshold`` (a
test's or an assert-set's, any number) replaces pass with score ≥ threshold and the reason with
``Aggregate score 0.33 < 0.5 threshold``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bench_formats.promptfoo.checks.base import js_string


@dataclass
class Tally:
    """Adds assertion results up as promptfoo's ``AssertionsResult`` does."""

    threshold: float | None = None
    total_score: float = 0.0
    total_weight: float = 0.0
    failed_reason: str | None = None
    named: dict[str, float] = field(default_factory=dict)
    named_weights: dict[str, float] = field(default_factory=dict)

    def add(
        self,
        passed: bool,
        score: float,
        reason: str,
        weight: float = 1.0,
        metric: str | None = None,
        named: dict[str, tuple[float, float]] | None = None,
    ) -> None:
        self.total_score += score * weight
        self.total_weight += weight
        if metric:
            self.named[metric] = self.named.get(metric, 0.0) + score * weight
            self.named_weights[metric] = self.named_weights.get(metric, 0.0) + weight
        for name, (value, value_weight) in (named or {}).items():
            if name != metric:  # a set's own metric is counted once, as the set
                self.named[name] = self.named.get(name, 0.0) + value * value_weight * weight
                self.named_weights[name] = self.named_weights.get(name, 0.0) + value_weight * weight
        if not passed:
            self.failed_reason = reason

    @property
    def score(self) -> float:
        return self.total_score / self.total_weight if self.total_weight > 0 else 0.0

    def result(self) -> tuple[bool, float, str]:
        """(pass, score, reason); a ``threshold`` replaces pass (and the reason) when set."""
        score = self.score
        passed = self.failed_reason is None
        reason = self.failed_reason or "All assertions passed"
        if self.threshold is not None:
            passed = score >= self.threshold
            relation = "≥" if passed else "<"
            reason = f"Aggregate score {_to_fixed(score)} {relation} {js_string(self.threshold)} threshold"
        return passed, score, reason

    def named_scores(self) -> dict[str, tuple[float, float]]:
        """Each metric's weighted mean, with the weight it carries into a parent."""
        return {
            name: (value / w if w > 0 else 0.0, w)
            for name, value in self.named.items()
            for w in [self.named_weights[name]]
        }


def _to_fixed(score: float) -> str:
    """JavaScript's ``score.toFixed(2)``: half up on the exact binary value (0.125 → 0.13)."""
    from decimal import ROUND_HALF_UP, Decimal

    return str(Decimal(score).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
