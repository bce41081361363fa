"""What each model call costs bench between the calls: no lock round trips for a free call
slot, no extra task per attempt, no cache key where nothing reads it (benchmarks/README.md,
the model-call rows)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from bench.llm import client as client_module
from bench.llm.client import LLMClient
from bench.llm.judge import Judge, JudgeConfig
from bench.llm.key_gate import KeyGate, within
from bench.llm.limits.throttle import AdaptiveLimit
from bench.llm.request import LLMRequest
from bench.llm.settings import LLMSettings


class _CountingCondition(asyncio.Condition):
    def __init__(self) -> None:
        super().__init__()
        self.entered = 0

    async def __aenter__(self) -> None:
        self.entered += 1
        await super().__aenter__()


def test_a_free_call_slot_is_taken_without_the_condition_lock():
    async def scenario() -> tuple[int, int]:
        limit = AdaptiveLimit(4)
        limit._changed = counting = _CountingCondition()
        async with limit.slot():
            held = limit.in_use
        return counting.entered, held

    assert asyncio.run(scenario()) == (0, 1)


def test_a_queued_call_keeps_its_turn_before_a_later_one_that_finds_the_slot_free():
    async def scenario() -> list[str]:
        limit = AdaptiveLimit(1)
        order: list[str] = []
        release = asyncio.Event()

        async def holder() -> None:
            async with limit.slot():
                order.append("holder")
                await release.wait()

        async def queued() -> None:
            async with limit.slot():
                order.append("queued")

        first = asyncio.ensure_future(holder())
        await asyncio.sleep(0)
        second = asyncio.ensure_future(queued())
        await asyncio.sleep(0)  # "queued" now waits for the slot
        release.set()
        await first  # the slot is free, "queued" not yet woken: a newcomer must not jump it
        async with limit.slot():
            order.append("newcomer")
        await second
        return order

    assert asyncio.run(scenario()) == ["holder", "queued", "newcomer"]


def test_a_proven_keys_attempt_runs_in_the_calling_task():
    async def scenario() -> bool:
        gate = KeyGate()
        gate.prove()

        async def attempt() -> asyncio.Task[Any] | None:
            return asyncio.current_task()

        return await gate.send(attempt(), 5.0, leader=False) is asyncio.current_task()

    assert asyncio.run(scenario())


def test_an_attempt_past_its_timeout_raises_the_timeout_the_client_retries():
    async def scenario() -> None:
        await within(asyncio.sleep(1), 0.01)

    with pytest.raises(asyncio.TimeoutError):
        asyncio.run(scenario())


@pytest.mark.usefixtures("bench_fake_llm")
def test_no_cache_key_is_built_for_a_call_without_a_cache_or_a_batch(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BENCH_LLM_TRANSPORT", "auto")
    keyed: list[str] = []
    real_key = client_module._key

    def counting_key(request: LLMRequest, params: dict[str, Any]) -> str:
        keyed.append(request.model)
        return real_key(request, params)

    monkeypatch.setattr(client_module, "_key", counting_key)

    async def call() -> str | None:
        llm = LLMClient(LLMSettings(cache=False))
        try:
            result = await llm.complete(LLMRequest("openai/fake", [{"role": "user", "content": "hi"}]))
        finally:
            await llm.aclose()
        return result.text

    assert asyncio.run(call()) == "echo: hi"
    assert keyed == []


def test_a_judge_has_its_verdict_reader_imported_before_its_first_answer(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(sys.modules, "json_repair", raising=False)

    class _Judge(Judge[JudgeConfig]):
        pass

    _Judge(JudgeConfig(model="openai/fake"))
    assert "json_repair" in sys.modules
