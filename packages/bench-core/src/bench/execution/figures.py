"""Suite-level figures of evaluators that have them (corpus BLEU, mean similarity, ...)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from bench.evaluator import Evaluator, from_rows
from bench.execution.deadline import Exceeded, sync_deadline


@dataclass
class Aggregator:
    """One evaluator name whose type reports suite-level figures: its type and settings.

    ``instances`` is kept only for a type that implements the deprecated ``aggregate`` alone.
    """

    kind: type[Evaluator[Any]]
    config: Any
    instances: dict[int, Evaluator[Any]] | None = None


@dataclass
class Aggregators:
    """The evaluators with suite-level figures that a run used, by (name, type)."""

    by_name: dict[tuple[str, str], Aggregator] = field(default_factory=dict)

    def add(self, name: str, type_name: str, instance: Evaluator[Any]) -> None:
        known = self.by_name.get((name, type_name))
        if known is None:
            kind = type(instance)
            known = Aggregator(kind, instance.config, None if from_rows(kind) else {})
            self.by_name[(name, type_name)] = known
        if known.instances is not None:
            known.instances[id(instance)] = instance

    def seeded(self, bound: dict[tuple[str, str], Evaluator[Any]]) -> Aggregators:
        """These, plus every evaluator of ``bound`` (the plan's, by name and type) whose figures
        come from stored rows: tasks kept by ``--resume`` or run in other processes count too."""
        merged = Aggregators(dict(self.by_name))
        for (name, type_name), instance in bound.items():
            if (name, type_name) not in merged.by_name and from_rows(type(instance)):
                merged.add(name, type_name, instance)
        return merged


def outcome_rows(results: Iterable[dict[str, Any]], name: str, type_name: str) -> Iterator[dict[str, Any]]:
    """The stored outcomes of evaluator ``name`` that reached a verdict, one per task result."""
    for result in results:
        for outcome in result.get("evaluators") or ():
            same = outcome.get("name") == name and outcome.get("type") == type_name
            if same and outcome.get("error") is None:
                yield outcome


#: Outcomes held for the other evaluators while the first one's figures read the store: within
#: this many (about 1.6 KB each for BLEU's), the store is read and decoded once for them all.
HELD_OUTCOMES = 25_000

Key = tuple[str, str]


class _OneRead:
    """Each evaluator's verdict outcomes, the stored results read once where memory allows.

    The first evaluator asked for streams the store; the outcomes of the others are held as
    they pass (in plan order) and handed over afterwards. Past ``HELD_OUTCOMES``, or when the
    first stopped before the end (an error, its deadline), each of the others reads the store.
    """

    def __init__(self, results: Callable[[], Iterable[dict[str, Any]]], keys: list[Key]) -> None:
        self._results = results
        self._held: dict[Key, list[dict[str, Any]]] | None = {key: [] for key in keys[1:]}
        self._read = False
        self._whole = False

    def rows(self, key: Key) -> Iterator[dict[str, Any]]:
        """The outcomes of evaluator ``key`` (name, type) that reached a verdict."""
        if not self._read:
            self._read = True
            return self._streamed(key)
        held = self._held.pop(key, None) if self._held is not None and self._whole else None
        return iter(held) if held is not None else outcome_rows(self._results(), *key)

    def _streamed(self, key: Key) -> Iterator[dict[str, Any]]:
        held, count = self._held, 0
        for result in self._results():
            for outcome in result.get("evaluators") or ():
                if outcome.get("error") is not None:
                    continue
                found = (outcome.get("name"), outcome.get("type"))
                if found == key:
                    yield outcome
                elif held is not None and (kept := held.get(found)) is not None:
                    kept.append(outcome)
                    count += 1
                    if count > HELD_OUTCOMES:
                        held = self._held = None
        self._whole = True


def suite_figures(
    aggregators: Aggregators, results: Callable[[], Iterable[dict[str, Any]]], timeout: float
) -> dict[str, Any]:
    """Suite-level figures of evaluators that have them, each within the evaluator time limit.

    ``results`` streams the run's stored task results in plan order (resumed tasks included); it
    is read once for every evaluator name whose type implements ``aggregate_rows`` (once each
    past ``HELD_OUTCOMES`` outcomes).
    """
    out: dict[str, Any] = {}
    reading = _OneRead(results, [key for key, agg in aggregators.by_name.items() if agg.instances is None])
    for (name, type_name), agg in aggregators.by_name.items():
        try:
            with sync_deadline(timeout):
                if agg.instances is None:
                    rows = reading.rows((name, type_name))
                    first = next(rows, None)
                    if first is None:  # no task of it has a verdict (a selection left them out)
                        continue
                    figures = agg.kind.aggregate_rows(agg.config, itertools.chain((first,), rows))
                else:
                    figures = agg.kind.aggregate(list(agg.instances.values()))
        except Exceeded:
            out[name] = {"type": type_name, "error": f"the suite-level figures took more than {timeout:g} s"}
            continue
        except Exception as exc:  # a plugin's bug: say so in the report, keep the run's results
            out[name] = {"type": type_name, "error": f"{type(exc).__name__}: {exc}"}
            continue
        if figures:
            out[name] = {"type": type_name, **figures}
    return out
