"""Start and stop a program so that nothing it starts outlives it or bench (Linux).

The program runs under ``bench.execution.reaper`` (a child subreaper), which bench's death
reaches through ``PR_SET_PDEATHSIG``, SIGKILL included; the ``command`` target and a task's
``after_task`` command start programs this way.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import time
from typing import Any

from bench.execution import reaper
from bench.workspace.sandbox import kill_group, reap

PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 3.0  # how long the reaper may take to kill a program's processes before bench does


def _libc_prctl() -> Any:
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(None).prctl
    return None


_prctl = _libc_prctl() if sys.platform.startswith("linux") else None


def reaper_argv() -> list[str]:
    """The words that run a program under ``bench.execution.reaper`` (Linux), or none where it cannot."""
    if not sys.platform.startswith("linux") or not sys.executable:
        return []
    return [sys.executable, "-I", "-S", reaper.__file__]


def die_with(parent: int) -> None:  # runs in the child between fork and exec
    """SIGTERM the reaper when bench dies, even by SIGKILL; it then kills what the program started."""
    if _prctl is not None:  # looked up before the fork: no dlopen in a forked child of a threaded process
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # bench died before the line above
        os._exit(1)


async def stop_program(proc: asyncio.subprocess.Process) -> None:
    """End a program and everything it started.

    The reaper gets SIGTERM first, so it can kill the daemons that left the process group; the
    group is SIGKILLed after it (or at once where no reaper runs).
    """
    try:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            # returncode, not proc.wait(): that also waits for the pipes, which may never close
            deadline = time.monotonic() + STOP_GRACE_S
            while proc.returncode is None and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
    finally:
        kill_group(proc.pid)
    if proc.returncode is None:
        await reap(proc)  # not proc.wait(): it can hang on a pipe nobody reads (3.11)
