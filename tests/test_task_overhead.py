"""Per-task overhead: what makes 10,000 recorded tasks cheap must not change them.

Tasks that repeat one evaluator mapping share its configured instance (validated once), yet each
keeps its own origin; only a type whose suite figures come from its instances (the deprecated
``aggregate``) keeps one per task.
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bench import Evaluator, EvaluatorConfig, RegisterEvaluator, Result, Sample
from bench.document import YamlDocument
from bench.execution import deadline
from bench.execution.deadline import Exceeded, sync_deadline
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.pipeline.run import run_plan
from bench.plugins.registry import build_registry, get_registry
from bench.suite.binding import Binder
from bench.suite.loader import load_suite

SUITE = """\
name: shared
tasks:
  - id: a
    response: "the answer is 4"
    evaluate: [{type: contains, value: answer}, {type: bleu, reference: "the answer is 4"}]
  - id: b
    response: "no idea"
    evaluate: [{type: contains, value: answer}, {type: bleu, reference: "the answer is 4"}]
  - id: c
    response: "answer 5"
    evaluate: [{type: contains, value: other}]
"""


def test_tasks_with_one_mapping_share_its_instance_but_not_their_origin(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    a, b, c = load_suite(suite).tasks
    assert a.evaluators[0].instance is b.evaluators[0].instance
    assert a.evaluators[0] is not b.evaluators[0]
    assert (a.evaluators[0].origin, b.evaluators[0].origin) == (f"{suite}:5", f"{suite}:8")
    assert a.evaluators[0].spec == b.evaluators[0].spec
    assert a.evaluators[0].spec is not b.evaluators[0].spec  # a copy each: no task edits another's
    assert c.evaluators[0].instance is not a.evaluators[0].instance
    assert c.evaluators[0].instance.config.value == "other"  # type: ignore[attr-defined]


def test_a_type_with_figures_from_rows_shares_one_instance(tmp_path: Path) -> None:
    """bleu's corpus figures come from the stored rows: one instance serves every task, as for
    any other type (one each cost half of a 10,000-task BLEU run's loading)."""
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    a, b, _ = load_suite(suite).tasks
    assert a.evaluators[1].type == "bleu"
    assert a.evaluators[1].instance is b.evaluators[1].instance
    assert a.evaluators[1].origin != b.evaluators[1].origin


class _Legacy(Evaluator[EvaluatorConfig]):
    """Suite figures from the deprecated ``aggregate(instances)``: it needs each task's instance."""

    name = "legacy_figures"
    aggregates = True

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=True, score=1.0)

    @classmethod
    def aggregate(cls, instances: list[Evaluator[Any]]) -> dict[str, Any] | None:
        return {"instances": len(instances)}


class _Plugin:
    @hookimpl
    def bench_register_evaluators(self, register: RegisterEvaluator) -> None:
        register(_Legacy)


def test_a_type_with_the_deprecated_aggregate_keeps_one_instance_per_task(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE.replace('{type: bleu, reference: "the answer is 4"}', "{type: legacy_figures}"))
    registry = build_registry([("bench-test-legacy", "legacy", _Plugin())])
    a, b, _ = load_suite(suite, registry).tasks
    assert a.evaluators[1].type == "legacy_figures"
    assert a.evaluators[1].instance is not b.evaluators[1].instance


def _spin() -> None:
    while True:
        pass


def test_d13_sync_deadline_restores_the_handler_it_found() -> None:
    """The deadline swaps the SIGALRM handler through the C functions: what it found comes back."""

    def outer(signum: int, frame: object) -> None:
        raise AssertionError("not armed")

    previous = signal.signal(signal.SIGALRM, outer)
    try:
        with sync_deadline(5.0):
            assert signal.getsignal(signal.SIGALRM) is not outer
        assert signal.getsignal(signal.SIGALRM) is outer
        with pytest.raises(Exceeded), sync_deadline(0.01):
            _spin()
        assert signal.getsignal(signal.SIGALRM) is outer
    finally:
        signal.signal(signal.SIGALRM, previous)


class _CountingSignal:
    """``signal``'s C functions, counting the timer calls."""

    def __init__(self) -> None:
        self.setitimer_calls = 0

    def setitimer(self, *args: Any) -> Any:
        self.setitimer_calls += 1
        return signal.setitimer(*args)

    def signal(self, *args: Any) -> Any:
        return signal.signal(*args)


def test_d13_deadlines_of_one_loop_step_share_one_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    """200 evaluations in one event-loop step arm the timer once, not three calls each; the step's
    end disarms it and puts back the handler it found."""
    counting = _CountingSignal()
    monkeypatch.setattr(deadline, "_raw", counting)
    found = signal.getsignal(signal.SIGALRM)
    pytest_alarm = signal.setitimer(signal.ITIMER_REAL, 0)  # pytest-timeout's: put back below

    async def step() -> None:
        for _ in range(200):
            with sync_deadline(5.0):
                pass
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0  # armed until the step ends
        await asyncio.sleep(0)
        assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
        assert signal.getsignal(signal.SIGALRM) is found

    try:
        asyncio.run(step())
    finally:
        signal.setitimer(signal.ITIMER_REAL, *pytest_alarm)
    assert counting.setitimer_calls == 3  # read the alarm found, arm, disarm


def test_d13_a_later_block_of_one_step_keeps_its_own_deadline() -> None:
    """The shared timer armed for the first block fires during the second: that one runs its full
    time before it is stopped; a shorter block re-arms it earlier."""
    pytest_alarm = signal.setitimer(signal.ITIMER_REAL, 0)

    async def step() -> tuple[float, float]:
        with sync_deadline(0.15):
            time.sleep(0.1)
        started = time.monotonic()
        with pytest.raises(Exceeded), sync_deadline(0.15):
            _spin()
        full = time.monotonic() - started
        started = time.monotonic()
        with pytest.raises(Exceeded), sync_deadline(0.02):
            _spin()
        return full, time.monotonic() - started

    try:
        full, short = asyncio.run(step())
    finally:
        signal.setitimer(signal.ITIMER_REAL, *pytest_alarm)
    assert 0.14 < full < 1.0
    assert short < 0.1


def test_a_suite_of_distinct_mappings_keeps_only_the_latest_bound() -> None:
    """Tasks with a mapping each (their own expected value) must not hold every binding in memory."""
    binder = Binder(get_registry())
    doc = YamlDocument(Path("suite.yaml"), {}, None)
    first = binder.bind_mapping(doc, ("tasks", 0, "evaluate"), {"expected": "item-0"})
    for i in range(1, 1000):
        binder.bind_mapping(doc, ("tasks", i, "evaluate"), {"expected": f"item-{i}"})
    assert len(binder._bound) == 256
    again = binder.bind_mapping(doc, ("tasks", 0, "evaluate"), {"expected": "item-0"})
    assert again.instance is not first.instance  # forgotten, so bound afresh
    assert again.spec == first.spec


class _Prepared(Evaluator[EvaluatorConfig]):
    """Batches: passes only on a sample its ``prepare`` saw first (an encoder's cache, say)."""

    name = "prepared_first"
    batches = True
    seen: ClassVar[set[str]] = set()

    @classmethod
    async def prepare(cls, items: list[tuple[Evaluator[Any], Sample]]) -> None:
        await asyncio.sleep(0.01)  # a batch takes a while: the other workers run meanwhile
        cls.seen.update(sample.output for _, sample in items)

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=sample.output in self.seen, score=1.0)


class _PreparedPlugin:
    @hookimpl
    def bench_register_evaluators(self, register: RegisterEvaluator) -> None:
        register(_Prepared)


def test_a_task_read_ahead_is_handed_out_only_once_its_chunk_is_prepared(tmp_path: Path) -> None:
    """Workers take read-ahead tasks without the feed's lock; a chunk joins the buffer only after
    ``prepare``, so no worker evaluates a task of a chunk still being prepared."""
    suite = tmp_path / "suite.yaml"
    rows = "".join(
        f"  - {{id: t{i}, response: r{i}, evaluate: {{type: prepared_first}}}}\n" for i in range(600)
    )
    suite.write_text(f"tasks:\n{rows}")
    registry = build_registry([("bench-test-prepared", "prepared", _PreparedPlugin())])
    options = RunOptions(runs_dir=tmp_path / "runs", handle_signals=False, concurrency=8)
    outcome = run_plan(load_suite(suite, registry), options)
    assert outcome.report.summary.passed == 600
