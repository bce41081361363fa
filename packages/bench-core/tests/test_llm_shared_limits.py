"""Clients sharing limits, breaker and budgets through one LocalCoordinator, against the fake server."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from pathlib import Path

import pytest

from bench.llm.client import LLMClient
from bench.llm.limits.coordination import Deltas, LeaseBook, Leases, LocalCoordinator
from bench.llm.request import LLMRequest
from bench.llm.settings import LLMSettings, PriceRow, Pricing, RuntimeLimits
from bench.testing import FakeLLMServer, Fault
from bench.vocabulary.errors import ModelCallError, RunStopped

INTERVAL = 0.1  # seconds between syncs (1 s in a real run)
LATENCY = 0.05  # seconds per answer


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _request(server: FakeLLMServer, text: str = "q") -> LLMRequest:
    return LLMRequest("openai/fake", [{"role": "user", "content": text}], api_base=server.url)


async def _hammer(client: LLMClient, server: FakeLLMServer, calls: int, concurrency: int = 64) -> None:
    """``calls`` calls, ``concurrency`` at a time, until they are done or the run is stopped."""
    left = iter(range(calls))

    async def worker() -> None:
        for i in left:
            try:
                await client.complete(_request(server, f"q{i}"))
            except RunStopped:
                return

    await asyncio.gather(*(worker() for _ in range(concurrency)))


def _peak_in_flight(clients: int, coordinated: bool) -> int:
    settings = LLMSettings(cache=False, concurrency=8)
    book = LeaseBook(settings, workers=clients)
    coordinator = LocalCoordinator(book) if coordinated else None

    async def scenario(server: FakeLLMServer) -> None:
        made = [LLMClient(settings, coordinator=coordinator, sync_interval=INTERVAL) for _ in range(clients)]
        await asyncio.gather(*(_hammer(c, server, 120) for c in made))
        for c in made:
            await c.aclose()

    with FakeLLMServer(latency_s=LATENCY) as server:
        asyncio.run(scenario(server))
        assert server.count() == 120 * clients
        return server.max_in_flight


def test_clients_sharing_a_coordinator_stay_within_the_provider_limit():
    # Each client allows 8 at a time; three clients alone would reach 3 x 8.
    assert _peak_in_flight(3, coordinated=False) > 8 + 3
    # Shared: leases are floored shares, each at least 1, so the sum is at most limit + clients.
    assert 4 <= _peak_in_flight(3, coordinated=True) <= 8 + 3


def test_a_budget_across_two_clients_stops_both():
    budget = 0.5
    settings = LLMSettings(cache=False, concurrency=8)
    # 10 prompt tokens at $1,000 per million: $0.01 a call.
    pricing = Pricing(
        models=[
            PriceRow(
                model="openai/fake", input_cost_per_million_tokens=1000, output_cost_per_million_tokens=0
            )
        ]
    )
    limits = RuntimeLimits(max_cost_usd=budget)
    book = LeaseBook(settings, limits, workers=2)
    coordinator = LocalCoordinator(book)

    async def scenario(server: FakeLLMServer) -> tuple[float, list[LLMClient]]:
        made = [
            LLMClient(
                settings,
                pricing=pricing,
                runtime_limits=limits,
                coordinator=coordinator,
                sync_interval=INTERVAL,
            )
            for _ in range(2)
        ]
        await asyncio.gather(*(_hammer(c, server, 1000) for c in made))
        spent = sum(c.totals.cost_usd for c in made)
        for c in made:
            await c.aclose()
            with pytest.raises(RunStopped, match=r"^budget runtime_limits.max_cost_usd reached$"):
                await c.complete(_request(server))
        return spent, made

    with FakeLLMServer(latency_s=LATENCY) as server:
        spent, made = asyncio.run(scenario(server))
    # Each client sees the others' spend as of its last sync, so the overshoot is at most the
    # calls started in one sync period (provider limit 8 x INTERVAL / LATENCY = 16 calls) plus
    # those in flight (8 + 2): 26 calls, $0.26. Two clients with their own budgets would spend $1.00.
    assert budget <= spent <= budget + 0.26 + 1e-9
    assert all(c.totals.calls > 0 for c in made)  # both took part
    assert book.totals.cost_usd == pytest.approx(spent)  # the final syncs reported everything
    assert book.totals.calls == sum(c.totals.calls for c in made)


def test_a_breaker_opened_by_one_client_stops_the_other_at_its_next_sync():
    settings = LLMSettings(cache=False, max_attempts=1, max_consecutive_failures=3)
    coordinator = LocalCoordinator(LeaseBook(settings, workers=2))

    async def scenario(server: FakeLLMServer) -> tuple[str, str, int]:
        failing = LLMClient(settings, coordinator=coordinator, sync_interval=INTERVAL)
        healthy = LLMClient(settings, coordinator=coordinator, sync_interval=INTERVAL)
        await healthy.complete(_request(server, "fine"))
        for _ in range(3):
            with pytest.raises(ModelCallError):
                await failing.complete(_request(server, "broken"))
        await asyncio.sleep(3 * INTERVAL)  # both have synced since
        before = server.count()
        with pytest.raises(RunStopped) as stopped:
            await healthy.complete(_request(server, "fine"))
        provider = f"openai@{server.url}"
        reason = failing.limits.breaker.open[provider]
        for c in (failing, healthy):
            await c.aclose()
        return str(stopped.value), reason, server.count() - before

    with FakeLLMServer() as server:
        server.add(Fault(500), match="broken")
        message, reason, sent = asyncio.run(scenario(server))
    assert reason.startswith(f"3 consecutive failed calls to openai@{server.url} (last: fake failure)")
    assert message == f"provider stopped: {reason}"
    assert sent == 0


def test_the_coordinator_stop_flag_stops_clients():
    book = LeaseBook(LLMSettings(cache=False))
    coordinator = LocalCoordinator(book)

    async def scenario(server: FakeLLMServer) -> str:
        client = LLMClient(LLMSettings(cache=False), coordinator=coordinator, sync_interval=INTERVAL)
        await client.complete(_request(server))
        book.stop("the driver stopped the run")
        await asyncio.sleep(3 * INTERVAL)
        try:
            with pytest.raises(RunStopped) as stopped:
                await client.complete(_request(server))
        finally:
            await client.aclose()
        return str(stopped.value)

    with FakeLLMServer() as server:
        assert asyncio.run(scenario(server)) == "the driver stopped the run"
        assert server.count() == 1


class Silent(LocalCoordinator):
    """Answers its first ``answers`` syncs, then never again (a coordinator lost or restarting)."""

    def __init__(self, book: LeaseBook, answers: int) -> None:
        super().__init__(book)
        self.answers = answers
        self.asked = 0

    async def sync(self, worker_id: str, deltas: Deltas) -> Leases:
        self.asked += 1
        if self.asked > self.answers:
            await asyncio.Event().wait()
        return await super().sync(worker_id, deltas)


def test_a_silent_coordinator_leaves_each_client_limit_over_workers():
    settings = LLMSettings(cache=False, concurrency=8)
    coordinator = Silent(LeaseBook(settings, workers=2), answers=1)

    async def scenario(server: FakeLLMServer) -> tuple[int, int]:
        client = LLMClient(settings, coordinator=coordinator, sync_interval=INTERVAL)
        await client.complete(_request(server))  # the first sync: the other worker not heard from yet
        adaptive = client.limits.for_provider(f"openai@{server.url}")
        first = adaptive.maximum
        await asyncio.sleep(4 * INTERVAL)  # later syncs time out after 2 intervals
        await _hammer(client, server, 20)  # calls go on meanwhile
        await client.aclose()
        return first, adaptive.maximum

    with FakeLLMServer() as server:
        first, fallen_back = asyncio.run(scenario(server))
        assert server.count() == 21
    assert first == 4  # 8 x 1 / (1 + 1 expected)
    assert fallen_back == 8 // 2
    assert coordinator.syncs == 1
    assert coordinator.asked >= 3  # it was asked again, and did not answer


class Late(LocalCoordinator):
    """Takes every report at once but answers the first ``late`` after the client gave up."""

    def __init__(self, book: LeaseBook, late: int) -> None:
        super().__init__(book)
        self.late = late

    async def sync(self, worker_id: str, deltas: Deltas) -> Leases:
        leases = await super().sync(worker_id, deltas)
        if self.syncs <= self.late:
            await asyncio.sleep(3 * INTERVAL)  # past the client's 2-interval timeout
        return leases


def test_reports_taken_by_a_coordinator_whose_answer_came_too_late_are_counted_once():
    settings = LLMSettings(cache=False, concurrency=8)
    book = LeaseBook(settings)
    coordinator = Late(book, late=3)

    async def scenario(server: FakeLLMServer) -> int:
        client = LLMClient(settings, coordinator=coordinator, sync_interval=INTERVAL)
        await _hammer(client, server, 40, concurrency=4)
        await asyncio.sleep(4 * INTERVAL)  # more syncs, some timed out after the book took them
        await client.aclose()
        return client.totals.calls

    with FakeLLMServer(latency_s=0.01) as server:
        calls = asyncio.run(scenario(server))
        assert server.count() == 40
    assert coordinator.syncs > 3
    assert (calls, book.totals.calls) == (40, 40)


def test_f04_a_worker_restarted_under_the_same_id_adds_its_calls_to_those_of_its_first_life():
    # Ray restarts a dead worker actor with the same arguments, so its worker id: the new client
    # counts from zero, and the book must not take that as the old one's counts going down.
    settings = LLMSettings(cache=False, concurrency=8)
    book = LeaseBook(settings)
    coordinator = LocalCoordinator(book)

    async def life(server: FakeLLMServer, calls: int) -> None:
        client = LLMClient(settings, coordinator=coordinator, sync_interval=INTERVAL, worker_id="worker-0")
        await _hammer(client, server, calls, concurrency=2)
        await client.aclose()

    with FakeLLMServer() as server:
        asyncio.run(life(server, 6))
        asyncio.run(life(server, 4))
        assert server.count() == 10
    assert book.totals.calls == 10


def test_the_docs_example_runs():
    page = (Path(__file__).resolve().parents[3] / "docs" / "llm.md").read_text()
    section = page.split("## Shared limits", 1)[1].split("\n## ", 1)[0]
    [example] = re.findall(r"```python\n(.*?)```", section, re.S)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, "docs/llm.md", "exec"), {"__name__": "__main__"})
    calls, most = re.fullmatch(r"(\d+) calls; at most (\d+) at once\n", printed.getvalue()).groups()
    assert int(calls) == 20
    assert 1 <= int(most) <= 8 + 2


def test_a_client_answered_only_from_its_cache_reports_the_hits_when_it_closes(tmp_path):
    settings = LLMSettings(concurrency=8)
    book = LeaseBook(settings, workers=2)
    coordinator = LocalCoordinator(book)

    async def scenario(server: FakeLLMServer) -> None:
        cold = LLMClient(settings, cache_path=tmp_path / "llm.sqlite3")
        for i in range(3):
            await cold.complete(_request(server, f"q{i}"))
        await cold.aclose()
        warm = LLMClient(settings, cache_path=tmp_path / "llm.sqlite3", coordinator=coordinator)
        for i in range(3):
            await warm.complete(_request(server, f"q{i}"))
        assert coordinator.syncs == 0  # no call, so no sync while it ran
        await warm.aclose()

    with FakeLLMServer() as server:
        asyncio.run(scenario(server))
        assert server.count() == 3
    assert (book.totals.cached, book.totals.calls, coordinator.syncs) == (3, 0, 1)
