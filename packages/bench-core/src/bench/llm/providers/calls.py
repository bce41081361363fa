"""One attempt of a model call, sent the way its model goes: straight over HTTP to an
OpenAI-compatible provider (``bench.llm.providers.direct``, chosen by ``routes``) or through
litellm, imported and primed in memory first (``warmup``). Retries, limits and accounting are the
client's (``bench.llm.client``); an attempt here only asks and returns the provider's answer.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from bench.llm.failures import StreamCut
from bench.llm.key_gate import KeyGate
from bench.llm.providers.direct import DirectTransport
from bench.llm.providers.litellm_import import load_litellm
from bench.llm.providers.routes import Route, is_direct, rewritten, route, serves, transport
from bench.llm.providers.warmup import prime
from bench.llm.request import LLMRequest
from bench.llm.settings import LLMSettings
from bench.vocabulary.errors import ModelCallError

_warmed_up = False


def _mid_stream_errors(litellm: Any) -> tuple[type[BaseException], ...]:
    """What litellm raises while iterating a stream that broke off (its MidStreamFallbackError,
    in litellm.exceptions from 1.110 on)."""
    found = (getattr(litellm.exceptions, "MidStreamFallbackError", None), litellm.APIConnectionError)
    return tuple(kind for kind in found if isinstance(kind, type))


def _supported_params(litellm: Any, model: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` without those the model's provider does not take (litellm would refuse them)."""
    try:
        supported = litellm.get_supported_openai_params(model=model)
    except Exception:  # an unknown provider: send everything, the provider says what it refuses
        supported = None
    return {k: v for k, v in params.items() if k in supported} if supported else params


class ProviderCalls:
    """Sends a client's attempts: over the direct path where it serves the call, else litellm."""

    def __init__(self, settings: LLMSettings) -> None:
        transport(settings.transport)  # a bad BENCH_LLM_TRANSPORT fails now, not at a call
        self.settings = settings
        self._direct = DirectTransport(settings.attempt_timeout)
        self._warming: asyncio.Future[None] | None = None
        #: Called when litellm's import starts (the run's console says so: it takes seconds).
        self.on_import: Callable[[], None] | None = None

    @property
    def transport(self) -> DirectTransport:
        """The direct path's connection pool (the batch APIs use it too)."""
        return self._direct

    def close(self) -> None:
        self._direct.close()

    async def aclose(self) -> None:
        """The direct path's connection pool."""
        await self._direct.aclose()

    def direct(self, model: str) -> bool:
        """Whether chat calls to ``model`` go straight over HTTP, without litellm."""
        return is_direct(model, self.settings.transport)

    def goes_direct(self, request: LLMRequest, params: dict[str, Any]) -> bool:
        """Whether this call goes straight over HTTP: a direct model, parameters and messages
        litellm sends unchanged for its provider, and a key (and endpoint) to send."""
        if request.moderation or not self.direct(request.model):
            return False
        key = os.environ.get(request.api_key_env) if request.api_key_env else None
        return not rewritten(request.model, params, request.stream, request.messages) and serves(
            request.model, request.api_base, key
        )

    def probe(self, request: LLMRequest, params: dict[str, Any], gate: KeyGate) -> asyncio.Task[None] | None:
        """On the direct path, prove the first calls' key beside them with one cheap
        authenticated request (``Route.probe``): a 2xx proves ``gate``, a 401/403 cuts the calls
        in flight (the leader's own answer then says why, once: C14), anything else leaves it to
        the calls' answers. Not an attempt: never counted, costed, cached or reported."""
        if not self.goes_direct(request, params):
            return None
        key = os.environ.get(request.api_key_env) if request.api_key_env else None
        if request.api_key_env and not key:
            return None  # the call itself says the variable is not set
        try:
            where = route(request.model, request.api_base, key)
        except ValueError:
            return None  # the call itself reports it
        return asyncio.ensure_future(self._prove(where, gate))

    async def _prove(self, where: Route, gate: KeyGate) -> None:
        status = await self._direct.probe_status(where)
        if status is not None and 200 <= status < 300:
            gate.prove()
        elif status in (401, 403):
            gate.refuse()

    @property
    def warmed_up(self) -> bool:
        """Whether litellm is imported and primed in this process (``warm_up`` returns at once)."""
        return _warmed_up

    async def warm_up(self) -> None:
        """Import litellm and run its first call in memory, once, before any attempt's timer
        starts: that costs seconds, which must not time out an attempt or count as latency (N05)."""
        global _warmed_up
        if _warmed_up:
            return
        if self._warming is None:
            if self.on_import is not None:
                self.on_import()
            self._warming = asyncio.ensure_future(prime(load_litellm()))
        await asyncio.shield(self._warming)
        _warmed_up = True

    async def attempt(
        self, request: LLMRequest, params: dict[str, Any], started: float
    ) -> tuple[Any, float | None]:
        """One attempt; returns the completion and, when streamed, the time to first token (ms)."""
        key = None
        if request.api_key_env and not request.moderation:
            key = os.environ.get(request.api_key_env)
            if not key:
                raise ModelCallError(
                    f"environment variable {request.api_key_env} is not set (it should hold the API key)",
                    model=request.model,
                )
        if self.goes_direct(request, params):
            where = route(request.model, request.api_base, key)
            return await self._direct.chat(where, request.messages, params, request.stream, started)
        litellm = load_litellm()
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages,
            "num_retries": 0,  # bench owns retries (RELIABILITY L2)
            "max_retries": 0,
            "timeout": self.settings.attempt_timeout,
            **_supported_params(litellm, request.model, params),
        }
        if request.moderation:
            return await self._moderate(litellm, request), None
        if request.api_base:
            kwargs["api_base"] = request.api_base
        if key:
            kwargs["api_key"] = key
        if not request.stream:
            return await litellm.acompletion(**kwargs), None
        return await _streamed(litellm, kwargs, request, started)

    async def _moderate(self, litellm: Any, request: LLMRequest) -> Any:
        """One moderation call, with the OpenAI client's own retries off (bench owns retries)."""
        from openai import AsyncOpenAI

        env = request.api_key_env or "OPENAI_API_KEY"
        key = os.environ.get(env)
        if not key:
            raise ModelCallError(
                f"environment variable {env} is not set (it should hold the API key)", model=request.model
            )
        base = request.api_base or os.environ.get("OPENAI_API_BASE")
        client = AsyncOpenAI(api_key=key, base_url=base, max_retries=0, timeout=self.settings.attempt_timeout)
        try:
            return await litellm.amoderation(
                input=str(request.messages[0]["content"]), model=request.model, client=client
            )
        finally:
            await client.close()

    def embedding(self, model: str, texts: list[str], api_base: str | None) -> Callable[[], Awaitable[Any]]:
        """Attempts at embeddings for ``texts`` from an API model: litellm is imported now, each
        call of the function returned is one attempt, answered by litellm's response."""
        litellm = load_litellm()
        kwargs: dict[str, Any] = {"model": model, "input": texts, "num_retries": 0, "max_retries": 0}
        if api_base:
            kwargs["api_base"] = api_base
        return lambda: asyncio.wait_for(litellm.aembedding(**kwargs), self.settings.attempt_timeout)


async def _streamed(
    litellm: Any, kwargs: dict[str, Any], request: LLMRequest, started: float
) -> tuple[Any, float | None]:
    """A streamed completion through litellm, rebuilt whole, and its time to first token (ms)."""
    stream = await litellm.acompletion(**kwargs, stream=True, stream_options={"include_usage": True})
    chunks, ttft, finished, parts = [], None, False, []
    try:
        async for chunk in stream:
            chunks.append(chunk)
            choice = chunk.choices[0] if chunk.choices else None
            delta = getattr(choice, "delta", None)
            parts.append(getattr(delta, "content", None) or "")
            if (
                ttft is None
                and delta is not None
                and (getattr(delta, "content", None) or getattr(delta, "tool_calls", None))
            ):
                ttft = (time.perf_counter() - started) * 1000
            finished = finished or bool(getattr(choice, "finish_reason", None))
    except _mid_stream_errors(litellm) as exc:
        # Newer litellm raises on a stream that ends without a finish_reason (RELIABILITY L8,
        # C11); older ones end it quietly and are caught below. Either way it is a cut stream.
        raise StreamCut("".join(parts)) from exc
    # litellm invents finish_reason="stop" for a stream cut short (RELIABILITY L8); its
    # stream wrapper still knows whether the provider sent one.
    if getattr(stream, "received_finish_reason", "") is None:
        finished = False
    if not finished:
        # A cut stream must not pass for a complete answer (RELIABILITY L8, C11).
        raise StreamCut("".join(parts))
    return litellm.stream_chunk_builder(chunks, messages=request.messages), ttft
