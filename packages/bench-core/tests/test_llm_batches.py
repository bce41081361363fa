"""The LLM client's calls through the providers' batch APIs, against the fake server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bench.llm.batch.collector import Batcher, BatchesPending
from bench.llm.batch.ledger import Ledger
from bench.llm.client import LLMClient
from bench.llm.request import LLMRequest
from bench.llm.settings import LLMSettings, PriceRow, Pricing
from bench.testing.batches import BatchPlan
from bench.testing.server import FakeLLMServer, Fault, Reply
from bench.vocabulary.errors import ModelCallError

PRICES = Pricing(
    models=[
        PriceRow(model="openai/fake", input_cost_per_million_tokens=2.0, output_cost_per_million_tokens=4.0),
        PriceRow(
            model="anthropic/fake", input_cost_per_million_tokens=2.0, output_cost_per_million_tokens=4.0
        ),
    ]
)


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def client(tmp_path: Path, *, detach: bool = False, retry_live: bool = False, **settings) -> LLMClient:
    llm = LLMClient(
        LLMSettings(batch=True, max_attempts=1, **settings), pricing=PRICES, cache_path=tmp_path / "cache.db"
    )
    llm.batcher = Batcher.at(
        tmp_path / "run" / "batches",
        llm.calls.transport,
        llm.prices,
        detach=detach,
        retry_live=retry_live,
        poll_s=0.01,
        settle_s=0.05,
    )
    return llm


def ask(server: FakeLLMServer, text: str, model: str = "openai/fake", **kw) -> LLMRequest:
    return LLMRequest(model=model, messages=[{"role": "user", "content": text}], api_base=server.url, **kw)


async def run_all(llm: LLMClient, requests: list[LLMRequest]) -> list:
    try:
        return await asyncio.gather(*(llm.complete(r) for r in requests), return_exceptions=True)
    finally:
        await llm.aclose()


def test_calls_at_once_go_in_one_batch_at_the_batch_price_and_a_rerun_makes_no_call(tmp_path):
    with FakeLLMServer() as server:
        server.batches.plan(BatchPlan(polls=2))
        requests = [ask(server, f"q{i}") for i in range(5)]
        results = asyncio.run(run_all(client(tmp_path), requests))
        assert [r.text for r in results] == [f"echo: q{i}" for i in range(5)]
        assert server.batches.count("POST /v1/files") == 1
        assert server.batches.count("POST /v1/batches") == 1
        assert server.count() == 0  # nothing live
        # 10 tokens in, 5 out at half of $2 / $4 per million
        assert results[0].usage.cost_usd == pytest.approx((10 * 1.0 + 5 * 2.0) / 1e6)
        again = client(tmp_path)
        replayed = asyncio.run(run_all(again, requests))
        assert [r.text for r in replayed] == [r.text for r in results]
        assert all(r.cached for r in replayed)
        assert server.batches.count("POST /v1/batches") == 1


def test_a_call_that_needs_an_answer_goes_in_a_second_batch(tmp_path):
    async def stages(llm: LLMClient, server: FakeLLMServer) -> list[str]:
        async def task(i: int) -> str:
            answer = await llm.complete(ask(server, f"task {i}"))
            verdict = await llm.complete(ask(server, f"judge {answer.text}", purpose="judge"))
            return verdict.text or ""

        try:
            return list(await asyncio.gather(*(task(i) for i in range(4))))
        finally:
            await llm.aclose()

    with FakeLLMServer() as server:
        verdicts = asyncio.run(stages(client(tmp_path), server))
        assert verdicts == [f"echo: judge echo: task {i}" for i in range(4)]
        assert server.batches.count("POST /v1/batches") == 2
        assert server.count() == 0


def test_anthropic_calls_go_to_message_batches(tmp_path):
    with FakeLLMServer() as server:
        server.add(Reply("Paris"), match="capital")
        requests = [
            LLMRequest(
                model="anthropic/fake",
                messages=[{"role": "system", "content": "brief"}, {"role": "user", "content": "capital?"}],
                api_base=server.url,
            )
        ]
        (result,) = asyncio.run(run_all(client(tmp_path), requests))
        assert result.text == "Paris"
        assert server.batches.count("POST /v1/messages/batches") == 1
        assert server.batches.ran == [
            {
                "model": "fake",
                "messages": [{"role": "user", "content": "capital?"}],
                "max_tokens": 4096,
                "system": "brief",
            }
        ]


def test_expired_requests_go_in_a_new_batch_and_a_refused_one_fails(tmp_path):
    with FakeLLMServer() as server:
        server.add(Fault(400, message="bad request"), match="refused")
        server.batches.plan(BatchPlan(end="expired", finished=2))
        requests = [ask(server, "a"), ask(server, "b"), ask(server, "refused"), ask(server, "c")]
        results = asyncio.run(run_all(client(tmp_path, cache=False), requests))
        assert [getattr(r, "text", None) for r in results] == ["echo: a", "echo: b", None, "echo: c"]
        assert isinstance(results[2], ModelCallError)
        assert "400 from openai/fake in batch batch_" in str(results[2])
        assert str(results[2]).endswith(": bad request")
        assert server.batches.count("POST /v1/batches") == 2  # the expired "c" went again


def test_with_retry_live_the_expired_requests_are_called_live(tmp_path):
    with FakeLLMServer() as server:
        server.batches.plan(BatchPlan(end="cancelled", finished=1))
        requests = [ask(server, "a"), ask(server, "b")]
        llm = client(tmp_path, retry_live=True, cache=False)
        results = asyncio.run(run_all(llm, requests))
        assert [r.text for r in results] == ["echo: a", "echo: b"]
        assert server.batches.count("POST /v1/batches") == 1
        assert server.count() == 1
        assert isinstance(llm.batcher, Batcher)
        assert llm.batcher.summary.live_retries == 1


def test_detach_stops_after_submitting_and_a_resume_collects_without_submitting_again(tmp_path):
    with FakeLLMServer() as server:
        server.batches.plan(BatchPlan(polls=3))
        requests = [ask(server, f"q{i}") for i in range(3)]
        stopped = asyncio.run(run_all(client(tmp_path, detach=True), requests))
        assert all(isinstance(r, BatchesPending) for r in stopped)
        assert str(stopped[0]).startswith("waiting on batches: batch_")
        (entry,) = Ledger(tmp_path / "run" / "batches").waiting()
        assert entry.batch_id is not None
        results = asyncio.run(run_all(client(tmp_path), requests))
        assert [r.text for r in results] == ["echo: q0", "echo: q1", "echo: q2"]
        assert server.batches.count("POST /v1/batches") == 1
        assert Ledger(tmp_path / "run" / "batches").waiting() == []


def test_an_intent_without_its_id_is_found_by_its_token_not_submitted_again(tmp_path):
    """A run killed after the submit request and before its id was written."""
    with FakeLLMServer() as server:
        requests = [ask(server, f"q{i}") for i in range(2)]
        asyncio.run(run_all(client(tmp_path, detach=True), requests))
        ledger = tmp_path / "run" / "batches" / "ledger.jsonl"
        lines = ledger.read_text().splitlines()
        assert [json.loads(line)["event"] for line in lines] == ["intent", "submitted"]
        ledger.write_text(lines[0] + "\n")  # as if killed before the id was written
        results = asyncio.run(run_all(client(tmp_path), requests))
        assert [r.text for r in results] == ["echo: q0", "echo: q1"]
        assert server.batches.count("POST /v1/batches") == 1
        assert server.batches.count("GET /v1/batches") == 1  # looked up by its metadata


def test_batch_prices_come_from_litellms_map_where_it_has_them():
    from bench.llm.accounting import Prices

    prices = Prices(Pricing())
    live = prices.per_token("openai/gpt-4o-mini")
    batch = prices.batch_per_token("openai/gpt-4o-mini")
    assert live is not None
    assert batch is not None
    assert batch[0] == pytest.approx(live[0] / 2)
    assert prices.batch_per_token("openai/no-such-model") is None
