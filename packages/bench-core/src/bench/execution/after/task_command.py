"""A task's ``after_task`` command: run once the task is decided, before its workspace goes.

The command gets the task's result as JSON (``BENCH_RESULT``, redacted as the store keeps it) and
runs in its workspace, under the same guards as a ``command`` target: the reaper and
``PR_SET_PDEATHSIG`` (nothing it starts outlives it or bench, SIGKILL included), the offline
guard's network namespace, and a time limit. It cannot change the result: what goes wrong is a
warning on standard error. It runs before the result is recorded, so a task recorded had its
command run, and a task killed while it ran is run again, command included, by ``--resume``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.execution.targets.reaped import die_with, reaper_argv, stop_program
from bench.vocabulary.models import Task
from bench.vocabulary.results import ERROR, FAILED, PASSED, TaskResult
from bench.workspace import network_guard

#: The statuses after which the command runs (not a person's turn, not an interrupted task).
DECIDED = (PASSED, FAILED, ERROR)


async def run_after_task(task: Task, result: TaskResult, redact: Callable[[str], str] | None) -> None:
    """Run ``task.after_task`` (if any) for ``result``; a failure is printed, never raised."""
    step = task.after_task
    if step is None or result.status not in DECIDED:
        return
    problem = await _run(task, result, redact)
    if problem is not None:
        print(f"bench: after_task of {result.id}: {problem}", file=sys.stderr, flush=True)


async def _run(task: Task, result: TaskResult, redact: Callable[[str], str] | None) -> str | None:
    assert task.after_task is not None
    step = task.after_task
    cwd = Path(task.workspace) if task.workspace else Path.cwd()
    try:
        argv = [*network_guard.child_prefix(), *step.command]
    except network_guard.OfflineRefused as exc:
        return f"not run: {exc}"
    text = result.model_dump_json()
    with tempfile.TemporaryDirectory(prefix="bench-after-task-") as scratch:
        path = Path(scratch, "result.json")
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
                stdout=2,  # its output goes to bench's standard error: the response is kept already
                cwd=cwd,
                env=env,
                start_new_session=True,
                preexec_fn=functools.partial(die_with, os.getpid()) if reaped else None,
            )
        except OSError as exc:
            return f"cannot start {step.command[0]}: {exc.strerror or exc}"
        try:
            code = await asyncio.wait_for(proc.wait(), step.timeout)
        except asyncio.TimeoutError:
            return f"timed out after {step.timeout:g} s"
        finally:
            with contextlib.suppress(ProcessLookupError):
                await stop_program(proc)
    return f"exited with code {code}" if code != 0 else None
