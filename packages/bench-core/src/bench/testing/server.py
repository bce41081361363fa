"""A fake OpenAI-compatible server on 127.0.0.1, for testing LLM code through litellm's real path.

    with FakeLLMServer() as server:
        server.add(Reply("Paris"), match="capital")
        server.add(Fault(429, retry_after=1), times=1)      # the first call is rate-limited
        litellm.completion(model="openai/fake", api_base=server.url, api_key="sk-test", ...)
        assert server.count() == 2

Rules are tried in the order added; a rule with ``times`` is used that many times, then skipped.
Unmatched requests get ``server.default`` (a reply echoing the last user message). Paths are
matched by their end, as sent or before their query, so Azure's
``/openai/deployments/D/chat/completions?api-version=V`` is a chat completion; ``requests`` keep
the path with its query. ``GET /v1/models`` (and OpenRouter's ``/v1/key``, Azure's
``/openai/models?api-version=V``), the client's key probe, answers
``server.models_status`` (200, with a model list shaped like OpenAI's), or the status of a 401/403
``Fault`` that would answer every next completion (a refused key refuses both), after
``server.models_latency_s`` (default: ``latency_s``, a round trip like any other request);
``probes()`` counts them. Supports
chat completions (tool calls, JSON mode, streaming), embeddings, fault injection (HTTP errors with
``Retry-After``, malformed JSON, a hang, a dropped connection, a body that trickles, a stream cut
without its terminal event) and latency. ``python -m bench.testing.server`` runs one standalone.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.testing.batches import FakeBatches
from bench.testing.completions import completion, default_moderation, tool_call


@dataclass
class Reply:
    """A successful chat completion."""

    content: str | None = "ok"
    tool_calls: list[dict[str, Any]] | None = None
    finish_reason: str = "stop"
    prompt_tokens: int = 10
    completion_tokens: int = 5
    latency_s: float = 0.0


@dataclass
class Fault:
    """A failure: an HTTP error status, or one of the kinds ``malformed``, ``hang``, ``drop``,
    ``trickle``, ``cut_stream``, ``stall_stream`` (the first chunk, then ``hang_s`` of silence)."""

    status: int = 500
    kind: str = "http"
    retry_after: float | None = None
    code: str | None = None
    message: str = "fake failure"
    hang_s: float = 30.0


Action = Reply | Fault
Responder = Callable[[dict[str, Any]], Action]


@dataclass
class Rule:
    action: Action | Responder
    match: str | None = None
    model: str | None = None
    times: int | None = None


@dataclass
class Recorded:
    """One request the server received."""

    path: str
    body: dict[str, Any]
    at: float
    headers: dict[str, str] = field(default_factory=dict)
    #: Requests being answered when this one arrived, itself included.
    in_flight: int = 0

    @property
    def last_user_text(self) -> str:
        return _last_user_text(self.body)


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
            return str(content or "")
    return ""


def _all_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])


#: ``GET /v1/models``'s answer, shaped like OpenAI's.
MODEL_LIST: dict[str, Any] = {
    "object": "list",
    "data": [
        {"id": name, "object": "model", "created": 1686935002, "owned_by": "openai"}
        for name in ("fake", "gpt-4o-mini", "gpt-4o", "text-embedding-3-small", "omni-moderation-latest")
    ],
}


class FakeLLMServer:
    """The server; use as a context manager or call ``start``/``stop``."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, latency_s: float = 0.0) -> None:
        self.latency_s = latency_s
        self.rules: list[Rule] = []
        self.requests: list[Recorded] = []
        self.default: Action | Responder = lambda body: Reply(f"echo: {_last_user_text(body)}")
        #: Moderation scores for an input (``/v1/moderations``); by default insults score high.
        self.moderation: Callable[[str], dict[str, float]] = default_moderation
        #: The status of ``GET /v1/models`` with an accepted key (404: a server without the route).
        self.models_status = 200
        #: Seconds before ``GET /v1/models`` answers (None: ``latency_s``, as OpenAI's takes a round trip).
        self.models_latency_s: float | None = None
        #: The key probes received (GET /v1/models or /v1/key); ``count`` and ``requests`` leave them out.
        self.probe_requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._in_flight = 0
        self.max_in_flight = 0
        #: OpenAI's files and batches, Anthropic's Message Batches (bench.testing.batches).
        self.batches = FakeBatches(self._answer_live)
        server = self

        class Handler(_Handler):
            owner = server

        self._host = host
        self._httpd = _Server((host, port), Handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self._httpd.server_port}/v1"

    def add(
        self,
        action: Action | Responder,
        *,
        match: str | None = None,
        model: str | None = None,
        times: int | None = None,
    ) -> FakeLLMServer:
        """Script an answer for requests whose messages contain ``match`` (and/or use ``model``)."""
        with self._lock:
            self.rules.append(Rule(action, match, model, times))
        return self

    def count(self, path: str = "/v1/chat/completions") -> int:
        """How many requests reached ``path``."""
        with self._lock:
            return sum(1 for r in self.requests if r.path == path)

    def probes(self) -> int:
        """How many key probes (``GET /v1/models`` or ``/v1/key``) arrived."""
        with self._lock:
            return len(self.probe_requests)

    def start(self) -> FakeLLMServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _choose(self, body: dict[str, Any]) -> Action:
        text = _all_text(body)
        action = self._first(
            lambda rule: (
                (rule.match is None or rule.match in text)
                and (rule.model is None or body.get("model") == rule.model)
            ),
            use=True,
        )
        return action(body) if callable(action) else action

    def _first(self, applies: Callable[[Rule], bool], use: bool) -> Action | Responder:
        """The action of the first rule still in use that ``applies`` (``use``: count one of its
        ``times``), else ``default``."""
        with self._lock:
            for rule in self.rules:
                if (rule.times is None or rule.times > 0) and applies(rule):
                    if use and rule.times is not None:
                        rule.times -= 1
                    return rule.action
            return self.default

    def _answer_live(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and body a chat completion sent live would get (a batch line's answer)."""
        action = self._choose(body)
        if isinstance(action, Reply):
            message: dict[str, Any] = {"role": "assistant", "content": action.content}
            if action.tool_calls:
                message["tool_calls"] = [tool_call(call) for call in action.tool_calls]
            choice = {"index": 0, "message": message, "finish_reason": action.finish_reason}
            return 200, completion(body, action, choice)
        status = action.status if action.kind == "http" else 500
        return status, {"error": {"message": action.message, "type": "fake_error", "code": action.code}}

    def _refusal(self) -> Fault | None:
        """The 401/403 that would answer the next completion whatever it asks: the first rule
        still in use with no ``match`` or ``model`` (its ``times`` left as they are), else
        ``default``. A responder cannot be asked without a request: it refuses nothing here."""
        action = self._first(lambda rule: rule.match is None and rule.model is None, use=False)
        if isinstance(action, Fault) and action.kind == "http" and action.status in (401, 403):
            return action
        return None

    def _probe(self, path: str, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """Record a key probe; its status and body."""
        with self._lock:
            self.probe_requests.append(Recorded(path, {}, time.monotonic(), headers))
        time.sleep(self.latency_s if self.models_latency_s is None else self.models_latency_s)
        refusal = self._refusal()
        if refusal is not None:
            error = {
                "message": refusal.message,
                "type": "fake_error",
                "code": refusal.code or str(refusal.status),
            }
            return refusal.status, {"error": error}
        if self.models_status != 200:
            return self.models_status, {"error": {"message": f"no route {path}"}}
        return 200, MODEL_LIST

    def _record(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self.requests.append(Recorded(path, body, time.monotonic(), headers, self._in_flight))

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


def _ends(path: str, suffix: str | tuple[str, ...]) -> bool:
    """Whether ``path`` ends with ``suffix``, as sent or without its query (Azure's api-version);
    a query in a client's base URL comes before the suffix (``/v1?key=k/chat/completions``)."""
    return path.endswith(suffix) or path.split("?", 1)[0].rstrip("/").endswith(suffix)


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 drops connections when a client opens dozens at once.
    request_queue_size = 512
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-answer (a timed-out attempt, a stopped run) is normal for a
        fake provider: say nothing. socketserver's default prints a traceback to whatever
        ``sys.stderr`` is at that moment, which may be another test's captured output."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    owner: FakeLLMServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _path(self) -> str:
        """The request's path from its ``/v1`` on (a client's base URL may add a prefix)."""
        return "/v1" + self.path.split("/v1", 1)[-1] if "/v1" in self.path else self.path

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _batches(self, method: str, raw: bytes = b"") -> bool:
        """Answer a batch API request (bench.testing.batches); False when it is none."""
        answer = self.owner.batches.answer(method, self._path(), raw, self.headers.get("Content-Type", ""))
        if answer is None:
            return False
        status, payload = answer
        if not isinstance(payload, bytes):
            self._json(status, payload)
            return True
        self.send_response(status)  # a file's content, JSON Lines
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        return True

    def do_GET(self) -> None:
        if self._batches("GET"):
            return
        if self.path.rstrip("/").endswith("/stats"):
            self._json(200, {"requests": len(self.owner.requests), "max_in_flight": self.owner.max_in_flight})
        elif _ends(self.path.rstrip("/"), ("/models", "/key")):
            self._json(*self.owner._probe(self._path(), self._headers()))
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        if self._batches("POST", raw):
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._json(400, {"error": {"message": "invalid JSON body"}})
            return
        path = self._path()
        self.owner._record(path, body, self._headers())
        try:
            if _ends(path, "/embeddings"):
                self._embeddings(body)
            elif _ends(path, "/moderations"):
                self._moderations(body)
            elif _ends(path, "/chat/completions"):
                self._chat(body)
            else:
                self._json(404, {"error": {"message": f"no route {path}"}})
        finally:
            self.owner._leave()

    # -- responses ----------------------------------------------------------------------------

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _embeddings(self, body: dict[str, Any]) -> None:
        inputs = body.get("input")
        items = inputs if isinstance(inputs, list) else [inputs]
        data = []
        for i, item in enumerate(items):
            digest = hashlib.sha256(str(item).encode()).digest()
            data.append({"object": "embedding", "index": i, "embedding": [b / 255 for b in digest[:8]]})
        usage = {"prompt_tokens": len(items), "total_tokens": len(items)}
        self._json(200, {"object": "list", "data": data, "model": body.get("model", "fake"), "usage": usage})

    def _moderations(self, body: dict[str, Any]) -> None:
        text = str(body.get("input") or "")
        scores = self.owner.moderation(text)
        result = {
            "flagged": any(v >= 0.5 for v in scores.values()),
            "categories": {k: v >= 0.5 for k, v in scores.items()},
            "category_scores": scores,
        }
        self._json(200, {"id": "modr-fake", "model": body.get("model", "fake"), "results": [result]})

    def _chat(self, body: dict[str, Any]) -> None:
        action = self.owner._choose(body)
        delay = self.owner.latency_s + (action.latency_s if isinstance(action, Reply) else 0.0)
        if delay:
            time.sleep(delay)
        if isinstance(action, Fault):
            self._fault(action, body)
            return
        if body.get("stream"):
            self._stream(action, body)
            return
        message: dict[str, Any] = {"role": "assistant", "content": action.content}
        if action.tool_calls:
            message["tool_calls"] = [tool_call(call) for call in action.tool_calls]
        self._json(
            200,
            completion(body, action, {"index": 0, "message": message, "finish_reason": action.finish_reason}),
        )

    def _fault(self, fault: Fault, body: dict[str, Any]) -> None:
        if fault.kind == "hang":
            time.sleep(fault.hang_s)
            self.close_connection = True
            return
        if fault.kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fault.kind == "malformed":
            data = b'{"id": "chatcmpl-x", "object": "chat.completion", "choices": [{"index": 0, "mess'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if fault.kind == "trickle":
            payload = json.dumps(completion(body, Reply("slow"), None)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            for byte in payload:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(1.0)
            return
        if fault.kind == "cut_stream":
            self._stream(Reply("The answer is"), body, cut=True)
            return
        if fault.kind == "stall_stream":
            self._stream(Reply("The answer is"), body, stall_s=fault.hang_s)
            return
        headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
        error = {"message": fault.message, "type": "fake_error", "code": fault.code or str(fault.status)}
        self._json(fault.status, {"error": error}, headers)

    def _stream(self, reply: Reply, body: dict[str, Any], cut: bool = False, stall_s: float = 0.0) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        base = completion(body, reply, None)
        words = (reply.content or "").split(" ")
        for i, word in enumerate(words):
            delta = {"role": "assistant"} if i == 0 else {}
            delta["content"] = word if i == 0 else " " + word
            chunk = {
                **base,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            }
            chunk.pop("usage", None)
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
            if stall_s:
                time.sleep(stall_s)
                return
        if cut:
            return
        last = {
            **base,
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": reply.finish_reason}],
        }
        self.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
        self.wfile.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible server for testing.")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument(
        "--script",
        help='JSON list of rules: {"match": "...", "reply": "text"} '
        'or {"match": "...", "status": 429, "retry_after": 1}',
    )
    parser.add_argument(
        "--models-latency", type=float, default=None, help="seconds before GET /v1/models answers [--latency]"
    )
    args = parser.parse_args()
    server = FakeLLMServer(port=args.port, latency_s=args.latency)
    server.models_latency_s = args.models_latency
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            for rule in json.load(fh):
                action: Action = (
                    Fault(rule["status"], retry_after=rule.get("retry_after"))
                    if "status" in rule
                    else Reply(rule.get("reply", "ok"))
                )
                server.add(action, match=rule.get("match"), times=rule.get("times"))
    print(f"fake LLM server on {server.url}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server._httpd.serve_forever()


if __name__ == "__main__":
    main()
