"""Model calls gathered into provider batches: each call waits for its batch's answer.

A call that goes to a batch joins its model's pending group; once no call has joined for
``settle_s`` seconds the group is submitted as one batch. So the stages of a run follow its data:
every task's target call is pending at once (one batch), their judges' calls once those answers
came back (a second batch). The ledger (bench.llm.batch.ledger) makes each batch durable: a
resumed run finds its earlier batches and waits for them instead of submitting again, and reads
the answers of those already collected. With ``detach`` a call whose batch has not ended stops the
run (``BatchesPending``): ``bench run --resume RUN_ID`` collects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench.llm import answers
from bench.llm.accounting import Prices
from bench.llm.batch.ledger import Entry, Ledger
from bench.llm.batch.protocols import BatchError, Protocol, protocol, protocol_of
from bench.llm.providers.direct import DirectTransport
from bench.llm.request import LLMRequest, LLMResult
from bench.vocabulary import redact
from bench.vocabulary.errors import ModelCallError, RunStopped

#: Most requests in one batch (OpenAI's limit per file; Anthropic's is larger).
MAX_BATCH = 50_000
#: Rounds a request may be sent in batches that expired, were cancelled or failed it for a
#: transient reason, before it fails (or, with ``retry_live``, is called live).
MAX_ROUNDS = 3
Live = Callable[[], Awaitable[LLMResult]]


class BatchesPending(RunStopped):
    """``--detach``: the run's batches are submitted and not ended; resume to collect them."""


def refusal(model: str) -> str:
    """What ``batch: true`` forced on a model without a batch API says."""
    return (
        f"{model}: its provider has no batch API bench can use (batches go to openai/, groq/, "
        "together_ai/ and anthropic/ models, or an OpenAI-compatible api_base under openai/); "
        "remove batch: true for it, or run without --batch"
    )


@dataclass
class _Group:
    model: str
    api_base: str | None
    key_env: str | None
    lines: dict[str, dict[str, Any]] = field(default_factory=dict)
    submitted: asyncio.Future[str] | None = None
    timer: asyncio.TimerHandle | None = None
    #: Being submitted: a call that comes now joins the next group.
    closed: bool = False


@dataclass
class BatchSummary:
    """What a run sent through batches: for its manifest and report."""

    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: int = 0
    cost_usd: float = 0.0
    #: The same answers at the live price (what the batches saved, beside ``cost_usd``).
    live_cost_usd: float = 0.0
    live_retries: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "batches": list(self.batches.values()),
            "requests": self.requests,
            "cost_usd": round(self.cost_usd, 10),
            "live_cost_usd": round(self.live_cost_usd, 10),
            "live_retries": self.live_retries,
        }


class Batcher:
    """The batches of one run, kept in ``ledger``; calls answered by them (``complete``)."""

    def __init__(
        self,
        ledger: Ledger,
        http: DirectTransport,
        prices: Prices,
        *,
        settle_s: float = 0.5,
        poll_s: float = 30.0,
        detach: bool = False,
        retry_live: bool = False,
    ) -> None:
        self.ledger = ledger
        self.http = http
        self.prices = prices
        self.settle_s = settle_s
        self.poll_s = poll_s
        self.detach = detach
        self.retry_live = retry_live
        self.summary = BatchSummary()
        self._bases: dict[str | None, str | None] = {}  # api_base as the ledger keeps it -> as given
        self._groups: dict[tuple[str, str | None, str | None], _Group] = {}
        self._watching: dict[str, asyncio.Task[dict[str, dict[str, Any]] | None]] = {}
        self._read: dict[str, dict[str, dict[str, Any]]] = {}
        self._submitting: set[asyncio.Task[None]] = set()

    @classmethod
    def at(cls, folder: Path, http: DirectTransport, prices: Prices, **options: Any) -> Batcher:
        """A batcher whose ledger is in ``folder`` (a resumed run's: its batches are found again)."""
        return cls(Ledger(folder), http, prices, **options)

    @staticmethod
    def takes(request: LLMRequest, params: dict[str, Any]) -> bool:
        """Whether this call can go to a batch: a chat call to a provider with a batch API
        (Anthropic's only without tools or JSON mode, which its batch lines are not written for)."""
        kind = protocol_of(request.model)
        if kind is None or request.moderation or request.stream or params.get("n"):
            return False
        return kind != "anthropic" or not ({"tools", "tool_choice", "response_format"} & set(params))

    async def complete(self, request: LLMRequest, params: dict[str, Any], rid: str, live: Live) -> LLMResult:
        """The answer to one call, from a batch (an earlier one of this run when there is one)."""
        started = time.perf_counter()
        rounds = 0
        while True:
            outcome, batch_id = await self._outcome(request, params, rid)
            if "ok" in outcome:
                return self._result(request, outcome["ok"], started, batch_id)
            error = outcome["error"]
            rounds += 1
            if error.get("retry") and self.retry_live:
                self.summary.live_retries += 1
                return await live()
            if not error.get("retry") or rounds >= MAX_ROUNDS:
                status = error.get("status")
                where = f"{status} from " if status else ""
                message = f"{where}{request.model} in batch {batch_id}: {error.get('message')}"
                raise ModelCallError(message, model=request.model, status=status, attempts=rounds)
            self._forget(rid)  # the next round goes to a new batch

    def _result(self, request: LLMRequest, body: dict[str, Any], started: float, batch_id: str) -> LLMResult:
        response = json.loads(json.dumps(body), object_hook=lambda d: SimpleNamespace(**d))
        result = answers.completion(request.model, response, 1, started, self.prices)
        u = result.usage
        u.cost_usd = self.prices.cost(request.model, u.input_tokens, u.output_tokens, batch=True)
        self.summary.requests += 1
        self.summary.cost_usd += u.cost_usd or 0.0
        self.summary.live_cost_usd += self.prices.cost(request.model, u.input_tokens, u.output_tokens) or 0.0
        row = self.summary.batches.get(batch_id)
        if row is not None:
            row["cost_usd"] = round(row.get("cost_usd", 0.0) + (u.cost_usd or 0.0), 10)
        return result

    async def _outcome(
        self, request: LLMRequest, params: dict[str, Any], rid: str
    ) -> tuple[dict[str, Any], str]:
        """The request's outcome and its batch's id: from the ledger, a batch in flight, or a new one."""
        self._stored_base(request.api_base)
        for entry in list(self.ledger.entries.values()):
            if rid not in entry.ids:
                continue
            rows = await self._rows(entry)
            if rows is not None and rid in rows:
                return rows[rid], entry.batch_id or entry.token
        group = self._join(request, params, rid)
        assert group.submitted is not None
        token = await asyncio.shield(group.submitted)
        entry = self.ledger.entries[token]
        rows = await self._rows(entry)
        if rows is None or rid not in rows:
            raise ModelCallError(
                f"{request.model}: batch {entry.batch_id} lost request {rid}", model=request.model
            )
        return rows[rid], entry.batch_id or token

    def _forget(self, rid: str) -> None:
        """Drop ``rid`` from the batches already read, so it is sent again."""
        for entry in self.ledger.entries.values():
            if rid in entry.ids:
                entry.ids = [i for i in entry.ids if i != rid]

    async def _rows(self, entry: Entry) -> dict[str, dict[str, Any]] | None:
        """A batch's outcomes, once it ended; None when it was only intended and never reached
        the provider (its requests go to a new batch)."""
        if entry.token in self._read:
            return self._read[entry.token]
        if entry.collected:
            self._read[entry.token] = self.ledger.results(entry.token)
            return self._read[entry.token]
        task = self._watching.get(entry.token)
        if task is None:
            task = self._watching[entry.token] = asyncio.ensure_future(self._watch(entry))
        return await asyncio.shield(task)

    def _join(self, request: LLMRequest, params: dict[str, Any], rid: str) -> _Group:
        """Add the call to its model's pending group (submitted once calls stop joining)."""
        key = (request.model, request.api_base, request.api_key_env)
        group = self._groups.get(key)
        if group is None or group.closed:
            group = self._groups[key] = _Group(request.model, request.api_base, request.api_key_env)
            group.submitted = asyncio.get_running_loop().create_future()
        if rid not in group.lines:
            group.lines[rid] = self._protocol(group.model, group.api_base, group.key_env).line(
                rid, request.messages, params
            )
        if group.timer is not None:
            group.timer.cancel()
        loop = asyncio.get_running_loop()
        if len(group.lines) >= MAX_BATCH:
            group.closed = True
            self._start(group)
        else:
            group.timer = loop.call_later(self.settle_s, self._start, group)
        return group

    def _start(self, group: _Group) -> None:
        task = asyncio.ensure_future(self._submit(group))
        self._submitting.add(task)  # held until done: the loop keeps only weak references
        task.add_done_callback(self._submitting.discard)

    def _stored_base(self, api_base: str | None) -> str | None:
        """``api_base`` as the ledger keeps it (redacted), remembering the real one for this run."""
        stored = redact.current()(api_base) if api_base else api_base
        self._bases[stored] = api_base
        return stored

    def _protocol(self, model: str, api_base: str | None, key_env: str | None) -> Protocol:
        key = os.environ.get(key_env) if key_env else None
        return protocol(self.http, model, api_base, key)

    async def _submit(self, group: _Group) -> None:
        """Write the intent, submit, write the id: in that order, so a crash between them is
        found again by the token (never submitted twice)."""
        group.timer, group.closed = None, True
        assert group.submitted is not None
        api = self._protocol(group.model, group.api_base, group.key_env)
        token = uuid.uuid4().hex
        # A key in the api_base's query stays off disk (H15); a resume maps it back (``_bases``).
        base = self._stored_base(group.api_base)
        route = {"model": group.model, "api_base": base, "api_key_env": group.key_env}
        self.ledger.intent(token, api.kind, list(group.lines), route)
        try:
            batch_id = await api.submit(token, list(group.lines.values()))
        except (BatchError, ConnectionError, asyncio.TimeoutError) as exc:
            group.submitted.set_exception(
                ModelCallError(f"{group.model}: batch not submitted: {exc}", model=group.model)
            )
            return
        self.ledger.submitted(token, batch_id)
        self.summary.batches[batch_id] = {
            "id": batch_id,
            "provider": api.kind,
            "model": group.model,
            "requests": len(group.lines),
        }
        group.submitted.set_result(token)

    async def _watch(self, entry: Entry) -> dict[str, dict[str, Any]] | None:
        """Find (after a crash), poll and download one batch; its outcomes by request id."""
        route = entry.route
        base = route.get("api_base")
        api = self._protocol(route["model"], self._bases.get(base, base), route.get("api_key_env"))
        if entry.batch_id is None:
            known = {e.batch_id for e in self.ledger.entries.values() if e.batch_id}
            found = await api.find(entry.token, entry.at, len(entry.ids), known)
            if found is None:
                return None  # never reached the provider: its calls join a new batch
            self.ledger.submitted(entry.token, found)
        assert entry.batch_id is not None
        self.summary.batches.setdefault(
            entry.batch_id,
            {"id": entry.batch_id, "provider": api.kind, "model": route["model"], "requests": len(entry.ids)},
        )
        while True:
            ended = await api.poll(entry.batch_id)
            if ended is not None:
                break
            if self.detach:
                raise BatchesPending(f"waiting on batches: {entry.batch_id} has not ended")
            await asyncio.sleep(self.poll_s)
        rows = await api.results(ended, entry.ids)
        self.summary.batches[entry.batch_id]["status"] = ended.get("status") or ended.get("processing_status")
        self.ledger.collect(entry.token, rows)
        self._read[entry.token] = {row["id"]: row for row in rows}
        return self._read[entry.token]

    def waiting(self) -> bool:
        """Whether a batch of the run has not been collected yet."""
        return bool(self.ledger.waiting())

    def report(self) -> dict[str, Any]:
        """What the manifest records of the run's batches."""
        return self.summary.to_dict()

    async def aclose(self) -> None:
        """Stop polling (a stopped run's batches stay in the ledger, for its resume)."""
        for task in self._watching.values():
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
