"""Metric collectors (AgentClash's names): the figures each task provides to scorecards.

bench-core collects the run's own figures (``COLLECTORS``); a behavioural signal's score is
collected under the name its evaluator type declares (``Evaluator.signal_collector``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

from bench.evaluator import Evaluator

#: The collectors of every task result, whatever plugins are installed.
COLLECTORS = (
    "run_total_latency_ms",
    "run_ttft_ms",
    "run_input_tokens",
    "run_output_tokens",
    "run_total_tokens",
    "run_model_cost_usd",
    "run_completed_successfully",
    "run_failure_count",
    "run_tool_call_count",
    "validator_pass_rate",
)


def signal_collectors(types: Iterable[type[Evaluator[Any]]]) -> dict[str, str]:
    """Evaluator type name -> collector, for each behavioural signal among ``types`` (in order)."""
    return {cls.name: cls.signal_collector for cls in types if cls.signal_collector is not None}


class Signals(Mapping[str, str]):
    """``signal_collectors`` of every type ``types()`` gives, read on first use: a run that
    computes no scorecard imports no evaluator type for it, and every process of a run (a Ray
    worker's included) records the same signals."""

    def __init__(self, types: Callable[[], Iterable[type[Evaluator[Any]]]]) -> None:
        self._types = types

    @functools.cached_property
    def _all(self) -> dict[str, str]:
        return signal_collectors(self._types())

    def __getitem__(self, name: str) -> str:
        return self._all[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)


class KnownCollectors(Sequence[str]):
    """The collectors a scorecard may name: ``COLLECTORS``, then the behavioural signals' of
    ``types()``, which is called only when a name is not one of bench-core's (so a suite whose
    scorecards name none imports no evaluator type for it)."""

    def __init__(self, types: Callable[[], Iterable[type[Evaluator[Any]]]]) -> None:
        self._types = types

    @functools.cached_property
    def _all(self) -> tuple[str, ...]:
        return (*COLLECTORS, *signal_collectors(self._types()).values())

    def __contains__(self, name: object) -> bool:
        return name in COLLECTORS or name in self._all

    def __iter__(self) -> Iterator[str]:
        return iter(self._all)

    def __len__(self) -> int:
        return len(self._all)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._all[index]


def outcome_score(outcome: dict[str, Any]) -> float:
    """An evaluator outcome's score, or 1/0 for a verdict without one."""
    score = outcome.get("score")
    return float(score) if score is not None else (1.0 if outcome["passed"] else 0.0)


def collect_metrics(
    *,
    latency_ms: float | None,
    usage: dict[str, Any],
    target_error: bool,
    outcomes: list[dict[str, Any]],
    signals: Mapping[str, str] | None = None,
    tool_calls: int | None = None,
) -> dict[str, float | None]:
    """The collectors' values for one task (``None`` where unknown, never a made-up 0).

    ``signals`` maps behavioural signal types to their collectors (see ``signal_collectors``);
    each is ``None`` unless the task has an evaluator of that type.
    """
    signals = signals or {}
    errors = sum(o.get("error") is not None for o in outcomes)
    judged = [o for o in outcomes if o.get("error") is None]
    scores: dict[str, float | None] = dict.fromkeys(signals.values())
    for o in judged:
        key = signals.get(o["type"])
        if key is not None and scores[key] is None:
            scores[key] = outcome_score(o)
    return {
        "run_total_latency_ms": latency_ms,
        "run_ttft_ms": usage.get("ttft_ms"),
        "run_input_tokens": usage.get("input_tokens"),
        "run_output_tokens": usage.get("output_tokens"),
        "run_total_tokens": usage.get("total_tokens"),
        "run_model_cost_usd": usage.get("cost_usd"),
        "run_completed_successfully": 0.0 if target_error else 1.0,
        "run_failure_count": float(int(target_error) + errors),
        # AgentClash's count of the run's tool calls (engine_metrics.go); unknown after an error
        "run_tool_call_count": None if tool_calls is None else float(tool_calls),
        "validator_pass_rate": sum(bool(o["passed"]) for o in judged) / len(judged) if judged else None,
        **scores,
    }
