"""``assert_passes``: bench's evaluators as a pytest assertion (DeepEval's ``assert_test`` habit)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.plugins.registry import Registry
    from bench.vocabulary.models import Response, Task
    from bench.vocabulary.results import EvaluatorOutcome


def assert_passes(
    response: str | Response,
    evaluator_config: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    *,
    vars: Mapping[str, Any] | None = None,
    expected: str | None = None,
    prompt: str = "",
    task: Task | None = None,
    registry: Registry | None = None,
) -> list[EvaluatorOutcome]:
    """Run evaluators on a response; raise ``AssertionError`` naming each one that did not pass.

    ``evaluator_config`` is one evaluator mapping as a suite writes it (``{"type": "regex",
    "value": "..."}``) or a list of them. ``expected`` is the reference answer checks that compare
    with one read: each mapping without an ``expected_from`` gets ``expected_from: literal:...``.
    ``vars`` and ``prompt`` make the task the evaluators see (or pass ``task``). Returns every
    evaluator's outcome when all pass.

    >>> [o.name for o in assert_passes("The answer is 42.", {"type": "regex", "value": "42"})]
    ['regex']
    """
    # A failure shows the test's own line and the reasons, not this function (as pytest's helpers).
    __tracebackhide__ = True
    from bench.api import run_blocking
    from bench.vocabulary.models import Task

    configs = _configs(evaluator_config, expected)
    if task is None:
        task = Task(id="test", prompt=prompt, vars=dict(vars or {}))
    elif vars is not None or prompt:
        raise TypeError("assert_passes: give either task= or vars=/prompt=, not both")
    outcomes = run_blocking(lambda: _evaluate(configs, response, task, registry))
    failures = [describe(o) for o in outcomes if not o.passed or o.error is not None]
    if failures:
        head = f"{len(failures)} of {len(outcomes)} evaluators did not pass"
        raise AssertionError("\n  ".join([f"{head}:", *failures]))
    return outcomes


def _configs(
    evaluator_config: Mapping[str, Any] | Sequence[Mapping[str, Any]], expected: str | None
) -> list[dict[str, Any]]:
    if isinstance(evaluator_config, Mapping):
        configs = [dict(evaluator_config)]
    else:
        configs = [dict(c) for c in evaluator_config]
    if not configs:
        raise TypeError("assert_passes: the list of evaluator configs is empty")
    if expected is not None:
        for config in configs:
            config.setdefault("expected_from", f"literal:{expected}")
    return configs


async def _evaluate(
    configs: list[dict[str, Any]], response: str | Response, task: Task, registry: Registry | None
) -> list[EvaluatorOutcome]:
    from bench.execution import killable
    from bench.testing.running import evaluator_outcome

    try:
        return [await evaluator_outcome(c, response, task=task, registry=registry) for c in configs]
    finally:
        killable.shutdown()  # worker processes a slow evaluator started


def describe(outcome: EvaluatorOutcome) -> str:
    """One line on an evaluator that did not pass: its name, its score and its reason (or error)."""
    name = outcome.name if outcome.name == outcome.type else f"{outcome.name} ({outcome.type})"
    if outcome.error is not None:
        return f"{name}: could not evaluate: {outcome.error}"
    score = "" if outcome.score is None else f" (score {outcome.score:.2f})"
    return f"{name} failed{score}: {outcome.reason or 'no reason given'}"
