"""Suite-level figures of evaluators that have them (corpus BLEU, mean similarity, ...)."""

from __future__ import annotations

from typing import Any

from bench.execution.deadline import Exceeded, sync_deadline


def suite_figures(aggregators: dict[tuple[str, str], dict[int, Any]], timeout: float) -> dict[str, Any]:
    """Suite-level figures of evaluators that have them (corpus BLEU, mean similarity, ...), each
    within the evaluator time limit."""
    out: dict[str, Any] = {}
    for (name, type_name), instances in aggregators.items():
        listed = list(instances.values())
        try:
            with sync_deadline(timeout):
                figures = type(listed[0]).aggregate(listed)
        except Exceeded:
            out[name] = {"type": type_name, "error": f"the suite-level figures took more than {timeout:g} s"}
            continue
        except Exception as exc:  # a plugin's bug: say so in the report, keep the run's results
            out[name] = {"type": type_name, "error": f"{type(exc).__name__}: {exc}"}
            continue
        if figures:
            out[name] = {"type": type_name, **figures}
    return out
