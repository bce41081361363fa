"""``--batch`` on Ray: the workers' batched calls reach the driver, which owns the batches.

``BatchRelay`` is an async actor between the two: a worker's call (``ask``) waits there until the
driver, which takes the calls waiting (``take``) and answers each from its own batches
(``bench.distributed.answer_batched``), hands its answer back (``answer``). The driver alone
submits, polls, keeps the ledger and moves the stages on; the workers run what is local on the
answers (deterministic evaluators, live calls, scoring). ``serve`` is the driver's side.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any

from bench.distributed import answer_batched

#: Most calls waiting in the relay at once (an async actor's concurrency): every task of a batch
#: run is in flight, its call waiting on its batch.
MAX_WAITING = 1_000_000

Asked = tuple[int, Any, dict[str, Any], str]


class BatchRelay:
    """Workers' batched calls waiting for the driver's answers."""

    def __init__(self) -> None:
        self.numbers = itertools.count()
        self.asked: list[Asked] = []
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.arrived = asyncio.Event()

    async def ask(self, request: Any, params: dict[str, Any], rid: str) -> dict[str, Any]:
        """A worker's batched call; the driver's answer (``answer_batched``)."""
        number = next(self.numbers)
        answered = self.waiting[number] = asyncio.get_running_loop().create_future()
        self.asked.append((number, request, params, rid))
        self.arrived.set()
        try:
            outcome: dict[str, Any] = await answered
            return outcome
        finally:
            self.waiting.pop(number, None)

    async def take(self, wait_s: float) -> list[Asked]:
        """The calls asked since the last ``take`` (waits up to ``wait_s`` for one)."""
        if not self.asked:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), wait_s)
        taken, self.asked = self.asked, []
        self.arrived.clear()
        return taken

    def answer(self, number: int, outcome: dict[str, Any]) -> None:
        """The driver's answer to call ``number`` (its worker may have gone: then nobody waits)."""
        answered = self.waiting.get(number)
        if answered is not None and not answered.done():
            answered.set_result(outcome)


def start() -> Any:
    """A relay actor for this run (on any node: the driver and the workers reach it)."""
    import ray

    return ray.remote(BatchRelay).options(num_cpus=0, max_concurrency=MAX_WAITING).remote()


async def serve(relay: Any, batches: Any, tick_s: float) -> None:
    """The driver's side, until cancelled: each call the workers ask is answered from ``batches``
    (the driver's ``Batcher``) as its batch ends, many at once."""
    answering: set[asyncio.Task[None]] = set()

    async def reply(number: int, request: Any, params: dict[str, Any], rid: str) -> None:
        outcome = await answer_batched(batches, request, params, rid)
        await relay.answer.remote(number, outcome)

    try:
        while True:
            for number, request, params, rid in await relay.take.remote(tick_s):
                task = asyncio.ensure_future(reply(number, request, params, rid))
                answering.add(task)
                task.add_done_callback(answering.discard)
    finally:
        for task in answering:
            task.cancel()
        await asyncio.gather(*answering, return_exceptions=True)
