"""Judge several targets' responses to the same tasks against each other (pairwise or n-wise).

Independent of where the responses come from (stored runs today, several targets of one suite
later): the input is, per task, its prompt and one response per target. For each task the
ranker (a judge that implements ``rank``) is shown the responses in every order of
``bench.scoring.ranking.orderings`` (or the ranker's own ``orderings``); each ranking is mapped
back from positions to targets, the rankings become one verdict per pair of targets, and the
verdicts become standings: win rates with Wilson intervals and a Bradley-Terry ranking.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from bench.llm.client import LLMClient
from bench.llm.providers import eventloop
from bench.scoring.ranking import Outcome, Standing, borda, orderings, pair_outcomes, standings
from bench.vocabulary.errors import EvaluatorError, RunStopped


@runtime_checkable
class Ranker(Protocol):
    """A judge that ranks responses shown side by side."""

    name: str

    async def rank(self, prompt: str, shown: Sequence[str], llm: LLMClient, index: int) -> list[float]:
        """A rank per shown response (1 best; equal ranks are a tie); ``index`` numbers the order."""
        ...


@dataclass
class TaskComparison:
    """One task: the orders shown, the rankings per target, and the pair verdicts."""

    task: str
    orders: list[list[str]]
    rankings: list[dict[str, float]]
    outcomes: list[Outcome]

    def as_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "orders": self.orders,
            "rankings": self.rankings,
            "pairs": [
                {"a": o.a, "b": o.b, "winner": o.a if o.result == 1 else o.b if o.result == 0 else "tie"}
                for o in self.outcomes
            ],
        }


@dataclass
class PairwiseComparison:
    """What a pairwise or n-wise comparison reports."""

    judge: str
    targets: list[str]
    tasks: list[TaskComparison]
    standings: list[Standing]
    skipped: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "judged_by": self.judge,
            "targets": self.targets,
            "standings": [s.as_dict() for s in self.standings],
            "tasks": [t.as_dict() for t in self.tasks],
            "skipped": self.skipped,
            "warnings": self.warnings,
        }


def _orders(ranker: Ranker, size: int) -> list[tuple[int, ...]]:
    own = getattr(ranker, "orderings", None)
    return list(own(size)) if callable(own) else orderings(size)


async def compare_task(
    ranker: Ranker, task: str, prompt: str, responses: dict[str, str], llm: LLMClient
) -> TaskComparison:
    """Rank one task's responses in every order; a failed ranking fails the comparison."""
    names = list(responses)
    orders = _orders(ranker, len(names))
    jobs = [
        ranker.rank(prompt, [responses[names[k]] for k in order], llm, i) for i, order in enumerate(orders)
    ]
    answers = await asyncio.gather(*jobs, return_exceptions=True)
    rankings: list[list[float]] = []
    for answer, order in zip(answers, orders, strict=True):
        if isinstance(answer, RunStopped):
            raise answer
        if isinstance(answer, BaseException):
            raise EvaluatorError(f"task {task}: {ranker.name}: {answer}") from answer
        if len(answer) != len(order):
            raise EvaluatorError(f"task {task}: {ranker.name} ranked {len(answer)} responses of {len(order)}")
        by_target = [0.0] * len(names)
        for position, target in enumerate(order):
            by_target[target] = float(answer[position])
        rankings.append(by_target)
    return TaskComparison(
        task,
        [[names[k] for k in order] for order in orders],
        [dict(zip(names, r, strict=True)) for r in rankings],
        pair_outcomes(task, names, rankings),
    )


async def compare_responses(
    ranker: Ranker,
    targets: Sequence[str],
    tasks: dict[str, tuple[str, dict[str, str]]],
    llm: LLMClient,
    confidence: float = 0.95,
) -> PairwiseComparison:
    """Compare ``targets`` on every task answered by each; ``tasks[id] = (prompt, responses)``."""
    if len(targets) < 2:
        raise ValueError("a comparison needs at least two targets")
    judged, skipped = [], {}
    for task_id, (prompt, responses) in tasks.items():
        missing = [t for t in targets if t not in responses]
        if missing:
            skipped[task_id] = missing
            continue
        judged.append(await compare_task(ranker, task_id, prompt, {t: responses[t] for t in targets}, llm))
    outcomes = [o for t in judged for o in t.outcomes]
    rows = [[r[name] for name in targets] for t in judged for r in t.rankings]
    scores = dict(zip(targets, borda(rows, len(targets)), strict=True))
    warnings = list(getattr(ranker, "warnings", []))
    return PairwiseComparison(
        ranker.name,
        list(targets),
        judged,
        standings(outcomes, targets, scores, confidence),
        skipped,
        warnings,
    )


def compare_offline(
    ranker: Ranker,
    targets: Sequence[str],
    tasks: dict[str, tuple[str, dict[str, str]]],
    confidence: float = 0.95,
) -> PairwiseComparison:
    """``compare_responses`` outside a run: with its own LLM client (bench's cache and settings)."""
    from bench.llm.settings import LLMSettings

    llm = LLMClient(LLMSettings())
    try:
        return eventloop.run(compare_responses(ranker, targets, tasks, llm, confidence))
    finally:
        llm.close()


__all__ = [
    "PairwiseComparison",
    "Ranker",
    "TaskComparison",
    "compare_offline",
    "compare_responses",
    "compare_task",
]
