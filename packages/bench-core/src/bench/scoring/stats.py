"""Small, exact statistics for evaluation results (no numpy or scipy needed).

- ``wilson``: the Wilson score interval for a proportion (Wilson 1927; Newcombe 1998).
- ``pass_at_k``: the unbiased estimator of Chen et al. (2021), ``1 - C(n-c, k) / C(n, k)``.
- ``pass_hat_k``: the probability that k draws without replacement all pass, ``C(c, k) / C(n, k)``
  (τ-bench's pass^k); with k = n it is "every repeat passed".
- ``bootstrap_ci``: a percentile bootstrap interval for a mean (optionally of cluster means).
- ``mcnemar``: McNemar's test on the discordant pairs of a paired 2x2 table, with the exact
  two-sided binomial p-value (to float precision, linear in the pairs) and the chi-square statistic.
- ``paired_bootstrap``: a percentile interval and p-value for a mean paired difference.
- ``mcnemar_sample_size``: pairs needed to detect a difference in rates (Connor 1987).
- ``holm``: Holm's (1979) step-down adjustment of several tests' p-values.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

Z = NormalDist()


def z_value(confidence: float) -> float:
    """The two-sided normal quantile for a confidence level (1.959964 for 0.95)."""
    return Z.inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True)
class Interval:
    """An estimate and its confidence interval."""

    value: float
    low: float
    high: float
    method: str

    def as_dict(self) -> dict[str, float | str]:
        return {"value": self.value, "low": self.low, "high": self.high, "method": self.method}


def wilson(successes: float, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for ``successes`` out of ``n`` (a tie may count as half a success)."""
    if n <= 0:
        raise ValueError("n must be positive")
    if not 0 <= successes <= n:
        raise ValueError("successes must be between 0 and n")
    z = z_value(confidence)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half), "wilson")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al.'s unbiased pass@k from ``n`` samples of which ``c`` passed."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError("need 0 <= c <= n and 1 <= k <= n")
    if n - c < k:
        return 1.0
    return 1.0 - float(Fraction(math.comb(n - c, k), math.comb(n, k)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: the chance that k of the n samples, drawn without replacement, all passed."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError("need 0 <= c <= n and 1 <= k <= n")
    return float(Fraction(math.comb(c, k), math.comb(n, k)))


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    position = (len(sorted_values) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


#: Above this many values the bootstrap's own limit, the normal interval, is used instead:
#: resampling 10,000 values 2,000 times would cost seconds for a difference in the third decimal.
BOOTSTRAP_LIMIT = 1000


def normal_ci(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Mean plus or minus z standard errors (the large-sample interval)."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = z_value(confidence) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, "normal (large sample)")


def bootstrap_ci(
    values: Sequence[float], confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> Interval:
    """Percentile bootstrap interval for the mean of ``values`` (each value one cluster).

    The interval depends on the values only, not on their order (tasks finish in any order).
    """
    if not values:
        raise ValueError("no values")
    values = sorted(values)
    mean = sum(values) / len(values)
    if len(values) == 1:
        return Interval(mean, mean, mean, "bootstrap")
    if len(values) > BOOTSTRAP_LIMIT:
        return normal_ci(values, confidence)
    means = sorted(resampled_means(values, resamples, seed))
    alpha = (1 - confidence) / 2
    return Interval(mean, _percentile(means, alpha), _percentile(means, 1 - alpha), "bootstrap")


def resampled_means(values: Sequence[float], resamples: int, seed: int) -> list[float]:
    """The means of ``resamples`` resamples of sorted ``values``, each drawn as
    ``random.Random(seed).choices(values, k=len(values))`` draws it, in that order."""
    n = len(values)
    counted = _counted_means(values, resamples, seed)
    if counted is not None:
        return counted
    rng = random.Random(seed)
    return [sum(rng.choices(values, k=n)) / n for _ in range(resamples)]


#: Scores that are multiples of 2**-_DYADIC_BITS (pass/fail, halves, quarters...) sum exactly in
#: any order, so a resample's sum follows from how many draws fell on each value.
_DYADIC_BITS = 20
_CHUNK = 1 << 16  # draws generated at once (512 KiB of random words)


def _counted_means(values: Sequence[float], resamples: int, seed: int) -> list[float] | None:
    """``resampled_means`` without a Python step per draw, or None where it cannot be exact.

    ``choices`` takes the index ``floor(random() * n)``; ``random()`` is ``M / 2**53`` with ``M``
    made of two 32-bit words of the generator (27 and 26 bits). The index is at least ``s``
    exactly when ``M`` reaches a threshold found once per run of equal values, which the top two
    bytes of the first word decide for all but one draw in 65,536, whole columns at a time.
    ``getrandbits`` hands out the same words in the same order, so every draw, and the
    generator's state, is that of ``choices``.
    """
    n = len(values)
    scaled = [float(v) * (1 << _DYADIC_BITS) for v in values]
    if not all(math.isfinite(x) and x.is_integer() for x in scaled) or any(
        type(v) is not float and v != float(v) for v in values
    ):
        return None
    units = [int(x) for x in scaled]
    if n * max(abs(u) for u in units) >= 1 << 53:  # partial sums must stay exact
        return None
    nf = float(n)
    starts = [i for i in range(1, n) if units[i] != units[i - 1]]
    if _at_least(n, nf) < 1 << 53:  # an index past the end: leave that to ``choices``
        return None
    if not starts:  # one value: every resample's mean is the same, whatever the draws
        return [units[0] * n / (1 << _DYADIC_BITS) / n] * resamples
    thresholds = [_at_least(s, nf) for s in starts]
    rng = random.Random(seed)
    means: list[float] = []
    per_chunk = max(1, _CHUNK // n)
    while len(means) < resamples:
        count = min(per_chunk, resamples - len(means))
        size = n * count
        words = rng.getrandbits(64 * size).to_bytes(8 * size, "little")
        first, second = words[3::8], words[2::8]  # the top two bytes of each draw's first word
        above = []
        for threshold in thresholds:
            top, next_byte = threshold >> 45, (threshold >> 37) & 0xFF
            level = _marks(first, top)
            over = _marks(first, top, over=True) | level & _marks(second, next_byte, over=True)
            marked = over.to_bytes(size, "little")
            row = [marked.count(1, r * n, (r + 1) * n) for r in range(count)]
            ties = (level & _marks(second, next_byte)).to_bytes(size, "little")
            tie = ties.find(1)
            while tie >= 0:  # the top 16 bits equal the threshold's: compare the whole M
                a = int.from_bytes(words[8 * tie : 8 * tie + 4], "little") >> 5
                b = int.from_bytes(words[8 * tie + 4 : 8 * tie + 8], "little") >> 6
                if (a << 26) + b >= threshold:
                    row[tie // n] += 1
                tie = ties.find(1, tie + 1)
            above.append(row)
        for r in range(count):
            total = units[0] * n
            for j, start in enumerate(starts):
                total += (units[start] - units[start - 1]) * above[j][r]
            means.append(total / (1 << _DYADIC_BITS) / n)
    return means


def _marks(column: bytes, value: int, over: bool = False) -> int:
    """A byte 1 where ``column``'s byte is ``value`` (or above it), else 0, as one integer: the
    bitwise operators then combine whole columns at C speed."""
    if over:
        table = bytes(value + 1) + b"\x01" * (255 - value)
    else:
        table = bytes(value) + b"\x01" + bytes(255 - value)
    return int.from_bytes(column.translate(table), "little")


def _at_least(index: int, nf: float) -> int:
    """The least ``M`` whose draw ``floor(M / 2**53 * nf)`` is ``index`` or more (2**53: none)."""
    low, high = 0, 1 << 53
    while low < high:
        middle = (low + high) // 2
        if middle * (1.0 / 9007199254740992.0) * nf >= index:
            high = middle
        else:
            low = middle + 1
    return low


@dataclass(frozen=True)
class McNemar:
    """McNemar's test: ``b`` pairs passed only in A, ``c`` only in B."""

    b: int
    c: int
    statistic: float
    p_value: float

    @property
    def discordant(self) -> int:
        return self.b + self.c


def binomial_two_sided(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair trials (doubling the smaller tail).

    The tail ``sum(C(n, i) for i <= t) / 2**n`` is one exact ``C(n, t) / 2**n`` times the float
    sum of the term ratios ``C(n, i) / C(n, t)`` (each from the last by ``i / (n - i + 1)``):
    linear in ``t`` where a big-integer ``math.comb`` per term was quadratic (20 s at 20,000
    discordant pairs), and within ``t`` rounding errors of the exact sum (1e-12 at 20,000).
    """
    if n == 0:
        return 1.0
    tail = min(k, n - k)
    if 2 * tail + 1 >= n:
        return 1.0  # the smaller tail holds half the mass or more
    ratios = [1.0]
    for i in range(tail, 0, -1):
        ratio = ratios[-1] * i / (n - i + 1)
        if ratio == 0.0:
            break  # the rest are smaller still: nothing a float sum could hold
        ratios.append(ratio)
    top = float(Fraction(math.comb(n, tail), 2**n))
    return min(1.0, 2 * top * math.fsum(ratios))


def mcnemar(b: int, c: int) -> McNemar:
    """McNemar's test on the discordant counts; the p-value is the exact binomial one."""
    discordant = b + c
    statistic = (b - c) ** 2 / discordant if discordant else 0.0
    return McNemar(b, c, statistic, binomial_two_sided(min(b, c), discordant))


def min_p_value(discordant: int) -> float:
    """The smallest p-value McNemar's exact test can give with this many discordant pairs."""
    return binomial_two_sided(0, discordant) if discordant else 1.0


@dataclass(frozen=True)
class PairedDifference:
    """Mean of B - A over pairs, its interval and a two-sided bootstrap p-value."""

    mean: float
    low: float
    high: float
    p_value: float
    n: int


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], confidence: float = 0.95, resamples: int = 4000, seed: int = 0
) -> PairedDifference:
    """Percentile bootstrap of the mean paired difference ``b - a``; the p-value is the
    share of resampled means on the other side of zero, doubled (capped at 1)."""
    if len(a) != len(b) or not a:
        raise ValueError("need two equally long, non-empty sequences")
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / len(diffs)
    if len(diffs) == 1 or all(d == diffs[0] for d in diffs):
        p = 1.0 if mean == 0 else 0.0
        return PairedDifference(mean, mean, mean, p, len(diffs))
    if len(diffs) > BOOTSTRAP_LIMIT:
        interval = normal_ci(diffs, confidence)
        se = (interval.high - interval.low) / (2 * z_value(confidence))
        p = 2 * (1 - Z.cdf(abs(mean) / se)) if se else (1.0 if mean == 0 else 0.0)
        return PairedDifference(mean, interval.low, interval.high, p, len(diffs))
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(resamples))
    alpha = (1 - confidence) / 2
    below = sum(m <= 0 for m in means) / resamples
    above = sum(m >= 0 for m in means) / resamples
    p = min(1.0, 2 * min(below, above))
    return PairedDifference(mean, _percentile(means, alpha), _percentile(means, 1 - alpha), p, n)


def mcnemar_sample_size(
    discordant_rate: float, difference: float, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Pairs needed for McNemar's test to detect ``difference`` in pass rates (Connor 1987).

    ``discordant_rate`` is the expected share of pairs that disagree (at least ``|difference|``).
    """
    delta = abs(difference)
    if delta == 0:
        raise ValueError("difference must be non-zero")
    psi = max(discordant_rate, delta)
    z_a, z_b = z_value(1 - alpha), Z.inv_cdf(power)
    n = (z_a * math.sqrt(psi) + z_b * math.sqrt(psi - delta * delta)) ** 2 / (delta * delta)
    return math.ceil(n)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: the i-th smallest of m is multiplied
    by ``m - i`` (from i = 0), and none is smaller than the one before it. Rejecting those below
    ``alpha`` keeps the chance of any false rejection at ``alpha`` however the tests depend."""
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def variance(values: Sequence[float]) -> float:
    """Sample variance (n - 1 in the denominator); 0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)
