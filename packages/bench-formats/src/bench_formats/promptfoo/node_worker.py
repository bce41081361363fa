"""One Node.js child process per run that runs a promptfoo config's JavaScript.

The child (``worker.js``, shipped with this package) reads one JSON request per line on stdin and
answers one JSON line per request on a pipe of its own, so the user code's ``console.log`` cannot
corrupt the protocol. Calls may come from the loader (synchronously: Nunjucks filters,
``transformVars``) and from the evaluator (asynchronously: assertions, transforms) and share the
one process. Each call has a time limit: the worker stops a call's synchronous part itself (vm's
timeout) and races its promise; a worker that does not answer within the limit plus a grace is
killed, and the next call starts a new one. The child exits when its stdin closes: at the end of
the run (``shutdown``, also at interpreter exit) or when bench dies, however it dies.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import concurrent.futures
import itertools
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from bench.workspace import child_prefix

WORKER_JS = Path(__file__).with_name("worker.js")
#: How long one call of user JavaScript may run (promptfoo sets none; bench never waits forever).
CALL_TIMEOUT_S = 30.0
#: How much longer than a call's limit bench waits for the worker's own answer before killing it.
GRACE_S = 5.0


class NodeMissing(Exception):
    """``node`` is not on PATH: the JavaScript did not run."""


class NodeFailed(Exception):
    """The worker could not run a call: it died, or did not answer within the time limit."""


class JsError(Exception):
    """The user's JavaScript threw (or timed out inside the worker)."""

    def __init__(self, name: str, message: str, stack: str, timeout: bool) -> None:
        super().__init__(message)
        self.name = name
        self.message = message
        self.stack = stack
        self.timeout = timeout


class JsValue:
    """A value JavaScript returned: its ``typeof`` (``array``, ``null`` apart) and its JSON."""

    def __init__(self, kind: str, value: Any, special: str | None = None) -> None:
        self.kind = kind
        self.value = value
        #: ``NaN``, ``Infinity`` or ``-Infinity`` for a number JSON cannot hold.
        self.special = special

    @property
    def number(self) -> float:
        """The value as a float (a non-finite one included)."""
        if self.special is not None:
            return float(self.special.replace("Infinity", "inf"))
        return float(self.value)

    def __repr__(self) -> str:
        return f"JsValue({self.kind}, {self.value!r})"


def node_path() -> str | None:
    """The ``node`` executable on PATH, or None."""
    return shutil.which("node")


def missing_message(what: str) -> str:
    """Why ``what`` did not run when Node.js is absent."""
    return f"{what}: needs Node.js to run JavaScript, but no 'node' is on PATH, so it did not run"


class NodeWorker:
    """A running ``worker.js``: thread-safe synchronous and asynchronous calls."""

    def __init__(self, node: str, cwd: Path) -> None:
        # offline: in a network namespace of its own, or not started at all (OfflineRefused)
        prefix = child_prefix()
        #: Whether it runs cut off the network (started in an offline run).
        self.offline = bool(prefix)
        read_end, write_end = os.pipe()
        try:
            self.process = subprocess.Popen(
                [*prefix, node, str(WORKER_JS), str(write_end)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=(write_end,),
                cwd=cwd,
            )
        finally:
            os.close(write_end)
        self._answers = os.fdopen(read_end, "rb")
        self._ids = itertools.count(1)
        self._pending: dict[int, concurrent.futures.Future[Any]] = {}
        self._lock = threading.Lock()
        #: The last lines the user's code printed (shown when the worker dies).
        self.printed: collections.deque[str] = collections.deque(maxlen=20)
        self.dead: str | None = None
        threading.Thread(target=self._read_answers, daemon=True, name="bench-node-answers").start()
        threading.Thread(target=self._read_output, daemon=True, name="bench-node-output").start()

    def _read_output(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.printed.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def _read_answers(self) -> None:
        for raw in self._answers:
            try:
                answer = json.loads(raw)
            except ValueError:
                continue
            with self._lock:
                future = self._pending.pop(answer.get("id"), None)
            if future is None or future.done():
                continue
            if answer.get("ok"):
                encoded = answer.get("value") or {}
                future.set_result(
                    JsValue(encoded.get("type", "undefined"), encoded.get("json"), encoded.get("special"))
                )
            else:
                error = answer.get("error") or {}
                future.set_exception(
                    JsError(
                        str(error.get("name", "Error")),
                        str(error.get("message", "")),
                        str(error.get("stack", "")),
                        bool(error.get("timeout")),
                    )
                )
        code = self.process.wait()
        self._fail_all(f"the Node.js worker exited (code {code})")

    def _fail_all(self, why: str) -> None:
        with self._lock:
            if self.dead is None:
                self.dead = why
            pending, self._pending = self._pending, {}
        printed = "\n".join(self.printed)
        message = f"{why}{': ' + printed[-2000:] if printed else ''}"
        for future in pending.values():
            if not future.done():
                future.set_exception(NodeFailed(message))

    def submit(self, request: dict[str, Any], timeout: float) -> concurrent.futures.Future[Any]:
        """Send one request; its answer arrives in the returned future."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        with self._lock:
            if self.dead is not None:
                raise NodeFailed(self.dead)
            number = next(self._ids)
            self._pending[number] = future
            line = json.dumps({**request, "id": number, "timeout_ms": int(timeout * 1000)}) + "\n"
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(line.encode("utf-8"))
                self.process.stdin.flush()
            except (OSError, ValueError):
                self._pending.pop(number, None)
                raise NodeFailed("the Node.js worker is not running") from None
        return future

    def call(self, request: dict[str, Any], timeout: float | None = None) -> JsValue:
        """Run one request and wait for its value (raises JsError, NodeFailed); ``timeout``
        defaults to ``CALL_TIMEOUT_S``."""
        timeout = CALL_TIMEOUT_S if timeout is None else timeout
        future = self.submit(request, timeout)
        try:
            return future.result(timeout + GRACE_S)  # type: ignore[no-any-return]
        except concurrent.futures.TimeoutError:
            self.kill(f"the Node.js worker did not answer within {timeout:g} s and was stopped")
            raise NodeFailed(f"the JavaScript did not finish within {timeout:g} s") from None

    async def acall(self, request: dict[str, Any], timeout: float | None = None) -> JsValue:
        """``call`` for the event loop."""
        timeout = CALL_TIMEOUT_S if timeout is None else timeout
        future = self.submit(request, timeout)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout + GRACE_S)
        except asyncio.TimeoutError:
            self.kill(f"the Node.js worker did not answer within {timeout:g} s and was stopped")
            raise NodeFailed(f"the JavaScript did not finish within {timeout:g} s") from None

    def kill(self, why: str = "the Node.js worker was stopped") -> None:
        """Stop the child now; calls still waiting fail with ``why``."""
        with self._lock:
            if self.dead is None:
                self.dead = why
        if self.process.poll() is None:
            self.process.kill()
        self._fail_all(why)

    def close(self) -> None:
        """End the child: stdin closed (it exits), killed if it lingers."""
        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.close()
                self.process.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.kill("the Node.js worker was closed")


_worker: NodeWorker | None = None
_start_lock = threading.Lock()


def worker(cwd: Path | None = None) -> NodeWorker:
    """The run's worker, started at its first use (again after one died); NodeMissing without node."""
    global _worker
    with _start_lock:
        alive = _worker is not None and _worker.dead is None and _worker.process.poll() is None
        if _worker is not None and alive and _worker.offline == bool(child_prefix()):
            return _worker
        if _worker is not None and alive:  # started before the run went offline (a config's JavaScript)
            _worker.close()
        node = node_path()
        if node is None:
            raise NodeMissing("no 'node' on PATH")
        _worker = NodeWorker(node, cwd or Path.cwd())
        return _worker


def shutdown() -> None:
    """Stop the run's worker, if one started."""
    global _worker
    with _start_lock:
        current, _worker = _worker, None
    if current is not None:
        current.close()


atexit.register(shutdown)
