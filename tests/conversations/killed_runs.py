"""The kill tests' ``bench run`` in a subprocess of its own session (so that ``os.killpg`` ends it
and everything it started) and the calls log their assistants append to."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path


def start_bench(folder: Path, *args: str) -> subprocess.Popen[str]:
    """``bench run suite.yaml -q ARGS`` in ``folder``, its response cache there too."""
    return subprocess.Popen(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q", *args],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "BENCH_CACHE_DIR": str(folder / "cache")},
    )


def calls(folder: Path) -> list[str]:
    """The lines the assistant wrote to ``folder/calls.log``, one per call it answered or began."""
    log = folder / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def wait_for_call(folder: Path, call: str, timeout: float = 60) -> None:
    """Return once ``call`` is in the calls log; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while call not in calls(folder):
        assert time.monotonic() < deadline, f"the target never got {call!r}: {calls(folder)}"
        time.sleep(0.05)
