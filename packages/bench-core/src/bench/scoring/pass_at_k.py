"""A task judged over its repeats by pass@k (``pass_at_k: THRESHOLD``), as AI Eval judges a case
over its trials: with p the share of its runs that passed and k their number, the task passes
when 1 - (1 - p)^k reaches the threshold (internal/runner/runner.go at ac78a91).

Its runs keep their own verdicts in the results; the run's exit code counts the task's verdict
instead of its failed runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bench.vocabulary.results import FAILED, INTERRUPTED, WAITING


def pass_at_k(passed: int, runs: int) -> float:
    """1 - (1 - p)^k with p = passed / runs and k = runs (0 when nothing ran)."""
    if runs == 0:
        return 0.0
    return 1.0 - (1.0 - passed / runs) ** runs


def verdicts(results: Iterable[dict[str, Any]], thresholds: Mapping[str, float]) -> dict[str, Any] | None:
    """Each thresholded task's runs, passes, pass@k and verdict; None when no task has a rule."""
    if not thresholds:
        return None
    counts: dict[str, list[int]] = {}  # id -> [runs, passed, failed runs]
    for result in results:
        task = str(result.get("id"))
        if task not in thresholds or result.get("status") in (INTERRUPTED, WAITING):
            continue
        row = counts.setdefault(task, [0, 0, 0])
        row[0] += 1
        row[1] += bool(result.get("passed"))
        row[2] += result.get("status") == FAILED
    tasks: dict[str, dict[str, Any]] = {}
    for task, (runs, passed, _) in sorted(counts.items()):
        value = pass_at_k(passed, runs)
        tasks[task] = {
            "runs": runs,
            "passed_runs": passed,
            "pass_at_k": round(value, 6),
            "threshold": thresholds[task],
            "passed": value >= thresholds[task],
        }
    return {
        "tasks": tasks,
        "passed": sum(t["passed"] for t in tasks.values()),
        "failed": sum(not t["passed"] for t in tasks.values()),
        #: Failed runs of these tasks: their task's verdict replaces them in the exit code.
        "failed_runs": sum(row[2] for row in counts.values()),
    }
