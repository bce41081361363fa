"""The LLM client: one ``complete`` call that is cached, retried, limited, costed and budgeted."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

from bench.llm import answers
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
from bench.llm.providers.calls import ProviderCalls
from bench.llm.request import CachedAnswer, LLMRequest, LLMResult
from bench.llm.settings import JudgeLimits, LLMSettings, Pricing, RuntimeLimits
from bench.vocabulary.errors import ModelCallError, RunStopped
from bench.vocabulary.redact import Redactor, current

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


class BatchRoute(Protocol):
    """What the client asks of the run's batches (bench.llm.batch.collector.Batcher)."""

    def takes(self, request: LLMRequest, params: dict[str, Any]) -> bool: ...

    async def complete(
        self, request: LLMRequest, params: dict[str, Any], rid: str, live: Callable[[], Awaitable[LLMResult]]
    ) -> LLMResult: ...

    async def aclose(self) -> None: ...

    def waiting(self) -> bool: ...

    def report(self) -> dict[str, Any]: ...


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
        on_import: Callable[[], None] | None = None,
    ) -> None:
        """With a ``coordinator``, limits, breaker and budgets are shared with the other clients
        that sync with it, every ``sync_interval`` seconds (bench.llm.limits.leasing).
        ``on_import`` is called when litellm's import starts (a run's console says so: it takes
        seconds)."""
        self.settings = settings or LLMSettings()
        self.calls = ProviderCalls(self.settings)
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
        #: (provider, key variable) -> its first calls (``KeyGate``): a rejected key is one
        #: error, not N, and a key that can be probed holds no call back.
        self._first_calls: dict[tuple[str, str | None], KeyGate] = {}
        self.on_import = on_import
        #: The run's batches (bench.llm.batch.collector, set by the run); None: every call live.
        self.batcher: BatchRoute | None = None

    def batches(self, model: str) -> bool:
        """Whether calls to ``model`` are set to go to batches (its own ``batch``, else ``llm.batch``)."""
        own = self.settings.models.get(model)
        return own.batch if own is not None and own.batch is not None else self.settings.batch

    @property
    def on_import(self) -> Callable[[], None] | None:
        """Called when litellm's import starts (the run's console says so: it takes seconds)."""
        return self.calls.on_import

    @on_import.setter
    def on_import(self, callback: Callable[[], None] | None) -> None:
        self.calls.on_import = callback

    def close(self) -> None:
        if self.leases is not None:
            self.leases.cancel()
        if self.cache is not None:
            self.cache.close()
        self.calls.close()

    async def aclose(self) -> None:
        """``close``, and the direct path's connection pool with it; a coordinated client
        reports its last usage first."""
        if self.batcher is not None:
            await self.batcher.aclose()
        if self.leases is not None:
            await self.leases.stop()
        await self.calls.aclose()
        self.close()

    def direct(self, model: str) -> bool:
        """Whether chat calls to ``model`` go straight over HTTP, without litellm."""
        return self.calls.direct(model)

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
            return await self._fresh(request, params, None)  # no key: only a batch needs one then
        key = _key(request, params)
        async with self.cache.flight(key):  # an identical request in flight: wait for its answer
            hit = await self.cache.get(key)
            if hit is not None:
                self.totals.cached += 1
                return answers.replayed(request.model, hit)
            result = await self._fresh(request, params, key)
            value = result.to_cache()
            # A truncated answer is not kept, nor one holding a secret: the cache stays clean and a
            # re-run asks again, so cached and fresh runs see the same response (RELIABILITY H01).
            if result.finish_reason != "length" and not self.redact.finds_known(json.dumps(value)):
                stored = await self.cache.put(key, value)
                if stored is not value:  # another writer was first: use its answer, as readers will
                    result = answers.adopted(result, stored)
        return result

    async def _fresh(self, request: LLMRequest, params: dict[str, Any], key: str | None) -> LLMResult:
        """Ask the model: budget, breaker, then a batch, or the call live. ``key``: the cache key
        when the call is cached (a batch names the call by it), else None."""
        provider = provider_name(request.model, request.api_base)
        if self.leases is not None:
            await self.leases.ready(provider)
            self.leases.check(provider, request.purpose)
        stopped = self.budget.exhausted(request.purpose)
        if stopped:
            raise RunStopped(f"budget {stopped} reached")
        if provider in self.limits.breaker.open:
            raise RunStopped(f"provider stopped: {self.limits.breaker.open[provider]}")
        batcher = self.batcher
        if batcher is not None and self.batches(request.model) and batcher.takes(request, params):
            rid = key if key is not None else _key(request, params)
            result = await batcher.complete(
                request, params, rid, lambda: self._live(request, params, provider)
            )
        else:
            result = await self._live(request, params, provider)
        self._account(request, result)
        return result

    async def _live(self, request: LLMRequest, params: dict[str, Any], provider: str) -> LLMResult:
        """The call live: the first-call gate, then the call with its retries."""
        gate = self._first_calls.get((provider, request.api_key_env))
        leader = gate is None  # this call goes first and proves the key; the others wait for it
        probing = None
        if gate is None:
            gate = self._first_calls[(provider, request.api_key_env)] = KeyGate()
            probing = self.calls.probe(request, params, gate)
            if probing is not None:
                gate.open()  # the others go beside the probe; a refusal cuts them
        try:
            result = await self._with_retries(request, params, provider, gate, leader)
        finally:
            if leader:
                gate.settle()
            if probing is not None:
                probing.cancel()  # its answer no longer matters
        return result

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
        if not self.calls.goes_direct(request, params):
            await self.warm_up()
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            queued = time.perf_counter()
            try:
                async with self._slot(request.model, estimate, adaptive, None if leader else gate):
                    if not leader and attempt == 1:
                        self._stop_if_open(provider)
                    if attempt == 1 and self.leases is not None:
                        self.leases.check(provider, request.purpose)
                    started = time.perf_counter()  # the attempt's own time starts with its slot
                    waited += started - queued
                    self.totals.attempts += 1
                    response, ttft = await gate.send(
                        self.calls.attempt(request, params, started), settings.attempt_timeout, leader
                    )
                if request.moderation:
                    result = answers.moderation(request.model, response, attempt, started)
                else:
                    result = answers.completion(request.model, response, attempt, started, self.prices)
                result.usage.ttft_ms = ttft
                result.usage.attempts = attempt
                result.usage.wait_ms = round(waited * 1000, 3)
            except RunStopped:
                raise
            except Refused:  # another answer refused the key while this call was in flight
                await gate.wait()
                self._stop_if_open(provider)
                continue
            except ModelCallError as exc:  # an empty completion: permanent, not the provider's fault
                if not isinstance(exc, QueueTimeout):
                    self.limits.breaker.success(provider)
                exc.attempts = attempt
                raise
            except Exception as exc:
                retryable, fatal, status = classify(exc)
                reason, status = self._failure(request, exc, status, adaptive)
                if fatal:
                    gate.refuse()
                    self._stop_if_open(provider)  # another call's refusal said it already
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

    def _stop_if_open(self, provider: str) -> None:
        """Raise ``RunStopped`` when ``provider``'s breaker is open (a refusal, or failures)."""
        if provider in self.limits.breaker.open:
            raise RunStopped(f"provider stopped: {self.limits.breaker.open[provider]}")

    def _failure(
        self, request: LLMRequest, exc: Exception, status: int | None, adaptive: AdaptiveLimit
    ) -> tuple[str, int | None]:
        """A failed attempt's reason in words and its status; a rate limit's cut is said on stderr."""
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
        if status in (401, 403):
            reason = f"{reason} ({auth_hint(request.model, request.api_key_env)})"
        return reason, status

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
        return self.calls.warmed_up

    async def warm_up(self) -> None:
        """Import litellm and run its first call in memory, once, before any attempt's timer
        starts: that costs seconds, which must not time out an attempt or count as latency (N05)."""
        await self.calls.warm_up()

    async def moderate(
        self, model: str, text: str, *, api_base: str | None = None, api_key_env: str | None = None
    ) -> dict[str, Any]:
        """Category scores for ``text`` from a moderation model: ``{flagged, scores, categories}``
        (``categories``: the model's flag for each category)."""
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
        embedding = self.calls.embedding(model, texts, api_base)
        provider = provider_name(model, api_base)
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await embedding()
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
        elif request.purpose == "simulator":
            t.simulator_calls += 1
            t.simulator_tokens += tokens
            t.simulator_cost_usd += u.cost_usd or 0.0


def _key(request: LLMRequest, params: dict[str, Any]) -> str:
    """The request's cache key (and its id in a batch): what changes its answer."""
    return cache_key(
        {
            "model": request.model,
            "api_base": public_url(request.api_base or ""),  # never a key passed in the URL
            "messages": request.messages,
            "params": params,
            "index": request.index,
            **({"moderation": True} if request.moderation else {}),
        }
    )
