"""The two batch protocols bench speaks: OpenAI's (files and ``/batches``, also spoken by Groq,
Together and OpenAI-compatible servers at an ``api_base``) and Anthropic's Message Batches.

Each protocol writes requests as batch lines, submits them with the token bench wrote in its
ledger (OpenAI: the batch's ``metadata``), finds a batch by that token after a crash, polls,
and reads results back as outcomes: ``{"id", "ok": <an OpenAI chat completion>}`` or ``{"id",
"error": {"status", "message", "retry"}}`` (``retry``: expired, cancelled, rate-limited or a
provider fault, worth another batch; a refusal of the request itself is not).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bench.llm.providers.direct import DirectTransport, auth_headers
from bench.llm.providers.routes import route, sent_messages

#: Model prefixes whose provider has an OpenAI-shaped batch API, and the one with Anthropic's.
OPENAI_SHAPED = ("openai", "groq", "together_ai")
ANTHROPIC = "anthropic"
#: A batch still running: poll again.
RUNNING = ("validating", "in_progress", "finalizing", "cancelling", "canceling")
_ANTHROPIC_VERSION = "2023-06-01"
_STOPS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}
#: A batch found after a crash must have been created within this many seconds of its intent.
FIND_SKEW_S = 300.0


def protocol_of(model: str) -> str | None:
    """``openai``, ``anthropic``, or None for a model whose provider has no batch API bench speaks."""
    prefix = model.split("/", 1)[0] if "/" in model else ""
    if prefix in OPENAI_SHAPED:
        return "openai"
    return ANTHROPIC if prefix == ANTHROPIC else None


class BatchError(Exception):
    """A batch API request that failed (its status and the provider's message)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Where:
    """A batch API's base URL and headers."""

    base: str
    headers: dict[str, str]
    model: str


def where(model: str, api_base: str | None, key: str | None) -> Where:
    """The endpoint a model's batches go to, with its key, as its live calls' route resolves it."""
    if protocol_of(model) == ANTHROPIC:
        base = (api_base or os.environ.get("ANTHROPIC_API_BASE") or "https://api.anthropic.com").rstrip("/")
        base = base if base.endswith("/v1") else base + "/v1"
        secret = key or os.environ.get("ANTHROPIC_API_KEY") or ""
        headers = {"x-api-key": secret, "anthropic-version": _ANTHROPIC_VERSION}
        return Where(base, headers, model.split("/", 1)[1])
    live = route(model, api_base, key)
    return Where(live.url.removesuffix("/chat/completions"), auth_headers(live), live.model)


def _below(base: str, path: str) -> str:
    """``path`` (with its own query, if any) under ``base``, keeping a query the base carries."""
    parts = urlsplit(base)
    below, _, query = path.partition("?")
    queries = "&".join(q for q in (parts.query, query) if q)
    return urlunsplit(parts._replace(path=parts.path + below, query=queries))


class Protocol:
    """One provider's batch API over bench's HTTP pool."""

    kind = "openai"

    def __init__(self, http: DirectTransport, at: Where) -> None:
        self.http = http
        self.at = at

    async def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        status, raw = await self.http.send(method, _below(self.at.base, path), self.at.headers, **kwargs)
        if status >= 400:
            try:
                said = json.loads(raw).get("error", {}).get("message")
            except (ValueError, AttributeError):
                said = None
            raise BatchError(f"{status} from {method} {path}: {said or raw[:200]!r}", status)
        return raw if path.endswith(("/content", "/results")) else json.loads(raw)

    def line(self, request_id: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
        body = {"model": self.at.model, "messages": sent_messages(messages), **params}
        return {"custom_id": request_id, "method": "POST", "url": "/v1/chat/completions", "body": body}

    async def submit(self, token: str, lines: list[dict[str, Any]]) -> str:
        content = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        file = await self._call(
            "POST", "/files", body={"purpose": "batch"}, files={"file": (f"{token}.jsonl", content)}
        )
        body = {
            "input_file_id": file["id"],
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
            "metadata": {"bench_batch": token},
        }
        return str((await self._call("POST", "/batches", body=body))["id"])

    async def find(self, token: str, at: float, size: int, known: set[str]) -> str | None:
        """The batch submitted under ``token``, by its metadata (every page read)."""
        after = ""
        while True:
            page = await self._call("GET", f"/batches?limit=100{after}")
            for batch in page.get("data") or []:
                if (batch.get("metadata") or {}).get("bench_batch") == token:
                    return str(batch["id"])
            if not page.get("has_more") or not page.get("data"):
                return None
            after = f"&after={page['data'][-1]['id']}"

    async def poll(self, batch_id: str) -> dict[str, Any] | None:
        """The batch once it ended, else None."""
        batch: dict[str, Any] = await self._call("GET", f"/batches/{batch_id}")
        return None if batch.get("status") in RUNNING else batch

    async def results(self, batch: dict[str, Any], ids: list[str]) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for file_id in (batch.get("output_file_id"), batch.get("error_file_id")):
            if file_id:
                raw = await self._call("GET", f"/files/{file_id}/content")
                rows += [_openai_outcome(json.loads(line)) for line in raw.splitlines() if line.strip()]
        return _complete(rows, ids, batch.get("status") or "failed")


def _openai_outcome(row: dict[str, Any]) -> dict[str, Any]:
    response, error = row.get("response"), row.get("error")
    if response and response.get("status_code") == 200:
        return {"id": row["custom_id"], "ok": response["body"]}
    if response:
        status = int(response.get("status_code") or 500)
        said = ((response.get("body") or {}).get("error") or {}).get("message") or f"HTTP {status}"
        return {"id": row["custom_id"], "error": _error(status, said)}
    code = (error or {}).get("code") or "batch_failed"
    return {"id": row["custom_id"], "error": {"status": None, "message": code, "retry": True}}


def _error(status: int, message: str) -> dict[str, Any]:
    return {"status": status, "message": message, "retry": status == 429 or status >= 500}


def _complete(rows: list[dict[str, Any]], ids: list[str], ended: str) -> list[dict[str, Any]]:
    """Every request's outcome: one the provider did not report ended with the batch (retried)."""
    seen = {row["id"] for row in rows}
    lost = {"status": None, "message": f"batch {ended}", "retry": True}
    return rows + [{"id": i, "error": lost} for i in ids if i not in seen]


class AnthropicProtocol(Protocol):
    """Anthropic's Message Batches (no metadata: a lost id is found by its time and size)."""

    kind = ANTHROPIC

    def line(self, request_id: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
        system = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
        rest = [
            {"role": m["role"], "content": m.get("content") or ""}
            for m in messages
            if m.get("role") != "system"
        ]
        body: dict[str, Any] = {"model": self.at.model, "messages": rest}
        body["max_tokens"] = params.get("max_tokens") or params.get("max_completion_tokens") or 4096
        for name in ("temperature", "top_p"):
            if params.get(name) is not None:
                body[name] = params[name]
        if params.get("stop"):
            stop = params["stop"]
            body["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
        if system:
            body["system"] = "\n\n".join(system)
        return {"custom_id": request_id, "params": body}

    async def submit(self, token: str, lines: list[dict[str, Any]]) -> str:
        return str((await self._call("POST", "/messages/batches", body={"requests": lines}))["id"])

    async def find(self, token: str, at: float, size: int, known: set[str]) -> str | None:
        """The batch created within ``FIND_SKEW_S`` of the intent, of ``size`` requests, that no
        other ledger entry claims (the first page: the newest batches)."""
        page = await self._call("GET", "/messages/batches?limit=100")
        for batch in page.get("data") or []:
            created = datetime.fromisoformat(str(batch["created_at"]).replace("Z", "+00:00")).timestamp()
            total = sum(int(v) for v in (batch.get("request_counts") or {}).values())
            if batch["id"] not in known and total == size and abs(created - at) <= FIND_SKEW_S:
                return str(batch["id"])
        return None

    async def poll(self, batch_id: str) -> dict[str, Any] | None:
        batch: dict[str, Any] = await self._call("GET", f"/messages/batches/{batch_id}")
        return None if batch.get("processing_status") in RUNNING else batch

    async def results(self, batch: dict[str, Any], ids: list[str]) -> list[dict[str, Any]]:
        raw = await self._call("GET", f"/messages/batches/{batch['id']}/results")
        rows = [_anthropic_outcome(json.loads(line)) for line in raw.splitlines() if line.strip()]
        return _complete(rows, ids, "ended")


def _anthropic_outcome(row: dict[str, Any]) -> dict[str, Any]:
    result = row.get("result") or {}
    kind = result.get("type")
    if kind == "succeeded":
        message = result["message"]
        text = "".join(b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text")
        usage = message.get("usage") or {}
        completion = {
            "id": message.get("id"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": message.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": _STOPS.get(message.get("stop_reason") or "end_turn", "stop"),
                }
            ],
            "usage": {
                "prompt_tokens": usage.get("input_tokens"),
                "completion_tokens": usage.get("output_tokens"),
            },
        }
        return {"id": row["custom_id"], "ok": completion}
    if kind == "errored":
        error = (result.get("error") or {}).get("error") or {}
        status = 400 if error.get("type") == "invalid_request_error" else 500
        return {"id": row["custom_id"], "error": _error(status, str(error.get("message") or kind))}
    return {"id": row["custom_id"], "error": {"status": None, "message": f"batch {kind}", "retry": True}}


def protocol(http: DirectTransport, model: str, api_base: str | None, key: str | None) -> Protocol:
    """The batch protocol for ``model``'s provider."""
    at = where(model, api_base, key)
    return AnthropicProtocol(http, at) if protocol_of(model) == ANTHROPIC else Protocol(http, at)
