"""Ranking from comparisons: orders that debias position, verdicts per pair, win rates, Bradley-Terry.

- ``orderings``: the orders in which a comparison shows n responses: both orders for two, the n
  cyclic shifts for more, so that every response takes every position once.
- ``pair_outcomes``: a task's rankings (one per order shown) turned into one verdict per pair of
  targets: the target ranked better in more orders wins; equal counts are a tie. A judge that
  always prefers the first position therefore yields a tie, never a win.
- ``bradley_terry``: strengths p_i with P(i beats j) = p_i / (p_i + p_j), fitted by Hunter's MM
  algorithm (Hunter 2004, "MM algorithms for generalized Bradley-Terry models"); a tie counts as
  half a win for each side.
- ``standings``: per target, wins/losses/ties, the win rate with a Wilson interval, the
  Bradley-Terry strength and rank, and the mean Borda score (AgentClash's n_wise score).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.scoring.stats import Interval, wilson


def orderings(n: int) -> list[tuple[int, ...]]:
    """Every order for two responses, the cyclic shifts for more (position ``k`` shows ``order[k]``)."""
    if n < 2:
        raise ValueError("a comparison needs at least two responses")
    return [tuple((slot + shift) % n for slot in range(n)) for shift in range(n)]


@dataclass(frozen=True)
class Outcome:
    """One pair's verdict on one task: ``result`` is 1 when ``a`` wins, 0 when ``b`` wins, 0.5 a tie."""

    task: str
    a: str
    b: str
    result: float


def pair_outcomes(task: str, names: Sequence[str], rankings: Sequence[Sequence[float]]) -> list[Outcome]:
    """One verdict per pair of ``names`` from ``rankings`` (each: a rank per name, 1 best, equal = tie)."""
    out = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            margin = sum((r[j] > r[i]) - (r[j] < r[i]) for r in rankings)
            result = 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5
            out.append(Outcome(task, names[i], names[j], result))
    return out


def bradley_terry(
    outcomes: Sequence[Outcome], names: Sequence[str], iterations: int = 10_000, tolerance: float = 1e-12
) -> dict[str, float]:
    """Bradley-Terry strengths (summing to 1) by the MM algorithm; ties count half to each side.

    A target that never wins gets strength 0 (the maximum-likelihood estimate does not exist
    there; the MM iteration tends to it).
    """
    index = {name: k for k, name in enumerate(names)}
    size = len(names)
    wins = [0.0] * size
    games = [[0.0] * size for _ in range(size)]
    for o in outcomes:
        i, j = index[o.a], index[o.b]
        wins[i] += o.result
        wins[j] += 1.0 - o.result
        games[i][j] += 1.0
        games[j][i] += 1.0
    strength = [1.0 / size] * size
    for _ in range(iterations):
        updated = []
        for i in range(size):
            denominator = sum(
                games[i][j] / (strength[i] + strength[j])
                for j in range(size)
                if j != i and games[i][j] and strength[i] + strength[j] > 0
            )
            updated.append(wins[i] / denominator if denominator else strength[i])
        total = sum(updated) or 1.0
        updated = [p / total for p in updated]
        change = max(abs(p - q) for p, q in zip(updated, strength, strict=True))
        strength = updated
        if change < tolerance:
            break
    return dict(zip(names, strength, strict=True))


def borda(rankings: Sequence[Sequence[float]], size: int) -> list[float]:
    """Per target, the mean over rankings of (n - rank) / (n - 1): 1 always first, 0 always last."""
    if not rankings or size < 2:
        return [0.0] * size
    return [sum(size - r[k] for r in rankings) / (len(rankings) * (size - 1)) for k in range(size)]


@dataclass
class Standing:
    """One target's record over all tasks and opponents."""

    name: str
    wins: int
    losses: int
    ties: int
    win_rate: Interval
    strength: float
    rank: int
    borda: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rank": self.rank,
            "strength": round(self.strength, 6),
            "wins": self.wins,
            "losses": self.losses,
            "ties": self.ties,
            "win_rate": {
                k: round(v, 6) if isinstance(v, float) else v for k, v in self.win_rate.as_dict().items()
            },
            "borda": round(self.borda, 6),
        }


def standings(
    outcomes: Sequence[Outcome],
    names: Sequence[str],
    borda_scores: dict[str, float] | None = None,
    confidence: float = 0.95,
) -> list[Standing]:
    """Each target's wins, losses, ties, win rate (ties half, Wilson interval) and BT rank, best first."""
    strengths = bradley_terry(outcomes, names)
    rows = []
    for name in names:
        won = lost = tied = 0
        for o in outcomes:
            if name not in (o.a, o.b):
                continue
            mine = o.result if name == o.a else 1.0 - o.result
            won, lost, tied = won + (mine == 1.0), lost + (mine == 0.0), tied + (mine == 0.5)
        games = won + lost + tied
        rate = wilson(won + tied / 2, games, confidence) if games else Interval(0.0, 0.0, 1.0, "wilson")
        rows.append(
            Standing(name, won, lost, tied, rate, strengths[name], 0, (borda_scores or {}).get(name, 0.0))
        )
    rows.sort(key=lambda s: (-s.strength, s.name))
    for position, row in enumerate(rows):
        tied_above = position and abs(rows[position - 1].strength - row.strength) < 1e-9
        row.rank = rows[position - 1].rank if tied_above else position + 1
    return rows


__all__ = ["Outcome", "Standing", "borda", "bradley_terry", "orderings", "pair_outcomes", "standings"]
