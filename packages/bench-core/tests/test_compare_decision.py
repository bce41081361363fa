"""``bench compare``'s verdict when nothing changed: simulated, it is a false alarm at most alpha."""

from __future__ import annotations

import math
import random

from bench.report.compare import decide

ALPHA = 0.05
REPLICATES = 1000
#: The simulation fails only when its false alarms are this unlikely under a true rate of ALPHA.
MONTE_CARLO_LEVEL = 0.001


def _side(rng: random.Random, ease: float, repeats: int) -> tuple[float, float]:
    """One run's pass rate and mean score on a task: each repeat a score on a five-level scale
    (four chances at ``ease``, in quarters), a pass at 0.5 or more."""
    scores = [sum(rng.random() < ease for _ in range(4)) / 4 for _ in range(repeats)]
    return sum(s >= 0.5 for s in scores) / repeats, sum(scores) / repeats


def _false_alarms(n: int, rng: random.Random) -> int:
    """Comparisons of two runs drawn from one distribution (tasks of random ease; every other
    comparison with three repeats) that ``decide`` called a regression or an improvement."""
    alarms = 0
    for replicate in range(REPLICATES):
        repeats = 3 if replicate % 2 else 1
        rate_a, rate_b, score_a, score_b = [], [], [], []
        for _ in range(n):
            ease = rng.random()
            (ra, sa), (rb, sb) = _side(rng, ease, repeats), _side(rng, ease, repeats)
            rate_a.append(ra)
            rate_b.append(rb)
            score_a.append(sa)
            score_b.append(sb)
        alarms += decide(rate_a, rate_b, repeats > 1, score_a, score_b, ALPHA).verdict is not None
    return alarms


def _upper_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    return math.fsum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def test_compare_false_alarms_stay_at_alpha_when_nothing_changed():
    # The bootstrap decision this replaces raised 11% false alarms at 7 tasks and about 7% at 20-50.
    rng = random.Random(20261128)
    rows = []
    for n in (5, 10, 20, 50, 200):
        alarms = _false_alarms(n, rng)
        rows.append((n, alarms, _upper_tail(alarms, REPLICATES, ALPHA)))
    table = "\n".join(
        f"n = {n:>3}: type-I error {alarms / REPLICATES:.3f} ({alarms}/{REPLICATES}), "
        f"P(this many or more | rate {ALPHA}) = {tail:.3g}"
        for n, alarms, tail in rows
    )
    print(f"\nbench compare, no true change, alpha {ALPHA}:\n{table}")
    assert all(tail >= MONTE_CARLO_LEVEL for _, _, tail in rows), table


# 20 tasks, 6 of them failing in B: McNemar's exact p = 2 * 0.5**6 = 0.03125.
RATE_A = [1.0] * 20
RATE_B = [0.0] * 6 + [1.0] * 14


def test_scores_that_moved_as_the_verdicts_did_are_one_test():
    decision = decide(RATE_A, RATE_B, False, RATE_A, RATE_B, ALPHA)
    assert decision.verdict == "regression"
    assert decision.rate.p_value == decision.rate.p_adjusted == 2 * 0.5**6
    assert decision.score is not None
    assert decision.score.p_value == decision.score.p_adjusted == 2 * 0.5**6


def test_verdicts_and_other_scores_are_two_tests_held_to_alpha_together():
    # The scores: 6 down by 0.5, one up by 0.5, one up by 0.25, in quarters 2,2,2,2,2,2,2,1 (15)
    # with a signed sum of -9. Of the 2**8 sign assignments, |2P - 15| >= 9 where P, the positive
    # quarters, is at most 3 (1 + 1 + 7 + 7 ways) or, as many, at least 12: 32 / 256 = 0.125.
    score_a = [0.5] * 20
    score_b = [0.0] * 6 + [1.0, 0.75] + [0.5] * 12
    decision = decide(RATE_A, RATE_B, False, score_a, score_b, ALPHA)
    assert decision.score is not None
    assert (decision.rate.p_value, decision.score.p_value) == (2 * 0.5**6, 0.125)
    # Holm: the smaller p-value doubled (0.0625), the larger once and no smaller than that.
    assert (decision.rate.p_adjusted, decision.score.p_adjusted) == (0.0625, 0.125)
    assert decision.verdict is None  # McNemar alone (0.03125) would have said regression
