"""Agreement statistics against published values."""

from __future__ import annotations

import pytest

from bench.scoring import agreement as ag

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers x 12 units.
_N = None
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, _N, _N, _N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, _N, 3],
    [_N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, _N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, _N],
]
UNITS = [list(column) for column in zip(*KRIPPENDORFF_2011, strict=True)]


def test_cohen_kappa_wikipedia_worked_example() -> None:
    # Wikipedia "Cohen's kappa", worked example: 50 proposals, a=20 yes/yes, b=5, c=10, d=15.
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert ag.cohen_kappa(a, b) == pytest.approx(0.4)


def test_weighted_kappa_equals_kappa_for_two_categories_and_orders_disagreements() -> None:
    a = [True] * 20 + [True] * 5 + [False] * 10 + [False] * 15
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    assert ag.cohen_kappa(a, b, "linear") == pytest.approx(0.4)
    assert ag.cohen_kappa(a, b, "quadratic") == pytest.approx(0.4)
    # Off by one everywhere is worse unweighted than weighted.
    x, y = [1, 2, 3, 4, 1, 2, 3, 4], [2, 3, 4, 3, 1, 2, 3, 4]
    assert ag.cohen_kappa(x, y) < ag.cohen_kappa(x, y, "linear") < ag.cohen_kappa(x, y, "quadratic")


def test_weighted_kappa_measures_distance_on_the_whole_scale() -> None:
    # Levels 0..3, level 2 unused. Linear, by hand: D_o = (1 + 2 + 0) / 3 = 1; D_e = the mean
    # |a_i - b_j| over all 9 pairs = (7 + 4 + 2) / 9; kappa = 1 - 9/13. Counting only the levels
    # seen (0, 1, 3 as ranks 0, 1, 2) would make 1 -> 3 one step, not two: 1 - (2/3) / (8/9).
    a, b = [0, 1, 3], [1, 3, 3]
    assert ag.cohen_kappa(a, b, "linear", [0, 1, 2, 3]) == pytest.approx(4 / 13)
    assert ag.cohen_kappa(a, b, "linear") == pytest.approx(1 / 4)
    with pytest.raises(ValueError, match=r"^a label is not one of the categories$"):
        ag.cohen_kappa(a, b, "linear", [0, 1, 2])


def test_krippendorff_alpha_published_values() -> None:
    # The paper's values: nominal .743, ordinal .815, interval .849, ratio .797.
    assert ag.krippendorff_alpha(UNITS, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert ag.krippendorff_alpha(UNITS, "ordinal") == pytest.approx(0.815, abs=5e-4)
    assert ag.krippendorff_alpha(UNITS, "interval") == pytest.approx(0.849, abs=5e-4)
    assert ag.krippendorff_alpha(UNITS, "ratio") == pytest.approx(0.797, abs=5e-4)


def test_krippendorff_alpha_needs_a_pairable_unit() -> None:
    with pytest.raises(ValueError, match="no unit has two or more values"):
        ag.krippendorff_alpha([[1, None], [None, 2]])


def test_spearman_wikipedia_example() -> None:
    # Wikipedia "Spearman's rank correlation coefficient": IQ against hours of TV, rho = -29/165.
    iq = [106, 100, 86, 101, 99, 103, 97, 113, 112, 110]
    tv = [7, 27, 2, 50, 28, 29, 20, 12, 6, 17]
    assert ag.spearman(iq, tv) == pytest.approx(-29 / 165)


def test_spearman_ties_share_ranks() -> None:
    assert ag._ranks([10, 20, 20, 30]) == [1.0, 2.5, 2.5, 4.0]
    assert ag.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_confusion_precision_recall() -> None:
    human = [True, True, True, False, False]
    judge = [True, True, False, True, False]
    c = ag.confusion(human, judge)
    assert (c.tp, c.fp, c.fn, c.tn) == (2, 1, 1, 1)
    assert ag.pass_precision(human, judge) == pytest.approx(2 / 3)
    assert ag.pass_recall(human, judge) == pytest.approx(2 / 3)


def test_best_threshold_separates_the_humans() -> None:
    human = [False, False, True, True, True]
    scores = [0.2, 0.4, 0.6, 0.7, 0.9]
    assert ag.best_threshold(human, scores) == 0.6


def test_bootstrap_is_seeded_and_brackets_the_value() -> None:
    pairs = list(
        zip(
            [True] * 20 + [True] * 5 + [False] * 25,
            [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15,
            strict=True,
        )
    )

    def kappa(items):  # type: ignore[no-untyped-def]
        return ag.cohen_kappa([h for h, _ in items], [j for _, j in items])

    first = ag.bootstrap(pairs, kappa, seed=3)
    assert first == ag.bootstrap(pairs, kappa, seed=3)
    assert first.value == pytest.approx(0.4)
    assert first.low < 0.4 < first.high
    assert first.low > 0.1
    assert first.high < 0.7
