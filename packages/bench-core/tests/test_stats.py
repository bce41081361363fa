"""Statistics checked against published values, not against bench's own output."""

from __future__ import annotations

import math
import random
import statistics
from fractions import Fraction

import pytest

from bench.scoring import stats
from bench.scoring.sign_flip import sign_flip
from bench.scoring.stats import (
    binomial_two_sided,
    bootstrap_ci,
    holm,
    mcnemar,
    mcnemar_sample_size,
    min_p_value,
    paired_bootstrap,
    pass_at_k,
    pass_hat_k,
    wilson,
)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
        # Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score, no correction).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (29, 29, 0.8830, 1.0),
    ],
)
def test_wilson_matches_newcombe_1998(successes, n, low, high):
    interval = wilson(successes, n)
    assert interval.low == pytest.approx(low, abs=5e-5)
    assert interval.high == pytest.approx(high, abs=5e-5)
    assert interval.value == successes / n


def test_mcnemar_on_agresti_presidential_approval_table():
    # Agresti, Categorical Data Analysis (2nd ed.), Table 10.1: approve/disapprove in two
    # surveys of the same 1,600 people: 794 and 570 agree, 150 and 86 changed. z^2 = 17.36.
    result = mcnemar(150, 86)
    assert result.statistic == pytest.approx(17.36, abs=0.005)
    assert result.p_value < 0.001
    assert result.discordant == 236


def test_exact_binomial_p_values():
    assert binomial_two_sided(0, 5) == pytest.approx(2 / 32)  # 0.0625: 5 discordant pairs cannot reach 0.05
    assert binomial_two_sided(1, 10) == pytest.approx(2 * 11 / 1024)
    assert binomial_two_sided(5, 10) == 1.0
    assert min_p_value(5) > 0.05 > min_p_value(6)


def exact_two_sided(k: int, n: int) -> float:
    """The reference: the smaller tail summed in big integers, ``C(n, i + 1) = C(n, i) (n - i) / (i + 1)``."""
    term, total = 1, 1
    for i in range(min(k, n - k)):
        term = term * (n - i) // (i + 1)
        total += term
    return min(1.0, float(Fraction(2 * total, 2**n)))


SIZES = [1, 2, 3, 10, 11, 50, 236, 999, 1000, 2500, 5001, 20000]


@pytest.mark.parametrize("n", SIZES)
def test_binomial_p_values_match_the_big_integer_sum(n):
    spread = math.isqrt(n)
    ks = {0, 1, 2, n // 4, n // 2 - 3 * spread, n // 2 - spread, n // 2 - 1, n // 2, n // 2 + 1, n - 1, n}
    for k in sorted(k for k in ks if 0 <= k <= n):
        exact = exact_two_sided(k, n)
        # Below 1e-300 both are 0 or subnormal, where a float has no 9 significant digits to compare.
        assert binomial_two_sided(k, n) == pytest.approx(exact, rel=1e-9, abs=1e-300), (k, n)


def test_binomial_p_values_at_20000_pairs_are_not_all_extremes():
    # The comparison above is only worth something if the large cases are neither 0 nor 1.
    values = [exact_two_sided(k, 20000) for k in (9700, 9850, 9950)]
    assert all(1e-6 < v < 1 for v in values)
    assert [binomial_two_sided(k, 20000) for k in (9700, 9850, 9950)] == pytest.approx(values, rel=1e-9)


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (10, 3, 1, 0.3),  # pass@1 is the pass rate
        (5, 2, 2, 1 - 3 / 10),  # 1 - C(3,2)/C(5,2)
        (10, 0, 5, 0.0),
        (10, 1, 10, 1.0),
        (4, 2, 3, 1.0),  # fewer failures than k: some passing sample is always drawn
    ],
)
def test_pass_at_k_is_chen_et_al_unbiased_estimator(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected)
    # Chen et al.'s numerically stable form: 1 - prod_{i=n-c+1}^{n} (1 - k/i)
    stable = 1.0 if n - c < k else 1 - math.prod(1 - k / i for i in range(n - c + 1, n + 1))
    assert pass_at_k(n, c, k) == pytest.approx(stable)


def test_pass_at_k_is_not_the_naive_formula():
    # 1-(1-p)^k would give 1 - 0.7^2 = 0.51 for 3 of 10; the unbiased estimate is 1 - C(7,2)/C(10,2).
    assert pass_at_k(10, 3, 2) == pytest.approx(1 - 21 / 45)
    assert pass_at_k(10, 3, 2) != pytest.approx(1 - 0.7**2)


def test_pass_hat_k():
    assert pass_hat_k(5, 5, 5) == 1.0  # every repeat passed
    assert pass_hat_k(5, 4, 5) == 0.0
    assert pass_hat_k(5, 4, 2) == pytest.approx(6 / 10)  # C(4,2)/C(5,2)


def test_bootstrap_interval_agrees_with_the_normal_interval_on_a_large_sample():
    values = [((i * 37) % 101) / 100 for i in range(400)]
    interval = bootstrap_ci(values, resamples=4000, seed=1)
    mean = statistics.fmean(values)
    half = 1.959964 * statistics.stdev(values) / math.sqrt(len(values))
    assert interval.value == pytest.approx(mean)
    assert interval.low == pytest.approx(mean - half, abs=0.01)
    assert interval.high == pytest.approx(mean + half, abs=0.01)


def test_bootstrap_of_constant_values_has_no_width():
    interval = bootstrap_ci([0.5] * 10)
    assert (interval.low, interval.high) == (0.5, 0.5)


def test_paired_bootstrap_finds_a_consistent_shift_and_not_noise():
    a = [0.5 + 0.01 * (i % 7) for i in range(60)]
    shifted = paired_bootstrap(a, [x - 0.1 for x in a])
    assert shifted.mean == pytest.approx(-0.1)
    assert shifted.p_value == 0.0
    noise = paired_bootstrap(a, [x + (0.05 if i % 2 else -0.05) for i, x in enumerate(a)])
    assert noise.low < 0 < noise.high
    assert noise.p_value > 0.5


def test_mcnemar_sample_size_by_connors_formula():
    # Connor (1987), Biometrics 43:207-211: n = (z_a sqrt(psi) + z_b sqrt(psi - d^2))^2 / d^2.
    # psi = 0.2, d = 0.1, alpha 0.05, power 0.8: (1.95996*0.44721 + 0.84162*0.43589)^2 / 0.01 = 154.6
    assert mcnemar_sample_size(0.2, 0.1) == 155
    assert mcnemar_sample_size(0.2, -0.1) == 155


def test_large_samples_use_the_normal_interval_the_bootstrap_converges_to():
    values = [((i * 37) % 101) / 100 for i in range(5000)]
    interval = bootstrap_ci(values)
    mean = statistics.fmean(values)
    half = 1.959964 * statistics.stdev(values) / math.sqrt(len(values))
    assert interval.method == "normal (large sample)"
    assert (interval.low, interval.high) == (pytest.approx(mean - half), pytest.approx(mean + half))
    shifted = paired_bootstrap(
        values, [v - 0.01 + (0.001 if i % 2 else -0.001) for i, v in enumerate(values)]
    )
    assert shifted.mean == pytest.approx(-0.01)
    assert shifted.p_value < 1e-6


def test_statistics_do_not_depend_on_the_order_tasks_finished_in():
    from bench.scoring.run_stats import run_statistics

    rows = [
        {
            "id": f"t{i}",
            "repeat": r,
            "status": "passed" if (i + r) % 3 else "failed",
            "passed": bool((i + r) % 3),
        }
        for i in range(12)
        for r in range(2)
    ]
    for row in rows:
        row["score"] = 1.0 if row["passed"] else 0.25 * (int(row["id"][1:]) % 3)
    forward, backward = run_statistics(rows), run_statistics(list(reversed(rows)))
    assert forward == backward
    assert list(forward["per_task"]) == sorted(forward["per_task"])
    values = [0.1, 0.9, 0.4, 0.4, 1.0, 0.0, 0.7]
    assert bootstrap_ci(values) == bootstrap_ci(sorted(values, reverse=True))


def test_holm_matches_the_worked_example():
    # Holm-Bonferroni method (Wikipedia's example; R's p.adjust(..., "holm") gives the same):
    # 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 stays at the 0.06 before it.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.2]) == [0.2]
    assert holm([0.6, 0.7]) == [1.0, 1.0]


def sign_flip_by_definition(diffs: list[float]) -> float:
    """Every one of the 2**n sign assignments of the non-zero differences, counted."""
    changed = [abs(d) for d in diffs if d]
    observed = abs(sum(diffs))
    far = sum(
        abs(sum(m if signs >> i & 1 else -m for i, m in enumerate(changed))) >= observed - 1e-9
        for signs in range(2 ** len(changed))
    )
    return far / 2 ** len(changed)


@pytest.mark.parametrize(
    "levels",
    [
        [0.0, 1.0],  # verdicts: McNemar
        [0.0, 0.25, 0.5, 0.75, 1.0],  # a five-level scale: the lattice count
        [0.0, 1 / 3, 2 / 3, 1.0],  # pass rates over three repeats, in floats
        None,  # any scores: every assignment, or above 16 the Monte Carlo
    ],
)
def test_sign_flip_counts_what_its_definition_counts(levels):
    rng = random.Random(7)
    for n in (1, 2, 5, 9, 12):
        for _ in range(20):
            draw = (lambda: rng.choice(levels)) if levels else rng.random
            a, b = [draw() for _ in range(n)], [draw() for _ in range(n)]
            result = sign_flip(a, b)
            expected = sign_flip_by_definition([y - x for x, y in zip(a, b, strict=True)])
            assert result.p_value == pytest.approx(expected, abs=1e-12), (a, b)
            assert result.method == "exact"


def test_sign_flip_of_verdicts_is_mcnemars_exact_test():
    a = [1.0] * 30 + [0.0] * 20
    b = [0.0] * 9 + [1.0] * 21 + [1.0] * 3 + [0.0] * 17
    assert sign_flip(a, b).p_value == mcnemar(9, 3).p_value == pytest.approx(2 * 299 / 4096)


def test_sign_flip_on_a_scale_counts_exactly_at_any_size():
    rng = random.Random(3)
    a = [rng.choice([0, 1, 2, 3, 4]) / 4 for _ in range(300)]
    b = [min(1.0, x + rng.choice([-0.25, 0, 0.25, 0.5])) for x in a]
    steps = [round(4 * (y - x)) for x, y in zip(a, b, strict=True) if y != x]
    # The reference: the distribution of the signed sum, one difference at a time, in integers.
    counts = {0: 1}
    for s in steps:
        nxt: dict[int, int] = {}
        for total, ways in counts.items():
            for signed in (abs(s), -abs(s)):
                nxt[total + signed] = nxt.get(total + signed, 0) + ways
        counts = nxt
    observed = abs(sum(steps))
    expected = Fraction(sum(w for t, w in counts.items() if abs(t) >= observed), 2 ** len(steps))
    result = sign_flip(a, b)
    assert result.method == "exact"
    assert result.p_value == pytest.approx(float(expected), rel=1e-12)
    assert result.p_value < 1e-4  # deep in the tail, where a rounding error would show


def test_sign_flip_monte_carlo_is_seeded_and_near_the_exact_p_value(monkeypatch):
    from bench.scoring import sign_flip as module

    rng = random.Random(11)
    a = [rng.random() for _ in range(14)]
    b = [x + rng.gauss(0.1, 0.3) for x in a]
    exact = sign_flip(a, b)
    monkeypatch.setattr(module, "ENUMERATION_LIMIT", 0)
    drawn = sign_flip(a, b)
    assert drawn == sign_flip(a, b)  # the same draws every time
    assert (exact.method, drawn.method) == ("exact", "Monte Carlo")
    # 10,000 draws: the standard error of a p-value near 0.03 is under 0.002.
    assert drawn.p_value == pytest.approx(exact.p_value, abs=0.006)
    assert 0.005 < exact.p_value < 0.1


def _means_as_choices_draws_them(values: list[float], resamples: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [sum(rng.choices(values, k=len(values))) / len(values) for _ in range(resamples)]


_POOLS = [
    [0, 1],
    [0.0, 0.5, 1.0],
    [0, 0.25, 0.5, 0.75, 1],
    [-2.5, 0, 7.125],
    [1e6, 3.0],
    [0, 1.0, True],
    [1],
    [0.75],
]


@pytest.mark.every_python
@pytest.mark.parametrize("n", [2, 3, 50, 999, 1000])
@pytest.mark.parametrize("pool", _POOLS, ids=str)
def test_counted_resamples_are_the_means_choices_draws(n: int, pool: list[float]) -> None:
    """Dyadic scores (pass/fail, halves...) are resampled by counting draws per value, with the
    very draws, sums and means of ``random.choices`` (the intervals stay as they were)."""
    values = sorted(random.Random(n).choice(pool) for _ in range(n))
    for seed in (0, 12345):
        counted = stats._counted_means(values, 300, seed)
        assert counted == _means_as_choices_draws_them(values, 300, seed)
        assert [type(m) for m in counted] == [float] * 300


def test_scores_that_are_not_dyadic_are_resampled_draw_by_draw() -> None:
    values = sorted([0.1, 1 / 3, 0.5, 0.9] * 5)
    assert stats._counted_means(values, 10, 0) is None
    assert stats.resampled_means(values, 50, 3) == _means_as_choices_draws_them(values, 50, 3)
