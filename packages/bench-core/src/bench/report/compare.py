"""``bench compare A B``: is B's difference from A real?

Tasks are matched by id and each task is one pair (with repeats, its runs averaged first: runs of
one task are not independent). The verdict comes from exact paired tests: pass/fail with
McNemar's exact test on the tasks whose verdict changed (with repeats, the sign-flip test of the
per-task pass rates), mean scores with the sign-flip test, the two held to ``alpha`` together by
Holm's adjustment. Each difference comes with a percentile bootstrap interval. The verdict:

``regression``            B is significantly worse (exit 1)
``improvement``           B is significantly better and nowhere significantly worse (exit 0)
``no significant change`` the test had the power to see a change of ``min_effect`` and saw none (exit 0)
``insufficient evidence`` it had not: the report says how many tasks it would need (exit 3)
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.scoring.sign_flip import sign_flip
from bench.scoring.stats import (
    McNemar,
    Z,
    holm,
    mcnemar,
    mcnemar_sample_size,
    paired_bootstrap,
    z_value,
)
from bench.scoring.target_stats import target_label
from bench.vocabulary.errors import StoreError
from bench.vocabulary.results import FINISHED_STATUSES
from bench.vocabulary.store import LATEST, read_latest_results, resolve_run, results_path

EXIT_FOR = {"regression": 1, "improvement": 0, "no significant change": 0, "insufficient evidence": 3}


@dataclass
class RunResults:
    """One side of a comparison: per task id, the pass flags and scores of its runs."""

    label: str
    passes: dict[str, list[bool]] = field(default_factory=dict)
    scores: dict[str, list[float]] = field(default_factory=dict)

    def add(self, result: dict[str, Any]) -> None:
        if result.get("status") not in FINISHED_STATUSES:
            return
        task = str(result["id"])
        self.passes.setdefault(task, []).append(bool(result.get("passed")))
        if isinstance(result.get("score"), (int, float)):
            score = float(result["score"])
            if not math.isfinite(score):  # bench never writes one; a hand-made or foreign file may
                raise ValueError(f"task '{task}' has the score {score}, which is not a number")
            self.scores.setdefault(task, []).append(score)


def run_results_path(ref: str, runs_dir: Path) -> Path:
    """The ``results.jsonl`` of a run folder, a results file, or a run id in ``runs_dir`` (``latest``:
    the newest run, unless a file or folder of that name is there)."""
    path = Path(ref)
    if ref == LATEST and not path.exists():
        ref = resolve_run(runs_dir, ref, "bench compare")
        path = runs_dir / ref
    results = path if path.is_file() else results_path(path if path.is_dir() else runs_dir / ref)
    if not results.is_file():
        known = sorted(p.name for p in runs_dir.iterdir() if p.is_dir()) if runs_dir.is_dir() else []
        listed = ", ".join(known[-10:]) or "none"
        raise StoreError(
            f"no run '{ref}': not a report file, a run folder, or a run id in {runs_dir} (runs: {listed})"
        )
    return results


def split_target(ref: str) -> tuple[str, str | None]:
    """``RUN:LABEL`` as the run and one of its targets' labels; a ref that exists as a file or
    folder, or has nothing on either side of its last ``:``, names a whole run."""
    run, sep, label = ref.rpartition(":")
    if not sep or not run or not label or Path(ref).exists():
        return ref, None
    return run, label


def _whole_run_rows(ref: str, runs_dir: Path) -> tuple[str | None, Iterable[dict[str, Any]]]:
    if ref == LATEST and not Path(ref).exists():
        ref = resolve_run(runs_dir, ref, "bench compare")
    path = Path(ref)
    if path.is_file() and path.suffix == ".json":
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
            tasks = list(report["tasks"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"{ref}: not a bench --output report ({exc})") from None
        return str(report.get("run_id") or ref), tasks
    return None, read_latest_results(run_results_path(ref, runs_dir))


def _on_target(ref: str, rows: Iterable[dict[str, Any]], label: str) -> list[dict[str, Any]]:
    """The rows ``label`` answered, their ids without the ``[label]`` each target's copy gained,
    so that one target's tasks match another's."""
    suffix = f"[{label}]"
    chosen, seen = [], set()
    for row in rows:
        found = target_label(row)
        if found is not None:
            seen.add(found)
        if found != label:
            continue
        task = str(row["id"])
        chosen.append({**row, "id": task[: -len(suffix)] if task.endswith(suffix) else task})
    if not chosen:
        known = ", ".join(sorted(seen)) or "none: its tasks name no target label"
        raise StoreError(f"{ref}: no task ran on target '{label}' (targets: {known})")
    return chosen


def run_rows(ref: str, runs_dir: Path) -> tuple[str | None, Iterable[dict[str, Any]]]:
    """A run's task results, from an ``--output`` JSON file, a run folder or ``results.jsonl``, or a
    run id (``latest`` too); with the report's run id as its label (None for a stored run).

    ``RUN:LABEL`` is one target of a run of several: the tasks that target answered, each under
    its id without ``[LABEL]``.
    """
    run, label = split_target(ref)
    name, rows = _whole_run_rows(run, runs_dir)
    if label is None:
        return name, rows
    return (None if name is None else f"{name}:{label}"), _on_target(ref, rows, label)


def load_run(ref: str, runs_dir: Path) -> RunResults:
    """A run as ``run_rows`` reads it, each task's results gathered for the comparison."""
    label, rows = run_rows(ref, runs_dir)
    run = RunResults(ref)
    if label is not None:
        run.label = label
    for row in rows:
        try:
            run.add(row)
        except ValueError as exc:  # a score that is not a number: bench never writes one
            raise StoreError(f"{ref}: {exc}") from None
    return run


@dataclass
class Comparison:
    """What ``bench compare`` reports."""

    verdict: str
    matched: int
    only_in_a: list[str]
    only_in_b: list[str]
    regressions: list[str]
    improvements: list[str]
    pass_rate: dict[str, Any]
    score: dict[str, Any] | None
    needed_tasks: int | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _rate(flags: list[bool]) -> float:
    return sum(flags) / len(flags)


@dataclass(frozen=True)
class PairedTest:
    """One exact paired test of B against A: its name, the sign of the change it saw, its
    p-value, and that p-value adjusted for the other test the verdict rests on (Holm)."""

    name: str
    difference: float
    p_value: float
    p_adjusted: float


@dataclass(frozen=True)
class Decision:
    """The verdict's evidence: ``regression``, ``improvement`` or None (no significant change),
    from the pass-rate test and, when the scores tell something the verdicts do not, the score test."""

    verdict: str | None
    rate: PairedTest
    score: PairedTest | None
    mcnemar: McNemar | None


def decide(
    rate_a: list[float],
    rate_b: list[float],
    repeated: bool,
    score_a: list[float] | None = None,
    score_b: list[float] | None = None,
    alpha: float = 0.05,
) -> Decision:
    """Test B against A with exact paired tests, one pair per task, and decide.

    Pass/fail: McNemar's exact test on the changed verdicts; with repeats, the exact sign-flip
    test of the per-task pass rates (a task's runs are one cluster). Scores (per-task means):
    the sign-flip test. When both tests count, Holm's adjustment keeps the chance of a false
    verdict at ``alpha``; scores that changed exactly as the verdicts did are the same test.
    """
    if repeated:
        flip = sign_flip(rate_a, rate_b)
        rate_name = f"sign-flip over tasks ({flip.method}; repeats averaged per task)"
        rate_p, rate_mean, exact = flip.p_value, flip.mean, None
    else:
        down = sum(y < x for x, y in zip(rate_a, rate_b, strict=True))
        up = sum(y > x for x, y in zip(rate_a, rate_b, strict=True))
        exact = mcnemar(down, up)
        rate_name, rate_p, rate_mean = "McNemar (exact)", exact.p_value, (up - down) / len(rate_a)
    tests = [(rate_name, rate_mean, rate_p)]
    same = False
    if score_a is not None and score_b is not None:
        score = sign_flip(score_a, score_b)
        tests.append((f"sign-flip ({score.method})", score.mean, score.p_value))
        same = len(score_a) == len(rate_a) and all(
            math.isclose(sb - sa, rb - ra, abs_tol=1e-12)
            for sa, sb, ra, rb in zip(score_a, score_b, rate_a, rate_b, strict=True)
        )
    # The same test twice (its p-values equal) is one test: nothing to adjust for.
    adjusted = [p for _, _, p in tests] if same else holm([p for _, _, p in tests])
    results = [PairedTest(n, d, p, a) for (n, d, p), a in zip(tests, adjusted, strict=True)]
    significant = [t.difference for t in results if t.p_adjusted < alpha]
    verdict = (
        "regression" if any(d < 0 for d in significant)
        else "improvement" if any(d > 0 for d in significant)
        else None
    )  # fmt: skip
    return Decision(verdict, results[0], results[1] if len(results) > 1 else None, exact)


def compare_runs(
    a: RunResults, b: RunResults, *, alpha: float = 0.05, min_effect: float = 0.05, power: float = 0.8
) -> Comparison:
    """Compare B against A, task by task: the verdict from ``decide``, each difference with its
    percentile bootstrap interval over tasks."""
    tasks = sorted(set(a.passes) & set(b.passes))
    only_a = sorted(set(a.passes) - set(b.passes))
    only_b = sorted(set(b.passes) - set(a.passes))
    rate_a = [_rate(a.passes[t]) for t in tasks]
    rate_b = [_rate(b.passes[t]) for t in tasks]
    regressions = [t for t, x, y in zip(tasks, rate_a, rate_b, strict=True) if y < x]
    improvements = [t for t, x, y in zip(tasks, rate_a, rate_b, strict=True) if y > x]
    if len(tasks) < 2:
        return Comparison(
            "insufficient evidence", len(tasks), only_a, only_b, regressions, improvements,
            {"a": None, "b": None}, None, None, "fewer than 2 tasks in common",
        )  # fmt: skip
    repeated = any(len(a.passes[t]) > 1 or len(b.passes[t]) > 1 for t in tasks)
    scored = [t for t in tasks if a.scores.get(t) and b.scores.get(t)]
    mean_a = [sum(a.scores[t]) / len(a.scores[t]) for t in scored]
    mean_b = [sum(b.scores[t]) / len(b.scores[t]) for t in scored]
    has_scores = len(scored) >= 2
    decision = decide(
        rate_a, rate_b, repeated, mean_a if has_scores else None, mean_b if has_scores else None, alpha
    )
    diff = paired_bootstrap(rate_a, rate_b, confidence=1 - alpha)
    pass_rate: dict[str, Any] = {
        "a": sum(rate_a) / len(tasks),
        "b": sum(rate_b) / len(tasks),
        "difference": diff.mean,
        "interval": [diff.low, diff.high],
        "test": decision.rate.name,
        "p_value": decision.rate.p_value,
        "p_adjusted": decision.rate.p_adjusted,
    }
    if decision.mcnemar is not None:
        pass_rate.update(
            regressed=decision.mcnemar.b,
            improved=decision.mcnemar.c,
            statistic=decision.mcnemar.statistic,
        )
    score: dict[str, Any] | None = None
    if decision.score is not None:
        sdiff = paired_bootstrap(mean_a, mean_b, confidence=1 - alpha)
        score = {
            "a": sum(mean_a) / len(scored),
            "b": sum(mean_b) / len(scored),
            "difference": sdiff.mean,
            "interval": [sdiff.low, sdiff.high],
            "test": decision.score.name,
            "p_value": decision.score.p_value,
            "p_adjusted": decision.score.p_adjusted,
            "tasks": len(scored),
        }
    common = (len(tasks), only_a, only_b, regressions, improvements, pass_rate, score)
    if decision.verdict is not None:
        return Comparison(decision.verdict, *common)
    needed = _needed_tasks(rate_a, rate_b, repeated, alpha, min_effect, power)
    if needed is None or needed > len(tasks):
        note = (
            f"{len(tasks)} tasks cannot show a change of {min_effect:.0%} in pass rate "
            f"(alpha {alpha:g}, power {power:.0%})"
        )
        return Comparison("insufficient evidence", *common, needed, note)
    return Comparison("no significant change", *common, needed)


def _needed_tasks(
    rate_a: list[float], rate_b: list[float], repeated: bool, alpha: float, min_effect: float, power: float
) -> int | None:
    """Tasks needed to detect a pass-rate change of ``min_effect``; None when no estimate exists."""
    n = len(rate_a)
    diffs = [y - x for x, y in zip(rate_a, rate_b, strict=True)]
    if not repeated:
        discordant = sum(d != 0 for d in diffs)
        # The observed share of changed verdicts, floored at min_effect (a change needs that many).
        return mcnemar_sample_size(max(discordant / n, min_effect), min_effect, alpha, power)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    sd = max(sd, min_effect)  # no observed spread is no proof of none
    return math.ceil(((z_value(1 - alpha) + Z.inv_cdf(power)) * sd / min_effect) ** 2)
