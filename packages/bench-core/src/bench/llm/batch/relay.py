"""Batched calls made in a worker process, answered by the driver's batches (docs/batch.md).

A distributed executor's workers run the tasks, and the driver owns the run's batches: their
submission, polling, ledger and stages. A worker's client sends each batched call through
``RelayedBatches`` to the driver (by a transport the executor provides), and the driver answers
it with ``answer`` from its own ``Batcher``. An answer is the call's result, the error to raise
in the worker, or *live*: the batch gave up on it and ``--batch-retry-live`` says to call it live,
which the worker does with its own client (its limits, its retries).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from bench.llm.batch.collector import Batcher, BatchesPending
from bench.llm.request import LLMRequest, LLMResult
from bench.vocabulary.errors import ModelCallError, RunStopped

if TYPE_CHECKING:
    from bench.llm.client import BatchRoute

#: Sends one batched call to the driver; its answer (``answer_batched``).
Send = Callable[[LLMRequest, dict[str, Any], str], Awaitable[dict[str, Any]]]


class _Live(Exception):
    """The driver's batches gave a call up and ``--batch-retry-live`` calls it live."""


async def answer_batched(
    batches: BatchRoute, request: LLMRequest, params: dict[str, Any], rid: str
) -> dict[str, Any]:
    """The driver's answer to a worker's batched call: ``{"result": LLMResult}``, ``{"live": True}``
    or ``{"error": kind, "message": ...}`` (a failed call, a stopped run, batches still pending)."""

    async def live() -> LLMResult:
        raise _Live

    try:
        return {"result": await batches.complete(request, params, rid, live)}
    except _Live:
        return {"live": True}
    except ModelCallError as exc:
        return {
            "error": "call",
            "message": str(exc),
            "model": exc.model,
            "status": exc.status,
            "attempts": exc.attempts,
        }
    except RunStopped as exc:
        return {"error": "pending" if isinstance(exc, BatchesPending) else "stopped", "message": exc.reason}
    except Exception as exc:  # the worker's task fails with it, as it would have here
        return {"error": "call", "message": f"{request.model}: {exc}", "model": request.model}


def _raised(outcome: dict[str, Any]) -> Exception:
    """The error an answer carries, as the worker raises it."""
    message = str(outcome.get("message"))
    if outcome["error"] == "call":
        return ModelCallError(
            message,
            model=str(outcome.get("model")),
            status=outcome.get("status"),
            attempts=int(outcome.get("attempts") or 1),
        )
    return BatchesPending(message) if outcome["error"] == "pending" else RunStopped(message)


class RelayedBatches:
    """A worker's batches (the client's ``batcher``): each call answered by the driver's."""

    def __init__(self, send: Send) -> None:
        self.send = send

    @staticmethod
    def takes(request: LLMRequest, params: dict[str, Any]) -> bool:
        """What the driver's batches take (``Batcher.takes``)."""
        return Batcher.takes(request, params)

    async def complete(
        self, request: LLMRequest, params: dict[str, Any], rid: str, live: Callable[[], Awaitable[LLMResult]]
    ) -> LLMResult:
        outcome = await self.send(request, params, rid)
        if "result" in outcome:
            result: LLMResult = outcome["result"]
            return result
        if outcome.get("live"):
            return await live()
        raise _raised(outcome)

    async def aclose(self) -> None:
        """Nothing to stop: the driver polls."""

    def waiting(self) -> bool:
        """Never: the driver's batches say what is waiting."""
        return False

    def report(self) -> dict[str, Any]:
        """Nothing: the driver's batches are the manifest's."""
        return {}
