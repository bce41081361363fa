"""The LLM client: one ``complete`` call that is cached, retried, limited, costed and budgeted."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.llm.accounting import Budget, Prices, Totals
from bench.llm.cache.layers import CacheLayers
from bench.llm.cache.local import ResponseCache, cache_key
from bench.llm.cache.shared import SharedCache
from bench.llm.failures import (
    QueueTimeout,
    StreamCut,
    auth_hint,
    classify,
    provider_name,
    public_url,
    retry_after,
    retry_wait,
    short_reason,
)
from bench.llm.key_gate import KeyGate, Refused
from bench.llm.limits.coordination import Coordinator
from bench.llm.limits.leasing import LeaseHolder
from bench.llm.limits.throttle import AdaptiveLimit, Limits
from bench.llm.providers.direct import DirectTransport
from bench.llm.providers.litellm_import import load_litellm
from bench.llm.providers.routes import Route, is_direct, rewritten, route, serves, transport
from bench.llm.providers.warmup import prime
from bench.llm.request import CachedAnswer, LLMRequest, LLMResult
from bench.llm.settings import JudgeLimits, LLMSettings, Pricing, RuntimeLimits
from bench.vocabulary.errors import ModelCallError, RunStopped
from bench.vocabulary.models import ToolCall, Usage
from bench.vocabulary.redact import Redactor, current
from bench.vocabulary.tool_calls import decode_arguments

# Parameters that change the answer: they are sent to the model and are part of the cache key.
ANSWER_PARAMS = (
    "temperature",
    "top_p",
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "seed",
    "presence_penalty",
    "frequency_penalty",
    "tools",
    "tool_choice",
    "response_format",
    "reasoning_effort",
    "n",
)
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


class LLMClient:
    """Makes model calls for a run. Create one per run; ``close`` it at the end."""

    def __init__(
        self,
        settings: LLMSettings | None = None,
        *,
        pricing: Pricing | None = None,
        runtime_limits: RuntimeLimits | None = None,
        judge_limits: JudgeLimits | None = None,
        cache_path: Path | None = None,
        redactor: Redactor | None = None,
        coordinator: Coordinator | None = None,
        worker_id: str | None = None,
        sync_interval: float = 1.0,
        shared_cache: str | None = None,
    ) -> None:
        """With a ``coordinator``, limits, breaker and budgets are shared with the other clients
        that sync with it, every ``sync_interval`` seconds (bench.llm.limits.leasing)."""
        self.settings = settings or LLMSettings()
        transport(self.settings.transport)  # a bad BENCH_LLM_TRANSPORT fails now, not at a call
        self.prices = Prices(pricing or Pricing())
        self.totals = Totals()
        self.budget = Budget(runtime_limits or RuntimeLimits(), judge_limits or JudgeLimits(), self.totals)
        self.limits = Limits(self.settings)
        self.leases = (
            LeaseHolder(coordinator, self.limits, self.budget, worker_id=worker_id, interval=sync_interval)
            if coordinator is not None
            else None
        )
        self.cache: CacheLayers | None = None
        if self.settings.cache and (cache_path is not None or shared_cache):
            local = ResponseCache(cache_path) if cache_path is not None else None
            shared = SharedCache(shared_cache, schema=CachedAnswer) if shared_cache else None
            self.cache = CacheLayers(local, shared)
        self.redact = redactor or current()
        self._warming: asyncio.Future[None] | None = None
        #: (provider, key variable) -> its first calls (``KeyGate``): a rejected key is one
        #: error, not N, and a key that can be probed holds no call back.
        self._first_calls: dict[tuple[str, str | None], KeyGate] = {}
        self._direct = DirectTransport(self.settings.attempt_timeout)
        #: Called when litellm's import starts (the run's console says so: it takes seconds).
        self.on_import: Callable[[], None] | None = None

    def close(self) -> None:
        if self.leases is not None:
            self.leases.cancel()
        if self.cache is not None:
            self.cache.close()
        self._direct.close()

    async def aclose(self) -> None:
        """``close``, and the direct path's connection pool with it; a coordinated client
        reports its last usage first."""
        if self.leases is not None:
            await self.leases.stop()
        await self._direct.aclose()
        self.close()

    def direct(self, model: str) -> bool:
        """Whether chat calls to ``model`` go straight over HTTP, without litellm."""
        return is_direct(model, self.settings.transport)

    def _goes_direct(self, request: LLMRequest, params: dict[str, Any]) -> bool:
        """Whether this call goes straight over HTTP: a direct model, parameters and messages
        litellm sends unchanged for its provider, and a key (and endpoint) to send."""
        if request.moderation or not self.direct(request.model):
            return False
        key = os.environ.get(request.api_key_env) if request.api_key_env else None
        return not rewritten(request.model, params, request.stream, request.messages) and serves(
            request.model, request.api_base, key
        )

    def needs_litellm(self, models: list[str]) -> bool:
        """Whether calls to any of ``models`` go through litellm."""
        return any(not self.direct(m) for m in models)

    def may_call(self) -> bool:
        """Whether a call may reach a model: the cache is off or holds nothing. A run whose cache
        holds answers looks each one up first and imports litellm only at its first miss."""
        return self.cache is None or self.cache.empty()

    # -- the call -----------------------------------------------------------------------------

    async def complete(self, request: LLMRequest) -> LLMResult:
        """Make (or replay) one chat completion; raise ModelCallError or RunStopped."""
        params = {k: v for k, v in request.params.items() if k in ANSWER_PARAMS and v is not None}
        if request.api_key_env:
            self.redact.add([request.api_key_env])  # sent as a credential: a secret, whatever its name
        if self.cache is None or not request.cache:
            return await self._fresh(request, params)
        base = public_url(request.api_base or "")  # never a key passed in the URL
        key = cache_key(
            {
                "model": request.model,
                "api_base": base,
                "messages": request.messages,
                "params": params,
                "index": request.index,
                **({"moderation": True} if request.moderation else {}),
            }
        )
        async with self.cache.flight(key):  # an identical request in flight: wait for its answer
            hit = await self.cache.get(key)
            if hit is not None:
                self.totals.cached += 1
                return self._from_cache(request.model, hit)
            result = await self._fresh(request, params)
            value = result.to_cache()
            # A truncated answer is not kept, nor one holding a secret: the cache stays clean and a
            # re-run asks again, so cached and fresh runs see the same response (RELIABILITY H01).
            if result.finish_reason != "length" and not self.redact.finds_known(json.dumps(value)):
                stored = await self.cache.put(key, value)
                if stored is not value:  # another writer was first: use its answer, as readers will
                    result = self._adopt(result, stored)
        return result

    async def _fresh(self, request: LLMRequest, params: dict[str, Any]) -> LLMResult:
        """Ask the model: budget, breaker, the first-call gate, then the call with its retries."""
        provider = provider_name(request.model, request.api_base)
        if self.leases is not None:
            await self.leases.ready(provider)
            self.leases.check(provider, request.purpose)
        stopped = self.budget.exhausted(request.purpose)
        if stopped:
            raise RunStopped(f"budget {stopped} reached")
        if provider in self.limits.breaker.open:
            raise RunStopped(f"provider stopped: {self.limits.breaker.open[provider]}")
        gate = self._first_calls.get((provider, request.api_key_env))
        leader = gate is None  # this call goes first and proves the key; the others wait for it
        probing = None
        if gate is None:
            gate = self._first_calls[(provider, request.api_key_env)] = KeyGate()
            probing = self._probe(request, params, gate)
            if probing is not None:
                gate.open()  # the others go beside the probe; a refusal cuts them
        try:
            result = await self._with_retries(request, params, provider, gate, leader)
        finally:
            if leader:
                gate.open()
            if probing is not None:
                probing.cancel()  # its answer no longer matters
        self._account(request, result)
        return result

    def _probe(self, request: LLMRequest, params: dict[str, Any], gate: KeyGate) -> asyncio.Task[None] | None:
        """On the direct path, prove the first calls' key beside them with one cheap
        authenticated request (``Route.probe``): a 2xx proves ``gate``, a 401/403 cuts the calls
        in flight (the leader's own answer then says why, once: C14), anything else leaves it to
        the calls' answers. Not an attempt: never counted, costed, cached or reported."""
        if not self._goes_direct(request, params):
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

    async def _with_retries(
        self, request: LLMRequest, params: dict[str, Any], provider: str, gate: KeyGate, leader: bool
    ) -> LLMResult:
        """Attempt the call until it succeeds or must fail. The ``leader`` opens ``gate`` once its
        first attempt shows the key was not refused; the others' first attempts wait for it, as
        they wait for a call slot (within ``queue_timeout``, counted as waiting), unless a probe
        opened it already."""
        settings = self.settings
        adaptive = self.limits.for_provider(provider)
        estimate = sum(len(str(m.get("content") or "")) for m in request.messages) // 4 + int(
            params.get("max_tokens") or 256
        )
        if not self._goes_direct(request, params):
            await self.warm_up()
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            queued = time.perf_counter()
            try:
                async with self._slot(request.model, estimate, adaptive, None if leader else gate):
                    if not leader and attempt == 1 and provider in self.limits.breaker.open:
                        raise RunStopped(f"provider stopped: {self.limits.breaker.open[provider]}")
                    if attempt == 1 and self.leases is not None:
                        self.leases.check(provider, request.purpose)
                    started = time.perf_counter()  # the attempt's own time starts with its slot
                    waited += started - queued
                    self.totals.attempts += 1
                    response, ttft = await gate.send(
                        self._call(request, params, started), settings.attempt_timeout, leader
                    )
                if request.moderation:
                    result = self._parse_moderation(request.model, response, attempt, started)
                else:
                    result = self._parse(request.model, response, attempt, started)
                result.usage.ttft_ms = ttft
                result.usage.attempts = attempt
                result.usage.wait_ms = round(waited * 1000, 3)
            except RunStopped:
                raise
            except Refused:  # another answer refused the key while this call was in flight
                await gate.wait()
                if provider in self.limits.breaker.open:
                    raise RunStopped(f"provider stopped: {self.limits.breaker.open[provider]}") from None
                continue
            except ModelCallError as exc:  # an empty completion: permanent, not the provider's fault
                if not isinstance(exc, QueueTimeout):
                    self.limits.breaker.success(provider)
                exc.attempts = attempt
                raise
            except Exception as exc:
                retryable, fatal, status = classify(exc)
                if status == 429 and adaptive.rate_limited():
                    sys.stderr.write(
                        f"note: {request.model} is rate-limited (429): at most {adaptive.limit} "
                        f"call{'s' * (adaptive.limit > 1)} at a time now\n"
                    )
                reason = "timed out" if isinstance(exc, asyncio.TimeoutError) else short_reason(exc)
                if reason.lower().startswith("connection error"):
                    # litellm reports a refused connection as a 500 (RELIABILITY L4): say what happened.
                    url = public_url(request.api_base) if request.api_base else "the provider's API"
                    reason, status = f"cannot connect to {url}", None
                if fatal:
                    gate.refuse()
                    if provider in self.limits.breaker.open:  # another call's refusal said it already
                        raise RunStopped(f"provider stopped: {self.limits.breaker.open[provider]}") from None
                if status in (401, 403):
                    reason = f"{reason} ({auth_hint(request.model, request.api_key_env)})"
                if not retryable or attempt >= settings.max_attempts:
                    self.limits.breaker.failure(provider, self.redact(reason), fatal=fatal)
                    where = f"{status} from " if status else ""
                    message = f"{where}{request.model} after {attempt} attempt{'s' * (attempt > 1)}: {reason}"
                    raise ModelCallError(
                        self.redact(message),
                        model=request.model,
                        status=status,
                        attempts=attempt,
                        partial=exc.partial if isinstance(exc, StreamCut) else None,
                    ) from None
                if leader:
                    gate.open()  # not an auth failure: the others need not wait for the retries
                # The slot was given back above, so a task sleeping here holds no connection (G04).
                wait = retry_wait(attempt, retry_after(exc), settings.max_wait)
                await asyncio.sleep(wait)
                waited += wait
                continue
            self.limits.breaker.success(provider)
            if not gate.proven:
                gate.prove()
            await adaptive.succeeded()
            return result

    @asynccontextmanager
    async def _slot(
        self, model: str, estimate: int, adaptive: AdaptiveLimit, after: KeyGate | None = None
    ) -> AsyncIterator[None]:
        """Hold the model's and the provider's call slots, waiting at most ``queue_timeout`` (G05),
        once ``after`` (the provider's first call) is set."""
        async with contextlib.AsyncExitStack() as held:

            async def acquire() -> None:
                if after is not None:
                    await after.wait()
                await held.enter_async_context(self.limits.model(model, estimate))
                await held.enter_async_context(adaptive.slot())

            try:
                await asyncio.wait_for(acquire(), self.settings.queue_timeout)
            except asyncio.TimeoutError:
                limit = adaptive.limit
                raise QueueTimeout(
                    f"{model}: no free call slot after waiting {self.settings.queue_timeout:g} s "
                    f"(at most {limit} call{'s' * (limit > 1)} at a time to this provider); "
                    "raise llm.queue_timeout or llm.concurrency",
                    model=model,
                ) from None
            yield

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

    async def _call(
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
        if self._goes_direct(request, params):
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

    def _parse_moderation(self, model: str, response: Any, attempt: int, started: float) -> LLMResult:
        results = getattr(response, "results", None) or []
        if not results:
            raise ModelCallError(f"empty moderation result from {model}", model=model)
        first = results[0]
        raw_scores = getattr(first, "category_scores", None) or {}
        if hasattr(raw_scores, "model_dump"):
            raw_scores = raw_scores.model_dump(by_alias=True)
        scores = {str(k): float(v) for k, v in dict(raw_scores).items() if isinstance(v, (int, float))}
        text = json.dumps({"flagged": bool(getattr(first, "flagged", False)), "scores": scores})
        usage = Usage(latency_ms=round((time.perf_counter() - started) * 1000, 3), cost_usd=0.0)
        return LLMResult(model, text, [], "stop", usage, attempts=attempt)

    async def moderate(
        self, model: str, text: str, *, api_base: str | None = None, api_key_env: str | None = None
    ) -> dict[str, Any]:
        """Category scores for ``text`` from a moderation model: ``{flagged, scores}``."""
        request = LLMRequest(
            model=model,
            messages=[{"role": "user", "content": text}],
            api_base=api_base,
            api_key_env=api_key_env,
            purpose="judge",
            moderation=True,
        )
        result = await self.complete(request)
        value: dict[str, Any] = json.loads(result.text or "{}")
        return value

    async def embed(self, model: str, texts: list[str], *, api_base: str | None = None) -> list[list[float]]:
        """Embeddings for ``texts`` from an API model (litellm), with bench's bounded retries."""
        litellm = load_litellm()
        provider = provider_name(model, api_base)
        attempt = 0
        while True:
            attempt += 1
            try:
                kwargs: dict[str, Any] = {"model": model, "input": texts, "num_retries": 0, "max_retries": 0}
                if api_base:
                    kwargs["api_base"] = api_base
                response = await asyncio.wait_for(litellm.aembedding(**kwargs), self.settings.attempt_timeout)
                self.totals.calls += 1
                self.limits.breaker.success(provider)
                return [list(map(float, item["embedding"])) for item in response.data]
            except Exception as exc:
                retryable, fatal, status = classify(exc)
                reason = "timed out" if isinstance(exc, asyncio.TimeoutError) else short_reason(exc)
                if not retryable or attempt >= self.settings.max_attempts:
                    self.limits.breaker.failure(provider, self.redact(reason), fatal=fatal)
                    raise ModelCallError(
                        self.redact(f"{model} embeddings after {attempt} attempts: {reason}"),
                        model=model,
                        status=status,
                    ) from None
                await asyncio.sleep(retry_wait(attempt, retry_after(exc), self.settings.max_wait))

    def _parse(self, model: str, response: Any, attempt: int, started: float) -> LLMResult:
        latency_ms = (time.perf_counter() - started) * 1000
        choice = response.choices[0]
        message = choice.message
        calls = []
        for call in getattr(message, "tool_calls", None) or []:
            arguments = decode_arguments(call.function.arguments)  # text that is not JSON stays (C20)
            calls.append(ToolCall(name=call.function.name, arguments=arguments, id=getattr(call, "id", None)))
        text = message.content
        finish = getattr(choice, "finish_reason", None)
        if not text and not calls:
            raise ModelCallError(f"empty completion from {model} (finish_reason={finish})", model=model)
        usage_in = getattr(response, "usage", None)
        input_tokens = getattr(usage_in, "prompt_tokens", None)
        output_tokens = getattr(usage_in, "completion_tokens", None)
        usage = Usage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=(input_tokens or 0) + (output_tokens or 0) if usage_in else None,
            cost_usd=self.prices.cost(model, input_tokens, output_tokens),
            latency_ms=round(latency_ms, 3),
        )
        raw_message = {"role": "assistant", "content": text}
        if calls:
            raw_message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": json.dumps(c.arguments)
                        if not isinstance(c.arguments, str)
                        else c.arguments,
                    },
                }
                for c in calls
            ]
        return LLMResult(model, text, calls, finish, usage, attempts=attempt, raw_message=raw_message)

    def _adopt(self, result: LLMResult, stored: dict[str, Any]) -> LLMResult:
        """``result`` answering with the stored text and tool calls; its usage stays what was spent."""
        answer = self._from_cache(result.model, stored)
        return replace(
            result,
            text=answer.text,
            tool_calls=answer.tool_calls,
            finish_reason=answer.finish_reason,
            raw_message=answer.raw_message,
        )

    def _from_cache(self, model: str, hit: dict[str, Any]) -> LLMResult:
        replayed = {"cost_usd": 0.0, "latency_ms": 0.0, "attempts": 0, "wait_ms": 0.0}
        usage = Usage.model_validate({**hit.get("usage", {}), **replayed})
        calls = [ToolCall.model_validate(c) for c in hit.get("tool_calls", [])]
        return LLMResult(
            model,
            hit.get("text"),
            calls,
            hit.get("finish_reason"),
            usage,
            attempts=0,
            cached=True,
            raw_message=hit.get("raw_message", {}),
        )

    def _account(self, request: LLMRequest, result: LLMResult) -> None:
        t = self.totals
        u = result.usage
        tokens = (u.input_tokens or 0) + (u.output_tokens or 0)
        t.calls += 1
        t.input_tokens += u.input_tokens or 0
        t.output_tokens += u.output_tokens or 0
        per_model = t.by_model.setdefault(request.model, {"calls": 0, "tokens": 0, "cost_usd": 0.0})
        per_model["calls"] += 1
        per_model["tokens"] += tokens
        if u.cost_usd is None:
            t.unpriced_calls += 1
        else:
            t.cost_usd += u.cost_usd
            per_model["cost_usd"] += u.cost_usd
        if request.purpose == "judge":
            t.judge_tokens += tokens
            t.judge_cost_usd += u.cost_usd or 0.0
