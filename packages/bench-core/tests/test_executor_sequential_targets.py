"""An executor declares that it runs targets which keep state between tasks
(``Executor.sequential_targets``): a plugin's executor that does runs such a suite, one that does
not is refused before anything runs, whatever either is named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError, Executor, Job, Response, Sink, Target, Task
from bench.api import RunResult, execute, run_blocking
from bench.execution import local
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.plugins.registry import Registry, build_registry
from bench.testing import run_suite, write_suite

SUITE = """\
concurrency: 1
target: {type: counting}
tasks:
  - {id: a, prompt: x, evaluate: {expected: "1"}}
  - {id: b, prompt: x, evaluate: {expected: "2"}}
"""
WHY = "it counts the tasks it answered in this process"


class Counting(Target):
    """Answers how many tasks it has answered: right only when one instance answers all, in order."""

    name = "counting"

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.answered = 0

    def sequential(self) -> str | None:
        return WHY

    async def respond(self, task: Task) -> Response:
        self.answered += 1
        return Response(output=str(self.answered))


class _InProcess(Executor):
    """A third party's executor that runs the tasks here, through a local executor it holds."""

    name = "in-process"
    sequential_targets = True

    async def open(self, job: Job) -> None:
        self.inner = local.LocalExecutor(self.settings)
        await self.inner.open(job)

    async def run(self, job: Job, sink: Sink) -> None:
        await self.inner.run(job, sink)

    async def close(self) -> None:
        await self.inner.close()


class _Elsewhere(_InProcess):
    """The same, but it does not declare that it keeps a target's state."""

    name = "elsewhere"
    sequential_targets = False


class _Plugin:
    @hookimpl
    def bench_register_targets(self, register: Any) -> None:
        register(Counting)

    @hookimpl
    def bench_register_executors(self, register: Any) -> None:
        register(_InProcess)
        register(_Elsewhere)


@pytest.fixture(scope="module")
def registry() -> Registry:
    return build_registry([("bench-test-sequential", "sequential", _Plugin())])


def _run(tmp_path: Path, registry: Registry, executor: str) -> RunResult:
    path = write_suite(tmp_path, SUITE)
    options = RunOptions(runs_dir=tmp_path / "runs", executor=executor, handle_signals=False)
    result = run_blocking(lambda: execute(path, options, registry=registry))
    assert isinstance(result, RunResult)
    return result


def test_an_executor_declaring_sequential_targets_runs_a_sequential_target(tmp_path, registry):
    result = _run(tmp_path, registry, "in-process")
    assert [(task.id, task.response, task.passed) for task in result] == [("a", "1", True), ("b", "2", True)]


def test_an_executor_without_sequential_targets_is_refused_before_anything_runs(tmp_path, registry):
    with pytest.raises(ConfigError) as refused:
        _run(tmp_path, registry, "elsewhere")
    assert (
        str(refused.value)
        == f"--executor elsewhere cannot run this suite: {WHY}; run it with the local executor"
    )
    assert not (tmp_path / "runs").exists()


def test_an_executor_that_is_not_installed_is_refused_with_the_targets_reason(tmp_path, registry):
    # bench.testing.run_suite loads the plan itself: the executor is first looked up at the check
    path = write_suite(tmp_path, SUITE)
    with pytest.raises(ConfigError) as refused:
        run_suite(path, runs_dir=tmp_path / "runs", registry=registry, executor="nowhere")
    assert (
        str(refused.value)
        == f"--executor nowhere cannot run this suite: {WHY}; run it with the local executor"
    )
