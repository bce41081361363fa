"""The paired sign-flip (permutation) test of a mean difference, exact where it can be.

With no true change each pair's difference is as likely to be ``+d`` as ``-d``, so the ``2**n``
sign assignments of the ``n`` non-zero differences are equally likely. The two-sided p-value is
the share of them whose sum lies at least as far from zero as the observed one (Fisher 1935;
Good, "Permutation, Parametric and Bootstrap Tests of Hypotheses", 2005). Pairs that did not
change carry no sign and drop out, as in McNemar's test, which this test is for 0/1 verdicts.

How the share is counted, in order:

- equal magnitudes (verdicts, or scores that only ever moved by one step): the binomial tail;
- magnitudes that are multiples of one ``1/L`` (pass rates over repeats, scores on a scale of
  levels): the exact distribution of the sums, as the coefficients of ``prod(1 + x**m)`` held
  in one big integer;
- up to ``ENUMERATION_LIMIT`` differences otherwise: all ``2**n`` sums;
- beyond: a seeded Monte Carlo of ``draws`` sign assignments, ``(hits + 1) / (draws + 1)``
  (Phipson & Smyth 2010), which never rejects more often than ``alpha``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from bench.scoring.stats import binomial_two_sided

#: Up to this many non-zero differences of any magnitudes, every sign assignment is summed.
ENUMERATION_LIMIT = 16
#: Sign assignments drawn beyond it; the p-value's Monte Carlo error near 0.05 is about 0.002.
DRAWS = 10_000
#: The finest grid, 1/L, the exact lattice count looks for in the magnitudes.
MAX_DENOMINATOR = 1000
#: Bits the lattice count may shift and add (its cost): about a tenth of a second.
LATTICE_WORK = 2**31


@dataclass(frozen=True)
class SignFlip:
    """The mean of the paired differences ``b - a``, the test's two-sided p-value and how it was
    counted (``exact`` or ``Monte Carlo``)."""

    mean: float
    p_value: float
    method: str
    n: int


def sign_flip(a: Sequence[float], b: Sequence[float], draws: int = DRAWS, seed: int = 0) -> SignFlip:
    """Two-sided sign-flip test of the mean of ``b - a`` over pairs (deterministic: seeded)."""
    if len(a) != len(b) or not a:
        raise ValueError("need two equally long, non-empty sequences")
    diffs = [y - x for x, y in zip(a, b, strict=True)]
    mean = math.fsum(diffs) / len(diffs)
    changed = [d for d in diffs if d != 0]
    if not changed:
        return SignFlip(mean, 1.0, "exact", len(diffs))
    magnitudes = sorted(abs(d) for d in changed)
    if magnitudes[0] == magnitudes[-1]:
        down = sum(d < 0 for d in changed)
        return SignFlip(mean, binomial_two_sided(down, len(changed)), "exact", len(diffs))
    steps = _on_lattice(magnitudes)
    if steps is not None:
        up = sum(s for s, d in zip(steps, sorted(changed, key=abs), strict=True) if d > 0)
        return SignFlip(mean, _lattice_p(steps, up), "exact", len(diffs))
    observed = abs(math.fsum(changed))
    # Sums that equal the observed one in exact arithmetic may differ from it in the last bits.
    slack = 1e-9 * math.fsum(magnitudes)
    if len(magnitudes) <= ENUMERATION_LIMIT:
        (table,) = _subset_sums(magnitudes, len(magnitudes))
        total = math.fsum(magnitudes)
        hits = sum(abs(2 * s - total) >= observed - slack for s in table)
        return SignFlip(mean, hits / len(table), "exact", len(diffs))
    return SignFlip(mean, _monte_carlo(magnitudes, observed - slack, draws, seed), "Monte Carlo", len(diffs))


def _on_lattice(magnitudes: list[float]) -> list[int] | None:
    """The magnitudes as whole steps of one ``1/L`` (``L <= MAX_DENOMINATOR``), when they are
    (to float rounding) and counting them exactly stays within ``LATTICE_WORK``; else None."""
    fractions = {}
    for m in set(magnitudes):
        f = Fraction(m).limit_denominator(MAX_DENOMINATOR)
        if abs(float(f) - m) > 1e-9 * m:
            return None
        fractions[m] = f
    grid = math.lcm(*(f.denominator for f in fractions.values()))
    if grid > MAX_DENOMINATOR:
        return None
    step = {m: int(f * grid) for m, f in fractions.items()}
    steps = [step[m] for m in magnitudes]
    n = len(steps)
    if n * (sum(steps) + 1) * (n + 1) > LATTICE_WORK:
        return None
    return steps


def _lattice_p(steps: list[int], up: int) -> float:
    """Exact p-value of the signed sum ``2 * up - sum(steps)`` from whole-number magnitudes.

    The number of sign assignments whose positive steps sum to ``s`` is the coefficient of
    ``x**s`` in ``prod(1 + x**m)``; each coefficient is below ``2**(n+1)``, so one big integer with
    ``n + 1`` bits per coefficient holds the polynomial, and a product is a shift and an add.
    """
    n, total = len(steps), sum(steps)
    width = n + 1
    poly = 1
    for m in steps:
        poly += poly << (m * width)
    distance = abs(2 * up - total)
    if distance == 0:
        return 1.0
    # The distribution is symmetric about total / 2: count the lower tail and double it.
    cut = (total - distance) // 2
    low = poly & ((1 << ((cut + 1) * width)) - 1)
    # The coefficients of ``low`` add up to under 2**width - 1: their sum is ``low`` modulo it.
    count = low % ((1 << width) - 1)
    return float(Fraction(2 * count, 2**n))


def _subset_sums(magnitudes: Sequence[float], size: int) -> list[list[float]]:
    """For each chunk of ``size`` magnitudes, the sums of its subsets indexed by bit mask."""
    tables = []
    for start in range(0, len(magnitudes), size):
        table = [0.0]
        for m in magnitudes[start : start + size]:
            table += [t + m for t in table]
        tables.append(table)
    return tables


def _monte_carlo(magnitudes: list[float], threshold: float, draws: int, seed: int) -> float:
    """``(hits + 1) / (draws + 1)``: the share of seeded random sign assignments at least as far
    from zero as the observed sum (eight signs a random byte, looked up in each chunk's sums)."""
    padded = magnitudes + [0.0] * (-len(magnitudes) % 8)
    tables = _subset_sums(padded, 8)
    total = math.fsum(magnitudes)
    rng = random.Random(seed)
    size = len(tables)
    hits = 0
    for _ in range(draws):
        chosen = sum(map(list.__getitem__, tables, rng.randbytes(size)))
        hits += abs(2 * chosen - total) >= threshold
    return (hits + 1) / (draws + 1)


__all__ = ["DRAWS", "SignFlip", "sign_flip"]
