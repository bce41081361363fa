"""Calibrating judges against human labels: each judge evaluator of a suite run on the labelled
responses through the normal evaluation path (so the LLM cache is reused), then compared with the
people: kappa, confusion matrix, precision/recall of "pass", the best score threshold, Spearman's
rho and, when the people's scores are graded, weighted kappa and Krippendorff's alpha on their
scale, each with a seeded bootstrap interval, the disagreements, and the raters' own agreement
as the ceiling.
"""

from __future__ import annotations

import asyncio
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from bench.evaluator import Sample
from bench.execution.evaluation import evaluate
from bench.llm.client import LLMClient
from bench.llm.judge import Judge
from bench.scoring import agreement as ag
from bench.scoring.labels import Label
from bench.scoring.stats import Interval
from bench.suite.plan import BoundEvaluator, Plan
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.models import Response
from bench.vocabulary.store import read_run


@dataclass
class Item:
    """One labelled task as both sides saw it."""

    task: str
    human: bool
    judge: bool
    score: float | None
    human_score: float | None
    note: str
    reason: str


@dataclass
class JudgeCalibration:
    """How far one judge agrees with the humans."""

    judge: str
    items: list[Item]
    errors: dict[str, str] = field(default_factory=dict)
    ceiling: float | None = None
    #: The people's scale, when their scores are graded (``human_scale``).
    scale: list[float] = field(default_factory=list)

    def kappa(self) -> Interval:
        return ag.bootstrap(self.items, _kappa)

    def as_dict(self) -> dict[str, Any]:
        items = self.items
        out: dict[str, Any] = {"judge": self.judge, "labelled": len(items)}
        if items:
            out["kappa"] = self.kappa().as_dict()
            out["confusion"] = ag.confusion([i.human for i in items], [i.judge for i in items]).as_dict()
            out["pass_precision"] = ag.bootstrap(items, _precision).as_dict()
            out["pass_recall"] = ag.bootstrap(items, _recall).as_dict()
            scored = [i for i in items if i.score is not None]
            if scored:
                out["threshold"] = ag.bootstrap(scored, _threshold).as_dict()
            both = [i for i in scored if i.human_score is not None]
            if len(both) >= 2:
                out["spearman"] = ag.bootstrap(both, _spearman).as_dict()
            if len(both) >= 2 and self.scale:
                out["graded"] = graded(both, self.scale)
        if self.ceiling is not None:
            out["inter_rater_alpha"] = self.ceiling
        out["disagreements"] = [
            {
                "task": i.task,
                "human": i.human,
                "judge": i.judge,
                "human_note": i.note,
                "judge_reason": i.reason,
            }
            for i in items
            if i.human != i.judge
        ]
        if self.errors:
            out["errors"] = self.errors
        return out


def _kappa(items: Sequence[Item]) -> float:
    return ag.cohen_kappa([i.human for i in items], [i.judge for i in items])


def _precision(items: Sequence[Item]) -> float:
    return ag.pass_precision([i.human for i in items], [i.judge for i in items])


def _recall(items: Sequence[Item]) -> float:
    return ag.pass_recall([i.human for i in items], [i.judge for i in items])


def _threshold(items: Sequence[Item]) -> float:
    return ag.best_threshold([i.human for i in items], [i.score or 0.0 for i in items])


def _spearman(items: Sequence[Item]) -> float:
    return ag.spearman([i.human_score or 0.0 for i in items], [i.score or 0.0 for i in items])


#: The finest step a scale of the people's scores is read in (0.01).
MAX_STEPS = 100


def human_scale(scores: Iterable[float]) -> list[float]:
    """The people's scale when their scores are graded (more than two distinct), else empty:
    0 to 1 in the step every score is a whole multiple of (quarters for 0, .25, .5, .75 and 1;
    ninths for ``bench label``'s digits), so that a level nobody used still counts in a
    distance, or, when there is no such step of 0.01 or more, the distinct scores."""
    distinct = sorted(set(scores))
    if len(distinct) <= 2:
        return []
    fractions = [Fraction(s).limit_denominator(MAX_STEPS) for s in distinct]
    steps = math.lcm(*(f.denominator for f in fractions))
    on_grid = all(math.isclose(float(f), s, abs_tol=1e-9) for f, s in zip(fractions, distinct, strict=True))
    return [k / steps for k in range(steps + 1)] if on_grid and steps <= MAX_STEPS else distinct


def nearest(value: float, scale: Sequence[float]) -> float:
    """The level of ``scale`` closest to ``value`` (the lower one of two as close)."""
    return min(scale, key=lambda level: (abs(level - value), level))


def graded(items: Sequence[Item], scale: list[float]) -> dict[str, Any]:
    """Agreement of the judge's scores with the people's on the people's ordered scale (each
    score at its nearest level): weighted Cohen's kappa, linear and quadratic, and
    Krippendorff's alpha, ordinal and interval, each with its bootstrap interval."""

    def pairs(chosen: Sequence[Item]) -> tuple[list[float], list[float]]:
        human = [nearest(i.human_score or 0.0, scale) for i in chosen]
        return human, [nearest(i.score or 0.0, scale) for i in chosen]

    def kappa(weights: Literal["linear", "quadratic"]) -> Callable[[Sequence[Item]], float]:
        return lambda chosen: ag.cohen_kappa(*pairs(chosen), weights, scale)

    def alpha(metric: ag.Metric) -> Callable[[Sequence[Item]], float]:
        return lambda chosen: ag.krippendorff_alpha(
            [list(unit) for unit in zip(*pairs(chosen), strict=True)], metric
        )

    return {
        "scale": scale,
        "tasks": len(items),
        "kappa_linear": ag.bootstrap(items, kappa("linear")).as_dict(),
        "kappa_quadratic": ag.bootstrap(items, kappa("quadratic")).as_dict(),
        "alpha_ordinal": ag.bootstrap(items, alpha("ordinal")).as_dict(),
        "alpha_interval": ag.bootstrap(items, alpha("interval")).as_dict(),
    }


def judges(plan: Plan) -> dict[str, BoundEvaluator]:
    """The suite's judge evaluators (built on ``bench.llm.judge.Judge``), by name."""
    found: dict[str, BoundEvaluator] = {}
    for planned in plan.tasks:
        for bound in planned.evaluators:
            if isinstance(bound.instance, Judge):
                found.setdefault(bound.name, bound)
    if not found:
        raise ConfigError(f"suite '{plan.name}' has no judge evaluator to calibrate", file=plan.path)
    return found


def by_task(
    labels: list[Label], plan: Plan, source: str, warn: Callable[[str], None] | None = None
) -> dict[str, list[Label]]:
    """The labels grouped by task, one per rater (labels without a rater are one rater's): a
    rater's last label for a task is their vote, and ``warn`` is told of each task labelled more
    than once. Ids the suite does not have are an error that lists them."""
    latest: dict[tuple[str, str], Label] = {}
    times: dict[tuple[str, str], int] = defaultdict(int)
    for label in labels:
        key = (label.task, label.rater)
        latest[key] = label
        times[key] += 1
    grouped: dict[str, list[Label]] = defaultdict(list)
    for label in latest.values():
        grouped[label.task].append(label)
    known = set(plan.tasks.ids)
    unknown = [t for t in grouped if t not in known]
    if unknown:
        raise ConfigError(
            f"{source}: labels name tasks that suite '{plan.name}' does not have: {', '.join(unknown)}"
        )
    for (task, rater), count in times.items():
        if count > 1 and warn is not None:
            who = (
                f"rater '{rater}' labelled task '{task}'"
                if rater
                else f"task '{task}' was labelled, with no rater,"
            )
            warn(f"{source}: {who} {count} times; only the last label counts")
    return dict(grouped)


def _ceiling(grouped: dict[str, list[Label]]) -> float | None:
    raters = sorted({label.rater for labels in grouped.values() for label in labels})
    if len(raters) < 2:
        return None
    units = [
        [next((float(la.verdict) for la in labels if la.rater == r), None) for r in raters]
        for labels in grouped.values()
    ]
    try:
        return ag.krippendorff_alpha(units, "nominal")
    except ValueError:
        return None


async def calibrate(
    plan: Plan,
    grouped: dict[str, list[Label]],
    llm: LLMClient,
    responses: dict[str, Response] | None = None,
    only: set[str] | None = None,
) -> list[JudgeCalibration]:
    """Run each judge (or those in ``only``) on the labelled tasks and compare it with the humans."""
    chosen = {n: b for n, b in judges(plan).items() if only is None or n in only}
    results = {name: JudgeCalibration(name, []) for name in chosen}
    ceiling = _ceiling(grouped)
    jobs = []
    for planned in plan.tasks:
        labels = grouped.get(planned.task.id)
        if not labels or planned.task.repeat:
            continue
        if responses is not None:
            response = responses.get(planned.task.id)
            if response is None:
                raise ConfigError(f"the run has no response for labelled task '{planned.task.id}'")
        else:
            response = planned.task.response or labelled_response(labels)
        if response is None:
            raise ConfigError(
                f"task '{planned.task.id}' has no response to judge: record one in the suite, keep it "
                "in the labels (bench label writes it), or give --run RUN_ID",
                file=plan.path,
            )
        for bound in planned.evaluators:
            if bound.name in chosen:
                jobs.append(_judge(results[bound.name], bound, planned.task, response, labels, llm))
    await asyncio.gather(*jobs)
    scale = human_scale(
        label.score for labels in grouped.values() for label in labels if label.score is not None
    )
    for result in results.values():
        result.ceiling = ceiling
        result.scale = scale
        result.items.sort(key=lambda i: i.task)
    return list(results.values())


def labelled_response(labels: list[Label]) -> Response | None:
    """The response the labels were given on (the first label that keeps one)."""
    text = next((label.response for label in labels if label.response is not None), None)
    return None if text is None else Response(output=text)


async def _judge(
    into: JudgeCalibration,
    bound: BoundEvaluator,
    task: Any,
    response: Response,
    labels: list[Label],
    llm: LLMClient,
) -> None:
    output = response.text
    outcome = await evaluate(bound, Sample(task, response, output, False, llm))
    if outcome.error is not None:
        into.errors[task.id] = outcome.error
        return
    yes = sum(label.verdict for label in labels)
    scores = [label.score for label in labels if label.score is not None]
    into.items.append(
        Item(
            task=task.id,
            human=yes * 2 > len(labels),
            judge=outcome.passed,
            score=outcome.score,
            human_score=sum(scores) / len(scores) if scores else None,
            note="; ".join(label.note for label in labels if label.note),
            reason=outcome.reason,
        )
    )


def run_results(runs_dir: Path, run_id: str, what: str) -> tuple[str, dict[str, dict[str, Any]]]:
    """A stored run's id and each task's result by task id, its first repeat only (``latest``: the
    newest run), read without taking the run's lock."""
    found, _, results = read_run(runs_dir, run_id, what)
    return found, {str(row["id"]): row for row in results if not row.get("repeat")}


def responses_from(rows: dict[str, dict[str, Any]]) -> dict[str, Response]:
    """Each task's recorded response text from a run's results (``run_results``)."""
    return {key: Response(output=row.get("response") or "") for key, row in rows.items()}
