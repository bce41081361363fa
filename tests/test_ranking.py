"""bench.scoring.ranking: orders that debias position, pair verdicts, Bradley-Terry, standings."""

from __future__ import annotations

import math

import pytest

from bench.scoring.ranking import Outcome, bradley_terry, orderings, pair_outcomes, standings


def _games(wins: dict[str, dict[str, int]]) -> list[Outcome]:
    return [Outcome("t", a, b, 1.0) for a, row in wins.items() for b, n in row.items() for _ in range(n)]


def test_two_players_with_wins_3_to_1_have_strengths_3_to_1():
    strengths = bradley_terry(_games({"a": {"b": 3}, "b": {"a": 1}}), ["a", "b"])
    assert strengths["a"] / strengths["b"] == pytest.approx(3.0)
    assert sum(strengths.values()) == pytest.approx(1.0)


def test_bradley_terry_matches_wikipedias_worked_example():
    # Wikipedia, "Bradley-Terry model", worked example: four teams, wins of row over column; the
    # article's maximum-likelihood strengths, scaled to geometric mean 1: 0.640, 1.043, 0.660, 2.270.
    wins = {
        "A": {"B": 2, "C": 0, "D": 1},
        "B": {"A": 3, "C": 5, "D": 0},
        "C": {"A": 0, "B": 3, "D": 1},
        "D": {"A": 4, "B": 0, "C": 3},
    }
    strengths = bradley_terry(_games(wins), list("ABCD"))
    mean = math.exp(sum(math.log(p) for p in strengths.values()) / 4)
    scaled = [round(strengths[t] / mean, 3) for t in "ABCD"]
    assert scaled == [0.640, 1.043, 0.660, 2.270]


def test_a_tie_counts_half_a_win_to_each_side():
    strengths = bradley_terry([Outcome("t", "a", "b", 0.5)] * 4, ["a", "b"])
    assert strengths == {"a": pytest.approx(0.5), "b": pytest.approx(0.5)}


def test_orderings_are_every_order_for_two_and_the_cyclic_shifts_for_more():
    assert orderings(2) == [(0, 1), (1, 0)]
    assert orderings(3) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    for order in orderings(4):
        assert sorted(order) == [0, 1, 2, 3]
    # every response takes every position exactly once
    assert all(sorted(o[k] for o in orderings(4)) == [0, 1, 2, 3] for k in range(4))
    with pytest.raises(ValueError, match="a comparison needs at least two responses"):
        orderings(1)


def test_pair_outcomes_need_a_majority_of_orders_and_tie_otherwise():
    # ranks per target (x, y): x better in the first order, y better in the second: a tie
    assert pair_outcomes("t", ["x", "y"], [[1, 2], [2, 1]]) == [Outcome("t", "x", "y", 0.5)]
    assert pair_outcomes("t", ["x", "y"], [[1, 2], [1, 1]]) == [Outcome("t", "x", "y", 1.0)]
    assert pair_outcomes("t", ["x", "y"], [[2, 1], [2, 1]]) == [Outcome("t", "x", "y", 0.0)]


def test_standings_give_win_rates_with_wilson_intervals_and_ranks():
    outcomes = [Outcome("1", "x", "y", 1.0), Outcome("2", "x", "y", 1.0), Outcome("3", "x", "y", 0.5)]
    first, second = standings(outcomes, ["y", "x"])
    assert (first.name, first.rank, first.wins, first.losses, first.ties) == ("x", 1, 2, 0, 1)
    assert first.win_rate.value == pytest.approx(2.5 / 3)
    # Wilson score interval for 2.5 of 3 at 95% (z = 1.959964)
    z = 1.959963984540054
    p, n = 2.5 / 3, 3
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert (first.win_rate.low, first.win_rate.high) == (
        pytest.approx(centre - half),
        pytest.approx(centre + half),
    )
    assert second.rank == 2
    assert second.win_rate.value == pytest.approx(0.5 / 3)
    assert first.strength / second.strength == pytest.approx(5.0)  # 2.5 wins to 0.5
