"""A run's statistics: pass rate and mean score with intervals, pass@k, flaky tasks, variance sources.

Computed from the task results (plain dicts, as the store holds them) in one pass. With
repeats the task is the unit: its runs are averaged first, and intervals resample tasks (a
cluster bootstrap), because runs of one task are not independent.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from bench.scoring.stats import (
    BOOTSTRAP_LIMIT,
    Interval,
    bootstrap_ci,
    pass_at_k,
    pass_hat_k,
    variance,
    wilson,
    z_value,
)
from bench.vocabulary.results import FINISHED_STATUSES


@dataclass
class _Task:
    runs: int = 0
    passes: int = 0
    scores: list[float] = field(default_factory=list)
    #: evaluator name -> one list of judge sample scores per run
    judged: dict[str, list[list[float]]] = field(default_factory=dict)
    #: A conversation's runs: (score, the simulated user's messages' digest) per scored run.
    users: list[tuple[float, str]] = field(default_factory=list)


def _judge_samples(result: dict[str, Any], task: _Task) -> None:
    for outcome in result.get("evaluators") or []:
        verdicts = (outcome.get("details") or {}).get("verdicts")
        if isinstance(verdicts, list) and verdicts:
            scores = [
                v["score"]
                for v in verdicts
                if isinstance(v, dict) and isinstance(v.get("score"), (int, float))
            ]
            if scores:
                task.judged.setdefault(outcome["name"], []).append(scores)


class StatsCollector:
    """Accumulates results as they are recorded, so statistics need no second read of the store.

    Per-task state is kept only when tasks repeat; single runs keep counts, and the scores
    themselves only up to the bootstrap's limit (beyond it, sums for the normal interval).
    """

    def __init__(self, repeats: bool = True) -> None:
        self.repeats = repeats
        self.tasks: dict[str, _Task] = {}
        self.runs = self.passes = self.scored = 0
        self.score_sum = self.score_squares = 0.0
        self.scores: list[float] | None = []

    def add(self, result: dict[str, Any]) -> None:
        if result.get("status") not in FINISHED_STATUSES:
            return  # errors and interruptions are neither passes nor failures
        passed = bool(result.get("passed"))
        score = result.get("score")
        self.runs += 1
        self.passes += passed
        if isinstance(score, (int, float)):
            self.scored += 1
            self.score_sum += score
            self.score_squares += score * score
            if self.scores is not None:
                self.scores.append(float(score))
                if len(self.scores) > BOOTSTRAP_LIMIT:
                    self.scores = None
        if self.repeats:
            task = self.tasks.setdefault(str(result["id"]), _Task())
            task.runs += 1
            task.passes += passed
            if isinstance(score, (int, float)):
                task.scores.append(float(score))
                user = result["user"] if "user" in result else simulated_user(result.get("conversation"))
                if isinstance(user, str):
                    task.users.append((float(score), user))
            _judge_samples(result, task)

    def statistics(self, confidence: float = 0.95) -> dict[str, Any] | None:
        if not self.runs:
            return None
        if self.repeats and max(t.runs for t in self.tasks.values()) > 1:
            return _repeated(self.tasks, confidence)
        block: dict[str, Any] = {"tasks": self.runs, "repeats": 1, "confidence": confidence}
        block["pass_rate"] = wilson(self.passes, self.runs, confidence).as_dict()
        if self.scored:
            if self.scores is not None:
                block["mean_score"] = bootstrap_ci(self.scores, confidence).as_dict()
            else:
                block["mean_score"] = _normal_from_sums(
                    self.scored, self.score_sum, self.score_squares, confidence
                )
        return block


def _normal_from_sums(n: int, total: float, squares: float, confidence: float) -> dict[str, Any]:
    mean = total / n
    spread = max(0.0, (squares - n * mean * mean) / (n - 1)) if n > 1 else 0.0
    half = z_value(confidence) * math.sqrt(spread / n)
    return Interval(mean, mean - half, mean + half, "normal (large sample)").as_dict()


def run_statistics(results: Iterable[dict[str, Any]], confidence: float = 0.95) -> dict[str, Any] | None:
    """The statistics block of a report, or None when no task finished."""
    collector = StatsCollector()
    for result in results:
        collector.add(result)
    return collector.statistics(confidence)


def _repeated(tasks: dict[str, _Task], confidence: float) -> dict[str, Any]:
    repeats = max(t.runs for t in tasks.values())
    rates = [t.passes / t.runs for t in tasks.values()]
    rate = bootstrap_ci(rates, confidence)
    method = "cluster bootstrap over tasks" if rate.method == "bootstrap" else f"{rate.method} over tasks"
    block: dict[str, Any] = {"tasks": len(tasks), "repeats": repeats, "confidence": confidence}
    block["pass_rate"] = Interval(rate.value, rate.low, rate.high, method).as_dict()
    means = [sum(t.scores) / len(t.scores) for t in tasks.values() if t.scores]
    if means:
        block["mean_score"] = bootstrap_ci(means, confidence).as_dict()
    block["pass_at_k"] = _at_k(tasks, repeats, pass_at_k)
    block["pass_hat_k"] = _at_k(tasks, repeats, pass_hat_k)
    block["flaky"] = sorted(i for i, t in tasks.items() if 0 < t.passes < t.runs)
    block["per_task"] = {i: {"runs": t.runs, "passed": t.passes} for i, t in sorted(tasks.items())}
    sources = _variance_sources(tasks)
    if sources is not None:
        block["variance"] = sources
    users = _user_source(tasks)
    if users is not None:
        block.setdefault("variance", {})["simulated_user"] = users
    return block


def _at_k(tasks: dict[str, _Task], repeats: int, estimator: Any) -> dict[str, float]:
    out = {}
    for k in range(1, repeats + 1):
        values = [estimator(t.runs, t.passes, k) for t in tasks.values() if t.runs >= k]
        if values:
            out[str(k)] = round(sum(values) / len(values), 6)
    return out


def _variance_sources(tasks: dict[str, _Task]) -> dict[str, Any] | None:
    """How much score variance comes from the system (between runs) and from the judge.

    For each judged evaluator of each task: the judge's share is the mean variance among the
    samples of one response; the system's is the variance of the per-run means across repeats,
    less the judge's share of it (one-way random-effects estimate, floored at 0).
    """
    judge_parts: list[float] = []
    system_parts: list[float] = []
    for task in tasks.values():
        for runs in task.judged.values():
            if len(runs) < 2:
                continue
            within = [variance(samples) for samples in runs if len(samples) > 1]
            judge = sum(within) / len(within) if within else 0.0
            per_run = [sum(s) / len(s) for s in runs]
            samples_per_run = sum(len(s) for s in runs) / len(runs)
            system_parts.append(max(0.0, variance(per_run) - judge / samples_per_run))
            if within:
                judge_parts.append(judge)
    if not system_parts or not judge_parts:
        return None
    system = sum(system_parts) / len(system_parts)
    judge = sum(judge_parts) / len(judge_parts)
    total = system + judge
    share = system / total if total else 0.0
    if total == 0:
        hint = "no variation: the system and the judge were consistent"
    elif share >= 0.5:
        hint = "most variation comes from the system under test"
    else:
        hint = "most variation comes from the judge: add judge samples or a stronger judge"
    return {
        "system": round(system, 6),
        "judge": round(judge, 6),
        "system_share": round(share, 4),
        "hint": hint,
    }


def _user_source(tasks: dict[str, _Task]) -> dict[str, Any] | None:
    """How much of conversations' score variance comes from the simulated user.

    Runs of a task are grouped by what the simulated user said: the variance within a group (the
    same user) is the system's and the judge's; what the groups' spread adds is the user's. Only
    tasks with two runs that met the same user can be split; None when no conversation repeated.
    """
    user_parts: list[float] = []
    rest_parts: list[float] = []
    repeated = [t for t in tasks.values() if len(t.users) > 1]
    if not repeated:
        return None
    for task in repeated:
        groups: dict[str, list[float]] = {}
        for score, said in task.users:
            groups.setdefault(said, []).append(score)
        alike = [variance(scores) for scores in groups.values() if len(scores) > 1]
        if not alike:
            continue  # every run met another user: the user and the system cannot be told apart
        within = sum(alike) / len(alike)
        rest_parts.append(within)
        user_parts.append(max(0.0, variance([score for score, _ in task.users]) - within))
    if not user_parts:
        return {
            "variance": None,
            "hint": "every run met a different simulated user: hold the user fixed (a cached "
            "simulator, temperature 0) in some repeats to split its share",
        }
    user = sum(user_parts) / len(user_parts)
    rest = sum(rest_parts) / len(rest_parts)
    total = user + rest
    share = user / total if total else 0.0
    hint = (
        "no variation"
        if total == 0
        else "most variation comes from the simulated user"
        if share >= 0.5
        else "most variation comes from the system and the judge, the same user given"
    )
    return {
        "variance": round(user, 6),
        "system_and_judge": round(rest, 6),
        "user_share": round(share, 4),
        "hint": hint,
    }


def simulated_user(conversation: dict[str, Any] | None) -> str | None:
    """A digest of what a conversation's simulated user said (None without one): runs that met
    the same user share it."""
    if not conversation or not conversation.get("simulator"):
        return None
    said = [m.get("content") for m in conversation.get("messages", []) if m.get("role") == "user"]
    return hashlib.sha256(json.dumps(said, sort_keys=True, default=str).encode()).hexdigest()[:16]
