"""Per-task overhead: what makes 10,000 recorded tasks cheap must not change them.

Tasks that repeat one evaluator mapping share its configured instance (validated once), yet each
keeps its own origin; only a type whose suite figures come from its instances (the deprecated
``aggregate``) keeps one per task.
"""

from __future__ import annotations

import asyncio
import json
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
from bench.vocabulary.models import Task

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


REUSED = """\
name: reused
evaluators:
  polite: {type: contains, value: please}
tasks:
  - id: a
    vars: {capital: Paris}
    response: "It is Paris, please."
    evaluate: [polite, {type: contains, value: "{capital}"}, {type: contains, value: It}]
  - id: b
    vars: {capital: Berlin}
    response: "It is Berlin."
    evaluate: [polite, {type: contains, value: "{capital}"}, {type: contains, value: It}]
  - id: c
    response: "hello"
    conversation: {turns: [{user: hi, evaluate: [polite, {type: contains, value: It}]}]}
  - id: d
    response: "hello"
    conversation: {turns: [{user: hi, evaluate: [polite, {type: contains, value: It}]}]}
"""


def test_tasks_writing_the_same_checks_bind_them_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the first task that writes a set of checks binds it; the next gets copies."""
    rows = tmp_path / "tasks.jsonl"
    checks = [{"type": "contains", "value": "answer"}, {"type": "regex", "value": r"\d+"}]
    lines = (json.dumps({"id": f"t{i}", "response": "x", "evaluate": checks}) for i in range(50))
    rows.write_text("\n".join(lines) + "\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: rows\ntasks: tasks.jsonl\n")
    calls: list[Any] = []
    bind = Binder.bind
    monkeypatch.setattr(Binder, "bind", lambda self, *args: calls.append(args) or bind(self, *args))
    tasks = list(load_suite(suite).tasks)
    assert len(calls) == 2
    assert [e.origin for e in tasks[49].evaluators] == [f"{rows}:50", f"{rows}:50"]
    assert tasks[49].evaluators[1].instance is tasks[0].evaluators[1].instance


def test_a_templated_check_still_sees_each_tasks_own_vars(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(REUSED)
    a, b, _, _ = load_suite(suite).tasks
    assert [e.instance.config.value for e in (a.evaluators[1], b.evaluators[1])] == ["Paris", "Berlin"]  # type: ignore[attr-defined]
    assert a.evaluators[2].instance is b.evaluators[2].instance
    assert (a.evaluators[2].origin, b.evaluators[2].origin) == (f"{suite}:8", f"{suite}:12")


def test_reused_checks_keep_the_suites_evaluator_and_each_turns_name(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(REUSED)
    plan = load_suite(suite)
    a, b, c, d = plan.tasks
    assert a.evaluators[0] is plan.named_evaluators["polite"] is b.evaluators[0]
    assert [e.name for e in d.evaluators] == ["turn 1: polite", "turn 1: contains"]
    assert [e.turn for e in d.evaluators] == [1, 1]
    assert c.evaluators[0] is not d.evaluators[0]
    assert (c.evaluators[0].origin, d.evaluators[0].origin) == (plan.named_evaluators["polite"].origin,) * 2
    assert (c.evaluators[1].origin, d.evaluators[1].origin) == (f"{suite}:15", f"{suite}:18")


def test_a_built_task_is_the_one_model_construct_makes(tmp_path: Path) -> None:
    """Tasks are made without pydantic's walk over the fields: the same fields, order and set."""
    suite = tmp_path / "suite.yaml"
    suite.write_text(REUSED)
    for task in (planned.task for planned in load_suite(suite).tasks):
        given = {name: value for name, value in task.__dict__.items() if name in task.model_fields_set}
        made = Task.model_construct(**given)
        assert list(task.__dict__.items()) == list(made.__dict__.items())
        assert task.model_fields_set == made.model_fields_set
        assert (task.__pydantic_extra__, task.__pydantic_private__) == (None, None)
        assert task == made
        assert repr(task) == repr(made)


def test_what_each_tasks_checks_call_and_need_is_kept_when_they_change(tmp_path: Path) -> None:
    """The index asks a task's evaluators what they call only when they differ from the last
    task's: a judge after two plain tasks, then a plain one again, is still counted."""
    plain = "evaluate: [{type: contains, value: x}]"
    judge = "evaluate: [{type: llm_judge, prompt: 'ok? {response}', model: openai/judge-b, calibration: {labels: l.jsonl}}]"
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: mixed\ntasks:\n"
        + "".join(
            f"  - {{id: t{i}, response: x, {body}}}\n" for i, body in enumerate([plain, plain, judge, plain])
        )
    )
    plan = load_suite(suite)
    assert {endpoint.model for endpoint in plan.endpoints} == {"openai/judge-b"}
    assert plan.calibrated
