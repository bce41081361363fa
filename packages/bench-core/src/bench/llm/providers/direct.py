"""Chat completions straight to an OpenAI-compatible endpoint over one pooled ``aiohttp`` session.

It sends the body litellm sends on its OpenAI route and fails the way the client expects of
litellm (``ProviderError`` carries ``status_code``, ``body`` and ``response.headers``), so
retries, Retry-After, the fatal 401/403 and redaction work the same on both paths. aiohttp, not
httpx: httpcore's pool scans every connection for every waiting request, which cost more CPU per
call at concurrency 64 than litellm itself did (benchmarks/README.md, "LLM request path").
aiohttp is imported at the first call (about 0.1 s: a run that calls no model never pays it);
``preload`` imports it ahead, beside a run's start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from bench.llm.failures import StreamCut, public_url
from bench.llm.providers.routes import Route, sent_messages
from bench.vocabulary.redact import excerpt

if TYPE_CHECKING:
    import aiohttp

_log = logging.getLogger(__name__)  # shown by --verbose, redacted like every bench log
#: The longest a key probe may take (seconds): past it, the first call's own answer decides.
PROBE_TIMEOUT = 5.0


def preload() -> None:
    """Import aiohttp now (from a start-up thread), not in the first call."""
    import aiohttp  # noqa: F401


class ProviderError(Exception):
    """An HTTP error answer (or an unreadable body) from the provider."""

    def __init__(self, message: str, status: int, body: Any = None, headers: Any = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.body = body
        self.response = SimpleNamespace(headers=headers or {})


def _namespace(value: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(**value)


def _error(status: int, reason: str | None, text: str, headers: Any) -> ProviderError:
    """The provider's message, as litellm reports it (the ``error.message`` of the body)."""
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        return ProviderError(str(error.get("message") or text), status, error, headers)
    return ProviderError(text or reason or f"HTTP {status}", status, payload, headers)


def _invalid(text: str) -> ProviderError:
    return ProviderError(f"Empty or invalid response from LLM endpoint. Received: {text!r}", 500)


def _decode(text: str) -> SimpleNamespace:
    """A completion's JSON as attribute objects; an unreadable body is a 500, as in litellm."""
    try:
        value = json.loads(text, object_hook=_namespace)
    except ValueError as exc:
        raise (ProviderError(str(exc), 500) if text.lstrip().startswith("{") else _invalid(text)) from None
    if not isinstance(value, SimpleNamespace):
        raise _invalid(text)
    return value


class DirectTransport:
    """One connection pool (HTTP keep-alive) for every direct call of a client."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _http(self) -> aiohttp.ClientSession:
        import aiohttp

        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop:  # a pool's connections belong to one loop
            self.close()
            self._loop = loop
            # No connection limit of its own: the client's call slots bound what is in flight.
            connector = aiohttp.TCPConnector(limit=0)
            self._session = aiohttp.ClientSession(
                connector=connector, timeout=aiohttp.ClientTimeout(total=self.timeout)
            )
        return self._session

    async def aclose(self) -> None:
        if self._session is not None and self._loop is asyncio.get_running_loop():
            await self._session.close()
        self._session = None

    def close(self) -> None:
        """Drop the pool's connections now, from sync code or after its loop ended."""
        session, self._session = self._session, None
        if session is not None and session.connector is not None and not session.closed:
            with contextlib.suppress(Exception):
                session.connector._close()  # close() would schedule a task on a loop that may be gone

    __del__ = close

    async def chat(
        self,
        route: Route,
        messages: list[dict[str, Any]],
        params: dict[str, Any],
        stream: bool,
        started: float,
    ) -> tuple[Any, float | None]:
        """One attempt: the completion (attribute objects) and, streamed, the time to first token."""
        import aiohttp
        from multidict import CIMultiDict

        body: dict[str, Any] = {"model": route.model, "messages": sent_messages(messages), **params}
        if stream:
            body.update(stream=True, stream_options={"include_usage": True})
        body.update(route.extra)
        headers = _headers(route)
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug("POST %s model=%s stream=%s", public_url(route.url), route.model, stream)
        try:
            async with self._http().post(route.url, json=body, headers=headers) as response:
                if response.status >= 400:
                    text = await response.text(errors="replace")
                    # Redacted here, not only by the log's handler: providers echo keys they refuse.
                    said = excerpt(text, 500)
                    _log.debug("HTTP %s from %s: %s", response.status, public_url(route.url), said)
                    raise _error(response.status, response.reason, text, CIMultiDict(response.headers))
                if not stream:
                    return _decode(await response.text(errors="replace")), None
                return await _read_stream(response, started)
        except asyncio.TimeoutError:
            # Not the builtin TimeoutError: before Python 3.11 it is another class, and the client
            # retries (and words) an attempt's timeout by asyncio.TimeoutError.
            raise asyncio.TimeoutError from None
        except aiohttp.ClientError as exc:
            raise ConnectionError("Connection error.") from exc

    async def send(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        *,
        body: Any = None,
        files: dict[str, tuple[str, bytes]] | None = None,
    ) -> tuple[int, bytes]:
        """One plain request on the pool (the batch APIs): its status and body. ``body`` is sent
        as JSON; ``files`` (name -> (filename, bytes)) with ``body``'s fields as a multipart form."""
        import aiohttp

        data: aiohttp.FormData | None = None
        if files is not None:
            data = aiohttp.FormData()
            for name, value in (body or {}).items():
                data.add_field(name, str(value))
            for name, (filename, content) in files.items():
                data.add_field(name, content, filename=filename, content_type="application/jsonl")
            body = None
        try:
            async with self._http().request(method, url, json=body, data=data, headers=headers) as response:
                return response.status, await response.read()
        except asyncio.TimeoutError:
            raise asyncio.TimeoutError from None
        except aiohttp.ClientError as exc:
            raise ConnectionError("Connection error.") from exc

    async def probe(self, route: Route) -> bool:
        """Whether ``route.probe``, sent the completion's auth headers, answers 2xx: the key is
        accepted. Any other answer, a redirect, an error or ``PROBE_TIMEOUT`` is False."""
        status = await self.probe_status(route)
        return status is not None and 200 <= status < 300

    async def probe_status(self, route: Route) -> int | None:
        """The HTTP status ``route.probe`` answers, sent the completion's auth headers; None for
        no probe, an error or ``PROBE_TIMEOUT`` (the first completions' answers decide then). The
        body is not read."""
        if route.probe is None:
            return None
        import aiohttp

        timeout = aiohttp.ClientTimeout(total=min(PROBE_TIMEOUT, self.timeout))
        try:
            async with self._http().get(
                route.probe, headers=_headers(route), timeout=timeout, allow_redirects=False
            ) as response:
                status = response.status
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError, ValueError):
            return None
        _log.debug("key probe for %s: HTTP %s", route.model, status)  # no URL: it may hold a key
        return status


def auth_headers(route: Route) -> dict[str, str]:
    """A route's HTTP headers with its key (the batch APIs send them as a completion does)."""
    return _headers(route)


def _headers(route: Route) -> dict[str, str]:
    """A call's HTTP headers: the provider's own and the key, as litellm sends them (Azure's
    ``api-key`` header holds the bare key)."""
    if not route.api_key:
        return {}
    key = f"Bearer {route.api_key}" if route.key_header == "Authorization" else route.api_key
    return {**route.headers, route.key_header: key}


#: The longest server-sent event line read (a longer one is a provider error, not unbounded memory).
MAX_STREAM_LINE = 16 * 1024 * 1024


async def _lines(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    """The stream's lines, of any length up to ``MAX_STREAM_LINE`` (aiohttp's own line reader
    refuses a line over 512 KiB, which a long answer or tool-call argument in one chunk reaches)."""
    pending: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_any():
        end = chunk.find(b"\n")
        while end >= 0:
            yield b"".join((*pending, chunk[:end]))
            pending, size = [], 0
            chunk = chunk[end + 1 :]
            end = chunk.find(b"\n")
        if chunk:
            pending.append(chunk)
            size += len(chunk)
            if size > MAX_STREAM_LINE:
                raise ConnectionError(f"a streamed line over {MAX_STREAM_LINE} bytes")
    if pending:
        yield b"".join(pending)


async def _read_stream(response: aiohttp.ClientResponse, started: float) -> tuple[Any, float | None]:
    """Join a server-sent event stream into one completion, as litellm's chunk builder does."""
    parts: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish: str | None = None
    usage: Any = None
    ttft: float | None = None
    async for raw in _lines(response):
        line = raw.decode("utf-8", "replace").strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            continue
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if ttft is None and (delta.get("content") or delta.get("tool_calls")):
                ttft = (time.perf_counter() - started) * 1000
            parts.append(delta.get("content") or "")
            for call in delta.get("tool_calls") or []:
                held = calls.setdefault(
                    call.get("index", len(calls)), {"id": None, "name": "", "arguments": ""}
                )
                held["id"] = call.get("id") or held["id"]
                function = call.get("function") or {}
                held["name"] += function.get("name") or ""
                held["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    text = "".join(parts)
    if finish is None:
        raise StreamCut(text)  # a cut stream must not pass for a complete answer (RELIABILITY L8, C11)
    tool_calls = [
        SimpleNamespace(
            id=c["id"], type="function", function=SimpleNamespace(name=c["name"], arguments=c["arguments"])
        )
        for _, c in sorted(calls.items())
    ]
    message = SimpleNamespace(role="assistant", content=text or None, tool_calls=tool_calls or None)
    choice = SimpleNamespace(index=0, message=message, finish_reason=finish)
    return SimpleNamespace(choices=[choice], usage=_namespace(usage) if usage else None), ttft
