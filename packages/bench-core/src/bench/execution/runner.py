"""The runner: produce each task's response, evaluate it and record the result.

Workers pull tasks from one shared iterator (never one coroutine per task up front), so memory
stays flat however many tasks a suite has. A finished task is appended to the store before the
progress callback runs. Interruption cancels in-flight tasks, which are recorded as
``interrupted`` and run again on resume.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bench.evaluator import Evaluator, Sample
from bench.execution import killable
from bench.execution.after.task_command import run_after_task
from bench.execution.bounded import DEFAULT_MAX_RESPONSE_BYTES, bound_response
from bench.execution.conversation import (
    Journal,
    converse,
    judge,
    kept_conversation,
    kept_steps,
    open_journal,
    waits,
)
from bench.execution.evaluation import (
    EVALUATOR_TIMEOUT_S,
    scorecard,
    task_score,
    task_status,
    with_evidence,
)
from bench.execution.inputs import input_fields
from bench.llm.client import LLMClient
from bench.suite.plan import PlannedTask
from bench.target import Target
from bench.vocabulary.errors import ConfigError, EvaluatorError, RunStopped, TargetError
from bench.vocabulary.models import Response, Task
from bench.vocabulary.results import (
    ERROR,
    FAILED,
    INTERRUPTED,
    PASSED,
    WAITING,
    EvaluatorOutcome,
    TaskResult,
)
from bench.workspace.captures import carry_captures, store_captures, task_folder
from bench.workspace.checkout import STORED_WORKSPACE, Checkout, GitError, Workspaces

DEFAULT_TIMEOUT_S = 300.0
#: How often (seconds) a worker running only fast sync tasks yields to the event loop.
YIELD_EVERY_S = 0.02
#: How many tasks the runner reads ahead to hand their recorded responses to batching evaluators.
PREPARE_CHUNK = 512


class _Feed:
    """The shared task iterator. When a chunk of tasks is read, evaluators that batch (``batches``)
    receive the samples of its recorded responses at once (``prepare``) before any is evaluated."""

    def __init__(self, tasks: Iterator[PlannedTask], llm: LLMClient | None, max_response_bytes: int) -> None:
        self.tasks = tasks
        self.llm = llm
        self.max_response_bytes = max_response_bytes
        self.buffer: list[PlannedTask] = []
        self.lock = asyncio.Lock()
        self.exhausted = False

    async def next(self) -> PlannedTask | None:
        if self.buffer:  # a prepared chunk: no await between the test and the pop
            return self.buffer.pop()
        async with self.lock:
            if not self.buffer and not self.exhausted:
                chunk = list(itertools.islice(self.tasks, PREPARE_CHUNK))
                chunk.reverse()
                await self._prepare(chunk)
                self.buffer = chunk  # handed out only once prepared
                self.exhausted = len(chunk) < PREPARE_CHUNK
            return self.buffer.pop() if self.buffer else None

    def has_more(self) -> bool:
        """Whether another task may follow (false once the last one has been handed out)."""
        return bool(self.buffer) or not self.exhausted

    async def _prepare(self, chunk: list[PlannedTask]) -> None:
        groups: dict[type[Any], list[tuple[Any, Sample]]] = {}
        for planned in chunk:
            response = planned.task.response
            if response is None or response.error is not None:
                continue  # responses not known yet: those are evaluated one by one
            batching = [e for e in planned.evaluators if e.instance.batches]
            if not batching:
                continue
            response = bound_response(response, self.max_response_bytes)  # as _run_task sees it
            base = Sample(planned.task, response, response.text, False, self.llm)
            for evaluator in batching:
                try:
                    sample = (
                        with_evidence(evaluator, base)
                        if evaluator.target or evaluator.expected_from
                        else base
                    )
                except EvaluatorError:
                    continue  # evaluate() reports it
                groups.setdefault(type(evaluator.instance), []).append((evaluator.instance, sample))
        for cls, items in groups.items():
            with contextlib.suppress(Exception):  # evaluate() redoes the work and reports any error
                await cls.prepare(items)


class Runner:
    """Runs planned tasks with a concurrency limit and hands each result to ``record``."""

    def __init__(
        self,
        target: Target[Any] | None,
        record: Callable[[TaskResult], None],
        *,
        concurrency: int = 8,
        default_timeout: float = DEFAULT_TIMEOUT_S,
        llm: LLMClient | None = None,
        evaluator_timeout: float = EVALUATOR_TIMEOUT_S,
        metrics: dict[str, str] | None = None,
        signals: Mapping[str, str] | None = None,
        keep_workspaces: bool = False,
        captures_dir: Path | None = None,
        redact: Callable[[str], str] | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        targets: dict[str, Target[Any]] | None = None,
        portable_captures: bool = False,
        aggregating: Callable[[str, str, Evaluator[Any]], None] | None = None,
    ) -> None:
        #: Captured files travel in the result (``workspace.captured[path].portable``) for the
        #: process that owns the store to write (``land_captures``), instead of into ``captures_dir``.
        self.portable_captures = portable_captures
        #: The suite's ``targets:`` by label; a task with a ``target_label`` runs on its own.
        self.targets = targets or {}
        self.metrics = metrics or {}
        #: Behavioural signal types -> their metric collectors (the plan's ``signals``).
        self.signals = signals if signals is not None else {}  # `or` would read every type
        #: What evaluators see and the result keeps of a response (the head; D01).
        self.max_response_bytes = max_response_bytes
        self.keep_workspaces = keep_workspaces
        #: Where captured files are kept (``<run>/captures/<task>/<path>``), secrets redacted.
        self.captures_dir = captures_dir
        self.redact = redact
        self.workspaces: Workspaces | None = None
        self.evaluator_timeout = evaluator_timeout
        self.target = target
        self.record = record
        self.concurrency = max(1, concurrency)
        self.default_timeout = default_timeout
        self.llm = llm
        self.interrupted = False
        #: Told of each evaluator with suite-level figures that runs (its name, type and instance).
        self.aggregating = aggregating
        #: Why the run stopped starting tasks (a budget, a failing provider), if it did.
        self.stopped: str | None = None
        self._workers: list[asyncio.Task[None]] = []
        #: Tasks that only wait for their LLM judges, no longer holding a worker.
        self._judging: set[asyncio.Task[None]] = set()
        #: Workers waiting for room among the judging tasks, first come first woken.
        self._room: collections.deque[asyncio.Future[None]] = collections.deque()
        self._failure: BaseException | None = None
        self._next_yield = 0.0
        #: Conversations answered, by key, whose journals go once their results are recorded.
        self._journals: dict[str, Journal] = {}

    def interrupt(self) -> None:
        """Stop starting tasks and cancel those in flight (they are recorded as interrupted)."""
        self.interrupted = True
        for task in [*self._workers, *self._judging]:
            task.cancel()

    async def run(self, tasks: Iterable[PlannedTask]) -> None:
        feed = _Feed(iter(tasks), self.llm, self.max_response_bytes)
        killable.set_size(self.concurrency)
        self._spawn(feed)
        try:
            # Workers are started one by one as tasks are handed out, never more than are needed.
            while running := [t for t in (*self._workers, *self._judging) if not t.done()]:
                await asyncio.wait(running)
        except asyncio.CancelledError:
            self.interrupt()
            await asyncio.gather(*self._workers, *self._judging, return_exceptions=True)
            raise
        finally:
            if self.workspaces is not None:
                self.workspaces.close()
            killable.shutdown()
        if self._failure is not None:
            raise self._failure
        for worker in self._workers:
            failure = None if worker.cancelled() else worker.exception()
            if failure is not None:
                raise failure

    def _spawn(self, feed: _Feed) -> None:
        self._workers.append(asyncio.ensure_future(self._worker(feed)))

    def _should_stop(self) -> bool:
        if self.interrupted or self.stopped:
            return True
        if self.llm is not None:
            reached = self.llm.budget.exhausted()
            broken = self.llm.limits.breaker.open
            if reached:
                self.stopped = f"budget {reached} reached"
            elif broken:
                self.stopped = f"provider stopped: {next(iter(broken.values()))}"
        return self.stopped is not None

    async def _worker(self, feed: _Feed) -> None:
        while (planned := await feed.next()) is not None:
            if self._should_stop():
                return
            if len(self._workers) < self.concurrency and feed.has_more():
                self._spawn(feed)
            if self.aggregating is not None:
                for evaluator in planned.evaluators:
                    if evaluator.instance.aggregates:
                        self.aggregating(evaluator.name, evaluator.type, evaluator.instance)
            if planned.task.repo is None and any(e.is_async for e in planned.evaluators):
                await self._run_judged(planned)
            else:
                await self._run_and_record(planned)
            if time.monotonic() >= self._next_yield:
                # A run of fast sync tasks never suspends on its own: let signals, progress and
                # the other workers in.
                self._next_yield = time.monotonic() + YIELD_EVERY_S
                await asyncio.sleep(0)

    async def _run_judged(self, planned: PlannedTask) -> None:
        """Run a task with async (LLM) evaluators; once it only waits for them, it goes on in the
        background and this worker takes the next task (RELIABILITY G06, G02)."""
        while len(self._judging) >= self.concurrency:  # judging is bounded like responding
            # Woken by _judged, one waiter per finished task: asyncio.wait over the whole set
            # from every waiting worker cost O(concurrency²) callbacks per finished judge.
            room = asyncio.get_running_loop().create_future()
            self._room.append(room)
            await room
        if self._should_stop():
            return  # a budget or the breaker stopped the run while this task waited: not started
        released = asyncio.Event()
        task = asyncio.ensure_future(self._run_and_record(planned, released))
        waiting = asyncio.ensure_future(released.wait())
        try:
            await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise
        finally:
            waiting.cancel()
        if task.done():
            task.result()
            return
        self._judging.add(task)
        task.add_done_callback(self._judged)

    def _judged(self, task: asyncio.Task[None]) -> None:
        self._judging.discard(task)
        while self._room:
            room = self._room.popleft()
            if not room.done():  # a cancelled waiter (an interrupted worker) passes its turn on
                room.set_result(None)
                break
        if not task.cancelled() and task.exception() is not None and self._failure is None:
            self._failure = task.exception()  # the store failed: stop the run, say why
            self.interrupt()

    async def _run_and_record(self, planned: PlannedTask, released: asyncio.Event | None = None) -> None:
        try:
            result = await self.run_task(planned, released)
        except asyncio.CancelledError:
            self.record(
                TaskResult(
                    id=planned.task.id,
                    repeat=planned.task.repeat,
                    status=INTERRUPTED,
                    passed=False,
                    digest=planned.digest,
                    **input_fields(planned.task, self.target_for(planned), self.max_response_bytes),
                )
            )
            raise
        except RunStopped as stop:
            # In-flight tasks finish; this one is left for --resume.
            self.stopped = self.stopped or stop.reason
            result = TaskResult(
                id=planned.task.id,
                repeat=planned.task.repeat,
                status=INTERRUPTED,
                passed=False,
                error=stop.reason,
                digest=planned.digest,
                **input_fields(planned.task, self.target_for(planned), self.max_response_bytes),
            )
        self.record(result)
        journal = self._journals.pop(planned.key, None)
        if journal is not None and result.status not in (INTERRUPTED, WAITING):
            journal.finish()  # a waiting conversation's journal is where the person's answer goes

    def target_for(self, planned: PlannedTask) -> Target[Any] | None:
        """The target that answers ``planned``."""
        if planned.target_label is not None:
            return self.targets[planned.target_label]
        return self.target

    async def _respond(self, planned: PlannedTask) -> Response:
        task = planned.task
        if task.response is not None:
            return task.response
        target = self.target_for(planned)
        if target is None:
            return Response(error="the task has no recorded response and the suite has no target")
        if task.conversation is not None and not target.replays:
            journal = open_journal(self._run_folder(), planned.key, planned.digest)
            response = await converse(task, lambda turn: self._answer(target, turn), self.llm, journal)
            self._journals[planned.key] = journal
            return response
        return await self._answer(target, task)

    def _recorded(self, planned: PlannedTask) -> bool:
        target = self.target_for(planned)
        return planned.task.response is not None or (target is not None and target.replays)

    def _run_folder(self) -> Path | None:
        """The run's folder, where conversations are journalled (none where workers lack it)."""
        if self.captures_dir is None or self.portable_captures:
            return None
        return self.captures_dir.parent

    async def _answer(self, target: Target[Any], task: Task) -> Response:
        """The target's response to ``task`` within its timeout; a failure is the response's error."""
        timeout = task.timeout or self.default_timeout
        try:
            return await asyncio.wait_for(target.respond(task), timeout)
        except asyncio.TimeoutError:
            return Response(error=f"timed out after {timeout:g} s")
        except TargetError as exc:
            return Response(error=str(exc))
        except (ConfigError, RunStopped):
            raise
        except Exception as exc:  # the target's own bug: the task errors, the run goes on
            return Response(error=f"target '{target.name}' raised {type(exc).__name__}: {exc}")

    async def run_task(self, planned: PlannedTask, released: asyncio.Event | None = None) -> TaskResult:
        """Produce, evaluate and score one task (in a fresh workspace when it names a repo).

        ``released`` is set once the task only waits for its async evaluators."""
        if planned.task.repo is None or planned.task.response is not None:
            result = await self._run_task(planned, None, released)
            if planned.task.after_task is not None:
                await run_after_task(planned.task, result, self.redact)
            return result
        started = time.perf_counter()
        if self.workspaces is None:
            self.workspaces = Workspaces(keep=self.keep_workspaces)
        try:
            checkout = await self.workspaces.prepare(planned.task.repo)
        except (GitError, OSError) as exc:
            return TaskResult(
                id=planned.task.id,
                repeat=planned.task.repeat,
                status=ERROR,
                passed=False,
                error=f"workspace: {exc}",
                digest=planned.digest,
                **input_fields(planned.task, self.target_for(planned), self.max_response_bytes),
                duration_ms=(time.perf_counter() - started) * 1000,
            )
        task = planned.task.model_copy(update={"workspace": str(checkout.path)})
        try:
            result = await self._run_task(dataclasses.replace(planned, task=task), checkout)
            await run_after_task(task, result, self.redact)  # its workspace is still there
            return result
        finally:
            self.workspaces.release(checkout)

    async def _captured(self, planned: PlannedTask, response: Response, checkout: Checkout) -> Response:
        """The response with what the target did to its workspace (diff, captures, escapes)."""
        task = planned.task
        try:
            found = await checkout.finish(task.post_execution_checks, task.max_capture_bytes)
            if self.portable_captures and found.get("files"):
                carry_captures(found["files"], self.redact)
            elif self.captures_dir is not None and found.get("files"):
                store_captures(found["files"], task_folder(self.captures_dir, planned.key), self.redact)
        except (GitError, OSError) as exc:
            error = response.error or f"workspace: capturing the changes failed: {exc}"
            return response.model_copy(update={"error": error})
        return response.model_copy(update={"artifacts": {**response.artifacts, **found}})

    async def _run_task(
        self, planned: PlannedTask, checkout: Checkout | None, released: asyncio.Event | None = None
    ) -> TaskResult:
        started = time.perf_counter()
        task = planned.task
        response = task.response if task.response is not None else await self._respond(planned)
        responded_ms = (time.perf_counter() - started) * 1000
        if checkout is not None:
            response = await self._captured(planned, response, checkout)
        response = bound_response(response, self.max_response_bytes)
        common: dict[str, Any] = {
            "id": task.id,
            "repeat": task.repeat,
            "response": response.output,
            "truncated": response.truncated,
            "truncation": response.truncation,
            "response_bytes": response.output_bytes,
            "response_sha256": response.output_sha256,
            "error": response.error,
            "tool_calls": response.tool_calls,
            "usage": response.usage,
            "digest": planned.digest,
            "workspace": checkout.summary(response.artifacts, self.keep_workspaces)
            if checkout
            else response.artifacts.get(STORED_WORKSPACE),
            "conversation": kept_conversation(task, response, self._recorded(planned)),
            "trajectory": kept_steps(response, checkout is not None, planned.task.conversation is not None),
            **input_fields(task, self.target_for(planned), self.max_response_bytes),
        }
        if waits(response) or (response.error is not None and not planned.expects_error):
            status = WAITING if waits(response) else ERROR  # a person's turn: nothing to judge yet
            return TaskResult(
                **common, status=status, passed=False, duration_ms=(time.perf_counter() - started) * 1000
            )
        is_error = response.error is not None
        output = response.error if is_error else response.text
        # What the system reports wins; else the measured call (nothing for a recorded response).
        latency = response.usage.latency_ms
        if latency is None and task.response is None:
            latency = responded_ms
        sample = Sample(task, response, output or "", is_error, self.llm, latency_ms=latency)
        # Sync evaluators run inline; async ones (LLM judges) run concurrently. Order is kept.
        timeout = self.evaluator_timeout
        slots: list[Any] = [
            judge(e, sample, timeout) if e.is_async else await judge(e, sample, timeout)
            for e in planned.evaluators
        ]
        pending = [i for i, slot in enumerate(slots) if not isinstance(slot, EvaluatorOutcome)]
        if pending:
            if released is not None:
                released.set()
            for i, outcome in zip(pending, await asyncio.gather(*(slots[i] for i in pending)), strict=True):
                slots[i] = outcome
        outcomes: list[EvaluatorOutcome] = slots
        status, unjudged = task_status(outcomes)
        if unjudged is not None:
            common["error"] = unjudged
        score = task_score(outcomes)
        card = None
        if planned.scorecard is not None:
            card = scorecard(planned, outcomes, response, latency, self.signals, self.metrics)
            score = card["score"]
            status = ERROR if card["passed"] is None else PASSED if card["passed"] else FAILED
        return TaskResult(
            **common,
            status=status,
            passed=status == PASSED,
            score=score,
            evaluators=outcomes,
            scorecard=card,
            duration_ms=(time.perf_counter() - started) * 1000,
        )
