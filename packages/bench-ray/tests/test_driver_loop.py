"""The driver's loop without a cluster: fake worker handles answer like Ray's actor handles."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from bench import ExecutorSettings, Job
from bench.distributed import PlanRow

pytest.importorskip("bench_ray", reason="bench-ray is not installed (its own nox session installs it)")

from bench_ray.executor import RayExecutor
from bench_ray.handshake import identity
from bench_ray.options import RayOptions, Resources
from bench_ray.pools import Group


class _Method:
    def __init__(self, call: Any) -> None:
        self.remote = call


class _Worker:
    """A worker handle: ``run_chunk`` streams one batch, or its actor dies first."""

    def __init__(self, lost: bool = False, stopped: str | None = None, ready: bool = True) -> None:
        from ray.exceptions import RayActorError

        self.chunks: list[list[str]] = []

        async def run_chunk(rows: list[PlanRow], repeats: bool) -> Any:
            self.chunks.append([key for row in rows for key in row.keys])
            if lost:
                raise RayActorError()
            results: list[tuple[str, str, dict[str, Any], str]] = [
                (key, "passed", {}, f'{{"id": "{key}"}}') for row in rows for key in row.keys
            ]
            yield _done({"results": results, "stopped": stopped})

        async def answer() -> dict[str, Any]:
            if not ready:
                raise RayActorError()
            return identity([])

        self.run_chunk = _Method(run_chunk)
        self.ready = _Method(answer)


def _done(value: Any) -> asyncio.Future[Any]:
    future = asyncio.get_running_loop().create_future()
    future.set_result(value)
    return future


@dataclass
class _Plan:
    keys: list[str]
    max_repeat: int = 1

    def rows(self) -> Any:
        return iter([PlanRow(i, {}, f"d{i}", (key,)) for i, key in enumerate(self.keys)])


class _Sink:
    def __init__(self) -> None:
        self.landed: list[str] = []

    def record(self, result: Any) -> None:
        raise AssertionError("the driver lands what workers made")

    def land(self, line: str, status: str, stats: dict[str, Any]) -> None:
        self.landed.append(line)


def _executor(workers: list[_Worker]) -> RayExecutor:
    executor = RayExecutor(ExecutorSettings(chunk=1))
    executor.ray_options = RayOptions(in_flight=1)
    executor.workers = workers
    executor.groups = [Group(None, Resources(), list(range(len(workers))))]
    executor.coordinator = type("Coordinator", (), {"stop": _Method(lambda reason: None)})()
    executor.identity = identity([])
    return executor


@pytest.mark.parametrize("back", [True, False], ids=["lost-worker-answers-again", "lost-worker-stays-down"])
def test_c18_a_stop_ends_the_run_while_a_lost_workers_chunk_waits_to_run_again(back: bool) -> None:
    # One worker dies with its chunk, the other reports a budget stop: a stopped run hands out no
    # more chunks, so the lost chunk stays for --resume and the loop must end (it probed the lost
    # worker forever, or, once it answered, waited on nothing: ValueError from asyncio.wait).
    lost, stopping = _Worker(lost=True, ready=back), _Worker(stopped="budget judge reached")
    executor = _executor([lost, stopping])
    sink = _Sink()
    job = Job(_Plan(["a", "b", "c"]), None, executor.settings, llm=None)  # type: ignore[arg-type]

    async def run() -> None:
        await asyncio.wait_for(executor.run(job, sink), 5)

    asyncio.run(run())
    assert executor.stopped == "budget judge reached"
    assert (lost.chunks, stopping.chunks) == ([["a"]], [["b"]])
    assert sink.landed == ['{"id": "b"}']


def test_a_worker_that_fails_to_load_ends_the_wait_for_the_others_with_its_error():
    # One worker cannot load the suite while another is never placed: the load error comes at
    # once, not the other's placement timeout a minute later.
    from bench_ray.executor import not_ready

    async def scenario() -> None:
        failed = asyncio.get_running_loop().create_future()
        failed.set_exception(FileNotFoundError("suite.yaml"))
        never = asyncio.get_running_loop().create_future()
        with pytest.raises(FileNotFoundError, match=r"suite\.yaml"):
            await asyncio.wait_for(not_ready([never, failed], timeout=60), 5)
        never.cancel()

    asyncio.run(scenario())


def test_workers_still_starting_at_the_timeout_are_named_by_position():
    from bench_ray.executor import not_ready

    async def scenario() -> list[int]:
        answered = asyncio.get_running_loop().create_future()
        answered.set_result({})
        never = asyncio.get_running_loop().create_future()
        late = await not_ready([answered, never], timeout=0.05)
        never.cancel()
        return late

    assert asyncio.run(scenario()) == [1]


def test_f17_a_lost_batch_relay_fails_the_run_instead_of_leaving_its_calls_waiting():
    # With --batch a worker's chunk waits on the driver's answers through the relay actor: a
    # relay lost for good fails the run at once (the workers' calls would wait forever).
    from types import SimpleNamespace

    from ray.exceptions import RayActorError

    async def waiting(rows: list[PlanRow], repeats: bool) -> Any:
        await asyncio.Event().wait()  # its calls wait on their batch
        yield None

    async def take(wait_s: float) -> Any:
        raise RayActorError()

    worker = _Worker()
    worker.run_chunk = _Method(waiting)
    executor = _executor([worker])
    executor.relay = SimpleNamespace(take=_Method(take))
    job = Job(_Plan(["a"]), None, executor.settings, llm=SimpleNamespace(batcher=object()))  # type: ignore[arg-type]

    async def run() -> None:
        await asyncio.wait_for(executor.run(job, _Sink()), 5)

    with pytest.raises(RayActorError):
        asyncio.run(run())
