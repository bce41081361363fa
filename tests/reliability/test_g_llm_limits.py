"""docs/reliability.md group G for model calls: rate limits across providers and tasks (G03-G05)."""

from __future__ import annotations

import asyncio
import random
import statistics
import time

import pytest

from bench.llm.client import LLMClient
from bench.llm.request import LLMRequest
from bench.llm.settings import LLMSettings
from bench.testing import run_suite
from bench.testing.server import FakeLLMServer, Fault, Reply
from bench.vocabulary.errors import ModelCallError

# Every test here runs on both paths of the LLM client (the root conftest.py).
pytestmark = pytest.mark.usefixtures("llm_transport")


def _suite(bench_suite_file, tasks: int, extra: str = "") -> object:
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'question {i}', evaluate: {{expected: echo}}}}\n" for i in range(tasks)
    )
    return bench_suite_file(f"target: {{type: litellm, model: openai/fake}}\n{extra}tasks:\n{rows}")


def test_g03_a_rate_limited_provider_does_not_slow_the_other(bench_fake_llm):
    bench_fake_llm.add(Fault(429, retry_after=3))  # provider A: every request rate-limited
    client = LLMClient(LLMSettings(cache=False, concurrency=4, max_attempts=2))

    async def call(base: str, i: int) -> float:
        request = LLMRequest("openai/fake", [{"role": "user", "content": f"q{i}"}], api_base=base)
        await client.complete(request)
        return time.monotonic()

    async def both(healthy: FakeLLMServer) -> tuple[list[object], list[float]]:
        await call(healthy.url, -1)  # litellm's first-call warm-up is not what this measures
        limited = [asyncio.ensure_future(call(bench_fake_llm.url, i)) for i in range(8)]
        await asyncio.sleep(0.2)  # A is now in its 429 episode
        started = time.monotonic()
        finished = await asyncio.gather(*(call(healthy.url, i) for i in range(8)))
        return await asyncio.gather(*limited, return_exceptions=True), [t - started for t in finished]

    with FakeLLMServer() as healthy:
        healthy.add(Reply("ok", latency_s=0.2))
        failed, took = asyncio.run(both(healthy))
    assert all(isinstance(f, ModelCallError) for f in failed)
    assert healthy.max_in_flight == 4  # B kept its full concurrency
    assert max(took) < 1.5  # two rounds of 0.2 s, not held behind A's 3 s Retry-After
    assert client.limits.for_provider(f"openai@{bench_fake_llm.url}").limit == 2
    client.close()


def test_g04_simultaneous_429s_retry_at_jittered_times(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(429), times=16)  # every task's first request, no Retry-After
    outcome = run_suite(_suite(bench_suite_file, 16, "llm: {cache: false}\n"), concurrency=16)
    assert outcome.report.summary.passed == 16
    retries = sorted(r.at for r in bench_fake_llm.requests[16:])
    assert len(retries) == 16
    assert retries[-1] - retries[0] > 0.4  # spread over the jitter window, not one wave
    assert statistics.pstdev(retries) > 0.1


def test_g04_jitter_is_added_on_top_of_retry_after():
    from bench.llm.failures import retry_wait

    draws = random.Random(4)  # sixteen tasks rate-limited at once, each drawing its own jitter
    waits = [retry_wait(1, 1.0, 60.0, draws.uniform) for _ in range(16)]
    assert all(1.0 <= w <= 2.0 for w in waits)  # never before Retry-After, within a 1 s window
    assert max(waits) - min(waits) > 0.5  # not one synchronised wave at exactly 1 s
    assert len(set(waits)) == 16
    # Retry-After plus the top of the window (2 s on the second attempt); without Retry-After
    # the jitter alone; never over max_wait.
    assert retry_wait(2, 1.0, 60.0, lambda low, high: high) == 3.0
    assert retry_wait(2, None, 60.0, lambda low, high: high) == 2.0
    assert retry_wait(1, 30.0, 10.0, lambda low, high: high) == 10.0


def test_g04_a_task_in_backoff_holds_no_connection_slot(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(429, retry_after=3), match="question 0", times=1)
    bench_fake_llm.add(Reply("echo", latency_s=0.1))
    path = _suite(bench_suite_file, 5, "llm: {concurrency: 2, cache: false}\n")
    outcome = run_suite(path, concurrency=5)
    assert outcome.report.summary.passed == 5
    _, retry = [r for r in bench_fake_llm.requests if "question 0" in r.last_user_text]
    others = [r.at for r in bench_fake_llm.requests if "question 0" not in r.last_user_text]
    assert max(others) < retry.at  # the four others ran while task 0 slept for 3 s


def test_g05_waiting_for_a_slot_is_bounded(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Reply("echo", latency_s=1.5))
    path = _suite(bench_suite_file, 2, "llm: {concurrency: 1, queue_timeout: 0.5, cache: false}\n")
    tasks = sorted(run_suite(path, concurrency=2).report.tasks(), key=lambda t: t["status"])
    assert [t["status"] for t in tasks] == ["error", "passed"]
    assert tasks[0]["error"] == (
        "openai/fake: no free call slot after waiting 0.5 s (at most 1 call at a time to this "
        "provider); raise llm.queue_timeout or llm.concurrency"
    )
    assert bench_fake_llm.count() == 1


def test_g05_waiting_time_is_recorded_apart_from_latency(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Reply("echo", latency_s=0.6))
    path = _suite(bench_suite_file, 2, "llm: {concurrency: 1, cache: false}\n")
    first, second = sorted(
        (t["usage"] for t in run_suite(path, concurrency=2).report.tasks()), key=lambda u: u["wait_ms"]
    )
    assert first["wait_ms"] < 300
    assert second["wait_ms"] >= 500  # it waited for the first call's slot
    assert 600 <= second["latency_ms"] < second["wait_ms"] + 600
    assert 600 <= first["latency_ms"] < 1500
