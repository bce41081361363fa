"""A worker's batched calls answered by the driver's batches (bench.llm.batch.relay): what the
driver's batches say reaches the worker's call as it would have in one process."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bench.distributed import RelayedBatches, answer_batched
from bench.llm.batch.collector import BatchesPending
from bench.llm.request import LLMRequest, LLMResult
from bench.vocabulary.errors import ModelCallError, RunStopped
from bench.vocabulary.models import Usage

Live = Callable[[], Awaitable[LLMResult]]


def _result(text: str) -> LLMResult:
    return LLMResult("openai/fake", text, [], "stop", Usage(input_tokens=3, output_tokens=2))


class _DriverBatches:
    """The driver's batches, scripted: each call's outcome by its request id."""

    def __init__(self, outcomes: dict[str, Any]) -> None:
        self.outcomes = outcomes
        self.asked: list[str] = []

    async def complete(self, request: LLMRequest, params: dict[str, Any], rid: str, live: Live) -> LLMResult:
        self.asked.append(rid)
        outcome = self.outcomes[rid]
        if outcome == "live":
            return await live()
        if isinstance(outcome, Exception):
            raise outcome
        return _result(str(outcome))


def _worker(driver: _DriverBatches) -> RelayedBatches:
    """A worker's batches whose transport reaches the driver in this process (Ray's relay elsewhere)."""
    return RelayedBatches(lambda request, params, rid: answer_batched(driver, request, params, rid))


async def _ask(worker: RelayedBatches, rid: str, live: Live | None = None) -> LLMResult:
    async def never() -> LLMResult:
        raise AssertionError("not called live")

    request = LLMRequest("openai/fake", [{"role": "user", "content": rid}])
    return await worker.complete(request, {}, rid, live or never)


def test_a_relayed_call_gets_the_drivers_answer_and_only_the_driver_keeps_batches() -> None:
    driver = _DriverBatches({"a": "first", "b": "second"})
    worker = _worker(driver)

    async def both() -> list[LLMResult]:
        return await asyncio.gather(_ask(worker, "a"), _ask(worker, "b"))

    answers = asyncio.run(both())
    assert [a.text for a in answers] == ["first", "second"]
    assert driver.asked == ["a", "b"]
    assert (worker.waiting(), worker.report()) == (False, {})
    request = LLMRequest("openai/fake", [{"role": "user", "content": "x"}])
    assert worker.takes(request, {})
    assert not worker.takes(request, {"n": 2})


def test_a_call_the_driver_gives_up_to_live_is_called_live_by_the_worker() -> None:
    worker = _worker(_DriverBatches({"a": "live"}))

    async def live() -> LLMResult:
        return _result("answered live here")

    assert asyncio.run(_ask(worker, "a", live)).text == "answered live here"


@pytest.mark.parametrize(
    ("raised", "message"),
    [
        (
            ModelCallError(
                "400 from openai/fake in batch b1: bad", model="openai/fake", status=400, attempts=2
            ),
            None,
        ),
        (BatchesPending("waiting on batches: b1 has not ended"), None),
        (RunStopped("budget runtime_limits.max_cost_usd reached"), None),
        # an error of the driver's own (a poll that failed): the worker's call fails, naming the model
        (ConnectionError("connection reset"), "openai/fake: connection reset"),
    ],
)
def test_the_drivers_errors_reach_the_workers_call(raised: Exception, message: str | None) -> None:
    worker = _worker(_DriverBatches({"a": raised}))
    kind = ModelCallError if message else type(raised)
    with pytest.raises(kind) as caught:
        asyncio.run(_ask(worker, "a"))
    assert type(caught.value) is kind
    assert str(caught.value) == (message or str(raised))
    if isinstance(raised, ModelCallError):
        assert isinstance(caught.value, ModelCallError)
        assert (caught.value.model, caught.value.status, caught.value.attempts) == ("openai/fake", 400, 2)
