"""Adaptive concurrency (AIMD) and the response cache, in isolation."""

from __future__ import annotations

import asyncio
import sqlite3

from bench.llm.cache.local import ResponseCache, cache_key
from bench.llm.limits.throttle import GROW_AFTER_SUCCESSES, AdaptiveLimit


def test_rate_limit_halves_once_per_episode_and_success_grows_it_back():
    async def scenario() -> list[int]:
        limit = AdaptiveLimit(16)
        seen = [limit.limit]
        limit.rate_limited()
        limit.rate_limited()  # same episode: no second cut
        seen.append(limit.limit)
        for _ in range(GROW_AFTER_SUCCESSES * 3):
            await limit.succeeded()
        seen.append(limit.limit)
        return seen

    assert asyncio.run(scenario()) == [16, 8, 11]


def test_slots_never_exceed_the_limit():
    async def scenario() -> int:
        limit = AdaptiveLimit(3)
        peak = 0

        async def work() -> None:
            nonlocal peak
            async with limit.slot():
                peak = max(peak, limit.in_use)
                await asyncio.sleep(0.01)

        await asyncio.gather(*(work() for _ in range(20)))
        return peak

    assert asyncio.run(scenario()) == 3


def test_g08_key_depends_on_what_changes_the_answer_and_the_index():
    base = {
        "model": "m",
        "api_base": "",
        "messages": [{"role": "user", "content": "q"}],
        "params": {},
        "index": 0,
    }
    assert cache_key(base) == cache_key(dict(base))
    assert cache_key(base) != cache_key({**base, "index": 1})
    assert cache_key(base) != cache_key({**base, "params": {"temperature": 0.5}})


def test_g09_corrupt_cache_is_moved_aside_and_the_run_goes_on(tmp_path, capsys):
    path = tmp_path / "llm.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    cache = ResponseCache(path)
    assert cache.get("k") is None
    cache.put("k", {"text": "x"})  # no crash
    assert "is unusable" in capsys.readouterr().err
    assert list(tmp_path.glob("llm.sqlite3.corrupt-*"))


def test_g07_two_processes_sharing_the_cache(tmp_path):
    one, two = ResponseCache(tmp_path / "c.sqlite3"), ResponseCache(tmp_path / "c.sqlite3")
    one.put("k", {"text": "a"})
    assert two.get("k") == {"text": "a"}
    holder = sqlite3.connect(tmp_path / "c.sqlite3", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        fresh = ResponseCache(tmp_path / "c.sqlite3")
        fresh._connect()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert one.get("k") == {"text": "a"}


def test_the_fake_server_says_nothing_when_a_client_hangs_up_mid_answer(capfd):
    import socket
    import time

    from bench.testing.server import FakeLLMServer, Reply

    with FakeLLMServer() as server:
        server.add(Reply("late", latency_s=0.3))
        host, port = server.url.split("//")[1].split("/")[0].split(":")
        body = b'{"model": "m", "messages": [{"role": "user", "content": "q"}]}'
        with socket.create_connection((host, int(port))) as conn:
            conn.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        time.sleep(0.6)  # the server answers into the closed connection
    assert server.count() == 1
    assert capfd.readouterr().err == ""
