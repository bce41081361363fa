"""Agreement between raters (a judge and people): pure Python, seeded, deterministic.

- ``cohen_kappa``: Cohen's kappa (1960) for two raters on nominal labels; ``weights="linear"`` or
  ``"quadratic"`` gives Cohen's weighted kappa (1968) for ordered categories.
- ``krippendorff_alpha``: Krippendorff's alpha for any number of raters, missing values allowed,
  with the nominal, ordinal, interval or ratio metric ("Computing Krippendorff's
  Alpha-Reliability", 2011).
- ``spearman``: Spearman's rho, Pearson's correlation of average ranks (ties shared).
- ``confusion`` and ``precision_recall``: the 2x2 table of pass/fail and the precision and
  recall of "pass" (the humans' verdict is the truth).
- ``bootstrap``: a percentile bootstrap interval of any statistic of paired items.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from bench.scoring.stats import Interval, _percentile

T = TypeVar("T")
Metric = Literal["nominal", "ordinal", "interval", "ratio"]


def cohen_kappa(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    weights: Literal["linear", "quadratic"] | None = None,
    categories: Sequence[Hashable] | None = None,
) -> float:
    """Cohen's kappa of two raters' labels (paired by position).

    With ``weights`` the labels must be ordered (numbers, or anything sortable): disagreements
    cost their distance in rank (linear) or its square (quadratic), over ``categories`` (the
    whole scale, in order, when some of its levels may go unused; else the labels seen). 1.0 when
    both raters used one and the same category throughout (no disagreement is possible, and none
    happened).
    """
    if len(a) != len(b):
        raise ValueError("the raters labelled different numbers of items")
    if not a:
        raise ValueError("no items")
    if categories is None:
        categories = sorted(set(a) | set(b), key=_order_key)
    elif not set(a) | set(b) <= set(categories):
        raise ValueError("a label is not one of the categories")
    index = {c: i for i, c in enumerate(categories)}
    k, n = len(categories), len(a)

    def cost(i: int, j: int) -> float:
        if weights is None:
            return 0.0 if i == j else 1.0
        d = abs(i - j) / max(1, k - 1)
        return d if weights == "linear" else d * d

    observed = Counter((index[x], index[y]) for x, y in zip(a, b, strict=True))
    row = Counter(index[x] for x in a)
    col = Counter(index[y] for y in b)
    disagreement = sum(cost(i, j) * count for (i, j), count in observed.items()) / n
    expected = sum(cost(i, j) * row[i] * col[j] for i in range(k) for j in range(k)) / (n * n)
    if expected == 0:
        return 1.0 if disagreement == 0 else 0.0
    return 1.0 - disagreement / expected


def _order_key(value: Hashable) -> tuple[int, float, str]:
    if isinstance(value, bool):
        return (0, float(value), "")
    if isinstance(value, (int, float)):
        return (0, float(value), "")
    return (1, 0.0, str(value))


def krippendorff_alpha(units: Sequence[Sequence[float | None]], metric: Metric = "nominal") -> float:
    """Krippendorff's alpha of ``units``: one list per unit of each rater's value (``None``: missing).

    Units with fewer than two values are not pairable and are left out, as the paper does.
    """
    pairable = [[v for v in unit if v is not None] for unit in units]
    pairable = [values for values in pairable if len(values) >= 2]
    if not pairable:
        raise ValueError("no unit has two or more values")
    # The coincidence matrix: each ordered pair of values within a unit, weighted 1/(m_u - 1).
    coincidences: dict[tuple[float, float], float] = defaultdict(float)
    for values in pairable:
        m = len(values)
        for i, x in enumerate(values):
            for j, y in enumerate(values):
                if i != j:
                    coincidences[(x, y)] += 1 / (m - 1)
    totals: dict[float, float] = defaultdict(float)
    for (x, _y), count in coincidences.items():
        totals[x] += count
    n = sum(totals.values())
    values = sorted(totals)
    delta = _metric(metric, values, totals)
    observed = sum(count * delta(x, y) for (x, y), count in coincidences.items())
    expected = sum(totals[x] * totals[y] * delta(x, y) for x in values for y in values) / (n - 1)
    if expected == 0:
        return 1.0
    return 1.0 - observed / expected


def _metric(
    metric: Metric, values: list[float], totals: dict[float, float]
) -> Callable[[float, float], float]:
    if metric == "nominal":
        return lambda x, y: 0.0 if x == y else 1.0
    if metric == "interval":
        return lambda x, y: (x - y) ** 2
    if metric == "ratio":
        return lambda x, y: ((x - y) / (x + y)) ** 2 if x + y else 0.0
    if metric == "ordinal":
        position = {v: i for i, v in enumerate(values)}

        def ordinal(x: float, y: float) -> float:
            low, high = sorted((position[x], position[y]))
            between = sum(totals[values[g]] for g in range(low, high + 1))
            return (between - (totals[x] + totals[y]) / 2) ** 2

        return ordinal
    raise ValueError(f"unknown metric {metric!r}")


def _ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for t in range(i, j + 1):
            ranks[order[t]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rho: Pearson's correlation of the ranks (0.0 when either side is constant)."""
    if len(a) != len(b):
        raise ValueError("the raters labelled different numbers of items")
    if len(a) < 2:
        raise ValueError("need two or more items")
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    sa = math.sqrt(sum((x - ma) ** 2 for x in ra))
    sb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (sa * sb) if sa and sb else 0.0


@dataclass(frozen=True)
class Confusion:
    """Pass/fail of a judge against the humans (the truth): true/false passes and fails."""

    tp: int
    fp: int
    fn: int
    tn: int

    def as_dict(self) -> dict[str, int]:
        return {
            "both_pass": self.tp,
            "judge_only_pass": self.fp,
            "human_only_pass": self.fn,
            "both_fail": self.tn,
        }


def confusion(human: Sequence[bool], judge: Sequence[bool]) -> Confusion:
    """The 2x2 table of the judge's pass/fail against the humans'."""
    pairs = Counter(zip(human, judge, strict=True))
    return Confusion(pairs[(True, True)], pairs[(False, True)], pairs[(True, False)], pairs[(False, False)])


def pass_precision(human: Sequence[bool], judge: Sequence[bool]) -> float:
    """Of the judge's passes, the share the humans passed (0.0 when the judge passed none)."""
    c = confusion(human, judge)
    return c.tp / (c.tp + c.fp) if c.tp + c.fp else 0.0


def pass_recall(human: Sequence[bool], judge: Sequence[bool]) -> float:
    """Of the humans' passes, the share the judge passed (0.0 when the humans passed none)."""
    c = confusion(human, judge)
    return c.tp / (c.tp + c.fn) if c.tp + c.fn else 0.0


def best_threshold(human: Sequence[bool], scores: Sequence[float]) -> float:
    """The score threshold (``score >= t`` passes) whose verdicts agree most with the humans.

    Candidates are the judge's own scores; ties go to the highest kappa, then to the lowest
    threshold. Agreement is Cohen's kappa, so a threshold that passes everything is not favoured.
    """
    if not scores:
        raise ValueError("no items")
    best: tuple[float, float, float] | None = None
    for t in sorted(set(scores)):
        verdicts = [s >= t for s in scores]
        accuracy = sum(h == v for h, v in zip(human, verdicts, strict=True)) / len(scores)
        key = (cohen_kappa(list(human), verdicts), accuracy, -t)
        if best is None or key > best:
            best = key
    assert best is not None
    return -best[2]


def bootstrap(
    items: Sequence[T],
    statistic: Callable[[Sequence[T]], float],
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap interval of ``statistic`` over ``items`` resampled with replacement.

    Seeded: the same items in the same order give the same interval.
    """
    if not items:
        raise ValueError("no items")
    value = statistic(items)
    if len(items) == 1:
        return Interval(value, value, value, "bootstrap")
    rng = random.Random(seed)
    draws = sorted(statistic(rng.choices(items, k=len(items))) for _ in range(resamples))
    alpha = (1 - confidence) / 2
    return Interval(value, _percentile(draws, alpha), _percentile(draws, 1 - alpha), "bootstrap")


__all__ = [
    "Confusion",
    "best_threshold",
    "bootstrap",
    "cohen_kappa",
    "confusion",
    "krippendorff_alpha",
    "pass_precision",
    "pass_recall",
    "spearman",
]
