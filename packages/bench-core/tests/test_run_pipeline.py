"""One run pipeline: ``bench run`` and ``bench.run`` go through the same entry (``bench.api.execute``),
and what a run's parts depend on is given to them when they are built, never patched on afterwards.

Which functions a run calls is observed with a profiler (``sys.setprofile``), not by patching them.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any, ClassVar

import pytest

import bench
import bench.api
from bench import Evaluator, EvaluatorConfig, Executor, Job, Response, Result, Sink, Target, Task
from bench.api import RunResult, execute, run_blocking
from bench.execution import local
from bench.execution.sink import StoreSink
from bench.hookspecs import hookimpl
from bench.llm.client import LLMClient
from bench.pipeline.options import RunOptions
from bench.plugins.registry import build_registry
from bench.testing import run_suite, write_suite

ECHO = """\
name: echoed
target: {type: echo}
tasks:
  - {id: a, prompt: hello, evaluate: {expected: hello}}
  - {id: b, prompt: world, evaluate: {expected: world}}
"""
PRICED = """\
target: {type: litellm, model: openai/gpt-4o-mini}
pricing:
  models:
    - {model: openai/gpt-4o-mini, input_cost_per_million_tokens: 1, output_cost_per_million_tokens: 2}
tasks:
  - {id: a, prompt: "What is the capital of France?", evaluate: {expected: Paris}}
"""


def called(work: Callable[[], Any]) -> set[CodeType]:
    """The code of every Python function called (in this thread) while ``work()`` runs."""
    seen: set[CodeType] = set()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            seen.add(frame.f_code)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return seen


def test_bench_run_and_the_python_api_go_through_the_same_entry(bench_cli: Any, tmp_path: Path) -> None:
    path = write_suite(tmp_path, ECHO)
    from_cli = called(lambda: bench_cli("run", path, "--runs-dir", tmp_path / "runs"))
    from_python = called(lambda: bench.run(path, runs_dir=tmp_path / "runs"))
    entry = execute.__code__
    assert entry in from_python
    assert entry in from_cli


def test_the_dry_run_builds_no_llm_client(bench_cli: Any, tmp_path: Path) -> None:
    building = LLMClient.__init__.__code__
    dry = write_suite(tmp_path, PRICED, "priced.yaml")
    calls = called(lambda: bench_cli("run", dry, "--dry-run"))
    assert building not in calls
    # The same look sees the client a run builds: the dry run's absence of one is real.
    echo = write_suite(tmp_path, ECHO)
    assert building in called(lambda: bench_cli("run", echo, "--runs-dir", tmp_path / "runs"))


class Seeing(Target):
    """Answers with the prompt; remembers the LLM client each instance had when it was built."""

    name = "seeing"
    built_with: ClassVar[list[LLMClient | None]] = []

    def __init__(self, config: Any, suite: Any) -> None:
        super().__init__(config, suite)
        Seeing.built_with.append(self.llm)

    async def respond(self, task: Task) -> Response:
        return Response(output=task.prompt if isinstance(task.prompt, str) else "")


class _Targets:
    @hookimpl
    def bench_register_targets(self, register: Any) -> None:
        register(Seeing)


def test_a_target_has_the_run_client_from_its_constructor(tmp_path: Path) -> None:
    Seeing.built_with.clear()
    path = write_suite(tmp_path, ECHO.replace("{type: echo}", "{type: seeing}"))
    registry = build_registry([("bench-test-seeing", "seeing", _Targets())])
    outcome = run_suite(path, runs_dir=tmp_path / "runs", registry=registry)
    assert outcome.report.summary.passed == 2
    loaded, for_the_run = Seeing.built_with
    assert loaded is None  # loading the suite calls nothing
    assert isinstance(for_the_run, LLMClient)


def test_the_local_runner_is_built_with_the_sinks_recorder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records: list[Any] = []

    class Recorded(local.Runner):
        def __init__(self, target: Any, record: Any, **settings: Any) -> None:
            records.append(record)
            super().__init__(target, record, **settings)

    monkeypatch.setattr(local, "Runner", Recorded)
    outcome = run_suite(write_suite(tmp_path, ECHO), runs_dir=tmp_path / "runs")
    assert outcome.report.summary.passed == 2
    [record] = records
    assert isinstance(getattr(record, "__self__", None), StoreSink)
    assert record.__func__ is StoreSink.record


class Legacy(Evaluator[EvaluatorConfig]):
    """Implements only the deprecated ``aggregate``: figures from the instances that ran."""

    name = "legacy_counted"
    aggregates = True

    def __init__(self, config: EvaluatorConfig) -> None:
        super().__init__(config)
        self.seen = 0

    def evaluate(self, sample: Any) -> Result:
        self.seen += 1
        return Result(passed=True, score=1.0)

    @classmethod
    def aggregate(cls, instances: list[Evaluator[Any]]) -> dict[str, Any] | None:
        return {"samples": sum(getattr(i, "seen", 0) for i in instances)}


class Delegating(Executor):
    """Runs the tasks here through the local executor it holds (not a ``LocalExecutor`` itself)."""

    name = "delegating"

    async def open(self, job: Job) -> None:
        self.inner = local.LocalExecutor(self.settings)
        await self.inner.open(job)

    async def run(self, job: Job, sink: Sink) -> None:
        await self.inner.run(job, sink)
        self.interrupted, self.stopped = self.inner.interrupted, self.inner.stopped

    async def close(self) -> None:
        await self.inner.close()


class _Plugin:
    @hookimpl
    def bench_register_evaluators(self, register: Any) -> None:
        register(Legacy)

    @hookimpl
    def bench_register_executors(self, register: Any) -> None:
        register(Delegating)


def test_deprecated_figures_come_from_any_executor_that_evaluates_here(tmp_path: Path) -> None:
    path = write_suite(
        tmp_path,
        "tasks:\n"
        + "".join(f"  - {{id: t{i}, response: x, evaluate: {{type: legacy_counted}}}}\n" for i in range(3)),
    )
    registry = build_registry([("bench-test-delegating", "delegating", _Plugin())])
    options = RunOptions(runs_dir=tmp_path / "runs", executor="delegating", handle_signals=False)
    result = run_blocking(lambda: execute(path, options, registry=registry))
    assert isinstance(result, RunResult)
    assert result.report.extra["aggregates"] == {"legacy_counted": {"type": "legacy_counted", "samples": 3}}


def test_every_keyword_of_bench_run_is_a_field_of_the_run_options() -> None:
    fields = {field.name for field in dataclasses.fields(RunOptions)}
    keywords = set(bench.api.RunKeywords.__annotations__) - {"progress"}  # the observer, not an option
    assert keywords - fields == set()


def test_the_result_says_what_was_selected(tmp_path: Path) -> None:
    path = write_suite(tmp_path, ECHO)
    chosen = bench.run(path, runs_dir=tmp_path / "runs", select=bench.Selection(keyword="b"))
    assert [task.id for task in chosen] == ["b"]
    assert chosen.selected == "selected 1 of 2 tasks (-k 'b')"
    assert bench.run(path, runs_dir=tmp_path / "runs").selected is None
