"""A task's ``after_task`` command: run once the task is decided, before its workspace goes.

The command gets the task's result as JSON (``BENCH_RESULT``, redacted as the store keeps it) and
runs in its workspace with bench's environment; what it prints reaches bench's standard error a
line at a time, redacted as bench's own output is (RELIABILITY H25). It runs under the same
guards as a ``command`` target: the reaper and ``PR_SET_PDEATHSIG`` (nothing it starts outlives
it or bench, SIGKILL included), the offline guard's network namespace, and a time limit. It
cannot change the verdict: what goes wrong is a warning on standard error, also kept in the
result's ``after_task``. It runs before the result is recorded, so a task recorded had its command
run, and a task killed while it ran is run again, command included, by ``--resume``.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from bench.execution.sink import serialize_result
from bench.execution.targets.reaped import die_with, reaper_argv, stop_program
from bench.vocabulary.models import Task
from bench.vocabulary.results import ERROR, FAILED, PASSED, TaskResult
from bench.workspace import network_guard
from bench.workspace.roots.scratch import scratch_folder

#: The statuses after which the command runs (not a person's turn, not an interrupted task).
DECIDED = (PASSED, FAILED, ERROR)
#: A line longer than this is passed on in pieces, cut after its last whitespace where it has one.
LONG_LINE = 1024 * 1024
#: How long the relay may take to pass on the rest once the command and what it started are gone.
RELAY_GRACE_S = 5.0
_LAST_SPACE = re.compile(r".*\s", re.DOTALL)


async def run_after_task(task: Task, result: TaskResult, redact: Callable[[str], str] | None) -> None:
    """Run ``task.after_task`` (if any) for ``result``; a failure is printed and kept in the
    result's ``after_task`` (recorded after this returns), never raised."""
    step = task.after_task
    if step is None or result.status not in DECIDED:
        return
    problem = await _run(task, result, redact)
    if problem is not None:
        result.after_task = problem
        print(f"bench: after_task of {result.id}: {problem}", file=sys.stderr, flush=True)


async def _run(task: Task, result: TaskResult, redact: Callable[[str], str] | None) -> str | None:
    assert task.after_task is not None
    step = task.after_task
    cwd = Path(task.workspace) if task.workspace else Path.cwd()
    try:
        argv = [*network_guard.child_prefix(), *step.command]
    except network_guard.OfflineRefused as exc:
        return f"not run: {exc}"
    text = serialize_result(result)  # as the store writes it: a lone surrogate escaped
    with scratch_folder("bench-after-task-") as scratch:
        path = scratch / "result.json"
        path.write_text(redact(text) if redact is not None else text, encoding="utf-8")
        env = {
            **os.environ,
            **step.env,
            "BENCH_RESULT": str(path),
            "BENCH_TASK_ID": result.id,
            "BENCH_TASK_STATUS": result.status,
            "BENCH_WORKSPACE": str(cwd),
        }
        reaped = reaper_argv()
        try:
            proc = await asyncio.create_subprocess_exec(
                *reaped,
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,  # to bench's standard error, redacted
                stderr=asyncio.subprocess.STDOUT,
                cwd=cwd,
                env=env,
                start_new_session=True,
                preexec_fn=functools.partial(die_with, os.getpid()) if reaped else None,
            )
        except OSError as exc:
            return f"cannot start {step.command[0]}: {exc.strerror or exc}"
        assert proc.stdout is not None
        relay = asyncio.ensure_future(_relay(proc.stdout, redact))
        try:
            code = await asyncio.wait_for(proc.wait(), step.timeout)
        except asyncio.TimeoutError:
            return f"timed out after {step.timeout:g} s"
        finally:
            with contextlib.suppress(ProcessLookupError):
                await stop_program(proc)
            # the reaper killed whatever else held the pipe: the relay reaches its end
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(relay, RELAY_GRACE_S)
    return f"exited with code {code}" if code != 0 else None


async def _relay(stream: asyncio.StreamReader, redact: Callable[[str], str] | None) -> None:
    """Pass the command's output on to bench's standard error a line at a time, redacted.

    Whole lines, so that a secret is never split between two writes where the redactor would
    miss both halves; a line over ``LONG_LINE`` is cut after its last whitespace (a key has none).
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    while chunk := await stream.read(64 * 1024):
        pending += decoder.decode(chunk)
        cut = pending.rfind("\n") + 1
        if not cut and len(pending) > LONG_LINE:
            space = _LAST_SPACE.match(pending)
            cut = space.end() if space else len(pending)
        if cut:
            _say(pending[:cut], redact)
            pending = pending[cut:]
    _say(pending + decoder.decode(b"", final=True), redact)


def _say(text: str, redact: Callable[[str], str] | None) -> None:
    if text:
        sys.stderr.write(redact(text) if redact is not None else text)
        sys.stderr.flush()
