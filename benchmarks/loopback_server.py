"""A lean OpenAI-compatible chat server for the LLM benchmarks: one asyncio loop, a bare
``asyncio.Protocol`` speaking HTTP/1.1 with keep-alive, every answer after a fixed latency (a
timer, no task per request), a few tens of microseconds of CPU per request.

``bench.testing.server.FakeLLMServer`` answers each request on its own thread and is built for
tests (rules with callables, faults, hangs, streaming, recorded requests); on a 2-core machine its
threads compete with the client being measured. This one only echoes the last user message, or
answers a scripted rule's reply when the messages contain its ``match``:

    python benchmarks/loopback_server.py --port 8000 --latency 0.2 [--script rules.json]

``rules.json``: ``[{"match": "<response-", "reply": "text"}]``. It prints ``fake LLM server on
URL`` once it listens; ``GET /v1/stats`` answers ``{"requests": N, "max_in_flight": M}`` and
``GET /v1/arrivals`` ``{"arrivals": [t, ...]}`` (each chat request's arrival, ``time.time()``,
to lay a client's timeline against the bound), ``GET /v1/models`` (the client's key probe: any
key is accepted) a model list shaped like OpenAI's, after ``--models-latency`` seconds (default:
``--latency``, a round trip like any other request, as OpenAI's takes one).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

#: The servers a benchmark can start: this one, or the test suite's thread-per-request one.
SERVERS = ("loopback", "threads")


def server_command(kind: str) -> list[str]:
    """The command line (less ``--port`` and ``--latency``) that starts server ``kind``."""
    if kind == "threads":
        return [sys.executable, "-m", "bench.testing.server"]
    return [sys.executable, str(Path(__file__).resolve())]


class Loopback:
    """The server's state: its rules, latency and counters."""

    def __init__(
        self, latency_s: float, rules: list[tuple[str, str]], models_latency_s: float | None = None
    ) -> None:
        self.latency_s = latency_s
        self.models_latency_s = latency_s if models_latency_s is None else models_latency_s
        self.rules = rules
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        #: When each chat request arrived (``time.time()``): ``GET /v1/arrivals``.
        self.arrivals: list[float] = []
        self._ids = itertools.count()

    def answer(self, body: dict[str, Any]) -> str:
        """The reply text: the first rule whose ``match`` the messages contain, else an echo."""
        messages = body.get("messages") or []
        if self.rules:
            text = "\n".join(str(m.get("content") or "") for m in messages)
            for match, reply in self.rules:
                if match in text:
                    return reply
        for message in reversed(messages):
            if message.get("role") == "user":
                return f"echo: {message.get('content') or ''}"
        return "echo: "

    def completion(self, body: dict[str, Any]) -> bytes:
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": self.answer(body)},
            "finish_reason": "stop",
        }
        return json.dumps(
            {
                "id": f"chatcmpl-{next(self._ids)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "fake"),
                "choices": [choice],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        ).encode()

    def handle(self, method: bytes, path: bytes, body: bytes) -> tuple[int, bytes] | float:
        """The answer to one request (status, JSON body), or the delay before ``completion``."""
        if method == b"GET" and path.rstrip(b"/").endswith(b"/stats"):
            return 200, json.dumps({"requests": self.requests, "max_in_flight": self.max_in_flight}).encode()
        if method == b"GET" and path.rstrip(b"/").endswith(b"/arrivals"):
            return 200, json.dumps({"arrivals": self.arrivals}).encode()
        if method != b"POST" or not path.rstrip(b"/").endswith(b"/chat/completions"):
            return 404, _error(f"no route {path.decode('latin-1')}")
        return self.latency_s


_MODELS = json.dumps(
    {
        "object": "list",
        "data": [
            {"id": name, "object": "model", "created": 1686935002, "owned_by": "openai"}
            for name in ("fake", "gpt-4o-mini", "gpt-4o", "text-embedding-3-small", "omni-moderation-latest")
        ],
    }
).encode()


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message}}).encode()


_REASONS = {200: b"OK", 400: b"Bad Request", 404: b"Not Found", 411: b"Length Required"}


class _Connection(asyncio.Protocol):
    """HTTP/1.1 with keep-alive on one connection; requests answered in the order they came."""

    def __init__(self, server: Loopback) -> None:
        self.server = server
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.pending: list[asyncio.TimerHandle] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in self.pending:
            timer.cancel()
        self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while self.transport is not None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].split(b"\r\n")
            headers = {}
            for line in head[1:]:
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            chunked = headers.get(b"transfer-encoding", b"").lower() == b"chunked"
            if chunked and b"content-length" not in headers:
                self._reply(411, _error("send a Content-Length"), close=True)
                return
            length = int(headers.get(b"content-length", b"0"))
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            method, path = [*head[0].split(b" "), b"", b""][:2]
            if method == b"GET" and path.rstrip(b"/").endswith(b"/models"):
                self._later(self.server.models_latency_s, 200, _MODELS)
                continue
            answer = self.server.handle(method, path, body)
            if isinstance(answer, tuple):
                self._reply(*answer)
            else:
                self._chat(body, answer)

    def _chat(self, raw: bytes, delay: float) -> None:
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._reply(400, _error("invalid JSON body"))
            return
        if not isinstance(body, dict) or body.get("stream"):
            self._reply(400, _error("this benchmark server answers JSON objects, without streaming"))
            return
        server = self.server
        server.arrivals.append(time.time())
        server.requests += 1
        server.in_flight += 1
        server.max_in_flight = max(server.max_in_flight, server.in_flight)
        loop = asyncio.get_running_loop()
        timer: asyncio.TimerHandle

        def answer() -> None:
            server.in_flight -= 1
            self.pending.remove(timer)
            self._reply(200, server.completion(body))

        timer = loop.call_later(delay, answer)
        self.pending.append(timer)

    def _later(self, delay: float, status: int, payload: bytes) -> None:
        timer: asyncio.TimerHandle

        def answer() -> None:
            self.pending.remove(timer)
            self._reply(status, payload)

        timer = asyncio.get_running_loop().call_later(delay, answer)
        self.pending.append(timer)

    def _reply(self, status: int, payload: bytes, close: bool = False) -> None:
        if self.transport is None:
            return
        head = b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n" % (
            status,
            _REASONS.get(status, b"Error"),
            len(payload),
            b"Connection: close\r\n" if close else b"",
        )
        self.transport.write(head + payload)
        if close:
            self.transport.close()


async def serve(port: int, server: Loopback, host: str = "127.0.0.1") -> None:
    loop = asyncio.get_running_loop()
    # A backlog well over the highest concurrency measured (256): clients open their pools at once.
    listening = await loop.create_server(lambda: _Connection(server), host, port, backlog=2048)
    print(f"fake LLM server on http://{host}:{port}/v1", flush=True)
    async with listening:
        await listening.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds before each answer")
    parser.add_argument("--script", help='JSON list of rules: {"match": "...", "reply": "text"}')
    parser.add_argument(
        "--models-latency", type=float, default=None, help="seconds before GET /v1/models answers [--latency]"
    )
    args = parser.parse_args()
    rules: list[tuple[str, str]] = []
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            rules = [(rule["match"], rule["reply"]) for rule in json.load(fh)]
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port, Loopback(args.latency, rules, args.models_latency)))


if __name__ == "__main__":
    main()
