"""User Python for promptfoo configs, run in one worker process per interpreter, reused by the run.

promptfoo runs a config's Python (assertions, providers, ...) under ``PROMPTFOO_PYTHON`` (a
provider's ``pythonExecutable`` first); bench does the same, with its own interpreter as the default.
The worker (``python_worker.py``) starts at the first call and stays until the process exits or
``close_all`` runs; calls to one worker take turns. Each call has a time limit: promptfoo's
``REQUEST_TIMEOUT_MS`` (default 300,000 ms) unless the caller gives one. A call that runs past it
kills the worker (a fresh one starts for the next call) and raises ``PythonTimeout``.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path
from typing import Any

#: promptfoo's default time limit for a provider call (``getRequestTimeoutMs``), in milliseconds.
DEFAULT_TIMEOUT_MS = 300_000
_WORKER = Path(__file__).with_name("python_worker.py")
_STDERR_LINES = 20


class PythonFailure(Exception):
    """The user's code raised (or could not be loaded, or returned what JSON cannot hold)."""

    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__(str(reply.get("last") or reply.get("error")))
        #: Where it failed: ``load`` (the file or code), ``lookup`` (the function), ``call``, ``result``.
        self.stage = str(reply.get("stage", "call"))
        #: ``str(exception)``, as promptfoo's persistent wrapper reports it.
        self.error = str(reply.get("error", ""))
        #: The traceback's last line (``ZeroDivisionError: division by zero``), as python-shell reports it.
        self.last = str(reply.get("last", ""))
        self.traceback = str(reply.get("traceback", ""))
        #: The script's file, and its public callables when the function was not found.
        self.module = reply.get("module")
        self.available = [str(name) for name in reply.get("available") or []]


class PythonTimeout(Exception):
    """The call ran past its time limit; the worker was killed."""


class PythonUnavailable(Exception):
    """The worker could not be started, or died during the call (the message says why)."""


#: Seconds a freshly started worker may take to boot before its first call's limit starts.
STARTUP_ALLOWANCE_S = 10.0


def interpreter(configured: str | None = None) -> str:
    """The Python promptfoo would use: ``configured`` (``pythonExecutable``), else
    ``PROMPTFOO_PYTHON``, else bench's own interpreter."""
    return configured or os.environ.get("PROMPTFOO_PYTHON") or sys.executable


def timeout_ms(configured: Any = None) -> float:
    """A call's time limit: ``configured`` (a provider's ``timeout``), else ``REQUEST_TIMEOUT_MS``,
    else promptfoo's 300,000 ms."""
    if isinstance(configured, (int, float)) and not isinstance(configured, bool) and configured > 0:
        return float(configured)
    text = os.environ.get("REQUEST_TIMEOUT_MS", "")
    try:
        value = int(text)
    except ValueError:
        return DEFAULT_TIMEOUT_MS
    return float(value) if value > 0 else DEFAULT_TIMEOUT_MS


def _offline_now() -> bool:
    """Whether this is an offline run: the worker started now turns its guard on (docs/offline.md)."""
    return os.environ.get("BENCH_OFFLINE") == "1"


class PythonWorker:
    """One worker process under one interpreter; ``call`` blocks, so run it off the event loop."""

    def __init__(self, python: str) -> None:
        self.python = python
        self._process: subprocess.Popen[bytes] | None = None
        self._replies: queue.Queue[bytes] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        self._lock = threading.Lock()
        self._offline = False  # started in an offline run: the worker has turned its guard on

    def call(self, request: dict[str, Any], limit_ms: float) -> Any:
        """The function's return value; raises ``PythonFailure``, ``PythonTimeout`` or
        ``PythonUnavailable``."""
        line = json.dumps(request, ensure_ascii=False, allow_nan=False, default=_jsonable) + "\n"
        with self._lock:
            fresh = not self._running()
            process = self._ensure_started()
            assert process.stdin is not None
            try:
                process.stdin.write(line.encode("utf-8"))
                process.stdin.flush()
            except OSError:
                self._stop()
                raise PythonUnavailable(self._died()) from None
            try:
                # A fresh worker's interpreter start-up is not the call's time (a loaded machine
                # takes seconds to boot Python): it gets an allowance on top of the limit.
                raw = self._replies.get(timeout=limit_ms / 1000 + (STARTUP_ALLOWANCE_S if fresh else 0))
            except queue.Empty:
                self._stop(kill=True)
                raise PythonTimeout(f"Python worker timed out after {_ms(limit_ms)}ms") from None
            if not raw:  # the reader thread's end-of-file mark: the worker died mid-call
                self._stop()
                raise PythonUnavailable(self._died())
        reply = json.loads(raw)
        if not reply.get("ok"):
            raise PythonFailure(reply)
        return reply.get("data")

    def close(self) -> None:
        """End the worker: its stdin closed, then killed if it has not exited within 2 seconds."""
        with self._lock:
            self._stop()

    def _running(self) -> bool:
        """The worker is up and guarded as the run now is: one started before the run went
        offline (a shared worker, kept between runs) has no network guard, and is replaced."""
        alive = self._process is not None and self._process.poll() is None
        return alive and self._offline == _offline_now()

    def _ensure_started(self) -> subprocess.Popen[bytes]:
        if self._process is not None and self._running():
            return self._process
        self._stop()
        self._offline = _offline_now()
        try:
            process = subprocess.Popen(
                [self.python, "-u", str(_WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # the terminal's Ctrl-C reaches bench, which ends the worker
            )
        except OSError as exc:
            raise PythonUnavailable(f"cannot start Python '{self.python}': {exc.strerror or exc}") from None
        self._process = process
        self._replies = queue.Queue()
        self._stderr.clear()
        threading.Thread(target=self._read_replies, args=(process, self._replies), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(process,), daemon=True).start()
        return process

    @staticmethod
    def _read_replies(process: subprocess.Popen[bytes], replies: queue.Queue[bytes]) -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            replies.put(raw)
        replies.put(b"")

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        for raw in process.stderr:
            self._stderr.append(raw.decode("utf-8", "replace").rstrip())

    def _died(self) -> str:
        process = self._process
        code = process.poll() if process is not None else None
        if process is not None and code is None:
            try:
                code = process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
        tail = "\n".join(line for line in self._stderr if line)
        return f"the Python worker ({self.python}) exited with code {code}" + (f":\n{tail}" if tail else "")

    def _stop(self, kill: bool = False) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                if kill:
                    raise OSError("killed")
                if process.stdin is not None:
                    process.stdin.close()
                process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                process.kill()
                process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


_WORKERS: dict[str, PythonWorker] = {}
_WORKERS_LOCK = threading.Lock()


def shared_worker(python: str) -> PythonWorker:
    """The run's worker for ``python`` (started on its first call, ended at exit)."""
    with _WORKERS_LOCK:
        worker = _WORKERS.get(python)
        if worker is None:
            worker = _WORKERS[python] = PythonWorker(python)
        return worker


@atexit.register
def close_all() -> None:
    """End every shared worker."""
    with _WORKERS_LOCK:
        workers = list(_WORKERS.values())
        _WORKERS.clear()
    for worker in workers:
        worker.close()


async def call_python(worker: PythonWorker, request: dict[str, Any], limit_ms: float) -> Any:
    """``worker.call`` off the event loop."""
    return await asyncio.to_thread(worker.call, request, limit_ms)


def _ms(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _jsonable(value: Any) -> Any:
    """What JSON cannot hold directly, as promptfoo's ``safeJsonStringify`` would write it."""
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)
