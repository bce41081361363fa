"""The worker that runs promptfoo's user Python: started once per run by ``python_runner``.

It runs under the user's interpreter (``PROMPTFOO_PYTHON``, a provider's ``pythonExecutable``, else
bench's own), so it uses the standard library only and imports nothing of bench. One request per
line on the original stdin, one JSON reply per line on the original stdout; before any user code
runs, fd 1 is pointed at stderr and fd 0 at /dev/null, so a user's ``print`` or ``input()`` cannot
corrupt the protocol. A request is ``{"function", "args"}`` (``function`` null: only load) with
``"file"`` (a script, loaded once, as promptfoo's ``persistent_wrapper.py`` loads it) or ``"code"``
(an inline assertion's script), or ``{"script", "args"}``: a whole script run as ``__main__``
with those arguments, whose printed text is the reply's data.
A reply is ``{"ok": true, "data": ...}`` or ``{"ok": false, "error", "kind", "last", "traceback"}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.util
import inspect
import io
import json
import os
import runpy
import sys
import traceback
from types import ModuleType
from typing import Any

_MODULES: dict[str, ModuleType] = {}  # file path or code digest -> module


def _load_file(path: str) -> ModuleType:
    """The user's script as promptfoo's wrappers load it (its folder first on sys.path)."""
    module = _MODULES.get(path)
    if module is None:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in sys.path:
            sys.path.insert(0, folder)
        name = os.path.basename(path).rsplit(".", 1)[0]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError("Cannot load module from " + path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _MODULES[path] = module
    return module


def _load_code(code: str) -> ModuleType:
    key = "code:" + hashlib.sha256(code.encode("utf-8")).hexdigest()
    module = _MODULES.get(key)
    if module is None:
        namespace: dict[str, Any] = {"__name__": "promptfoo_inline"}
        exec(compile(code, "<inline python>", "exec"), namespace)
        module = ModuleType("promptfoo_inline")
        module.__dict__.update(namespace)
        _MODULES[key] = module
    return module


def _callable(module: ModuleType, name: str) -> Any:
    """``function`` or ``Class.method``, as promptfoo's wrappers look it up."""
    if "." in name:
        owner, attribute = name.split(".", 1)
        return getattr(getattr(module, owner), attribute)
    return getattr(module, name)


def _run_script(path: str, argv: list[str]) -> str:
    """Run a whole script as ``python PATH ARGV...`` runs it; what it printed (promptfoo's
    legacy Python prompt files, run through python-shell)."""
    folder = os.path.dirname(os.path.abspath(path))
    saved = sys.argv, list(sys.path)
    sys.argv = [path, *argv]
    sys.path.insert(0, folder)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved
    return printed.getvalue()


def _handle(request: dict[str, Any]) -> str:
    stage = "load"
    module: ModuleType | None = None
    try:
        if "script" in request:  # a whole script: what it prints is the reply
            stage = "call"
            return json.dumps({"ok": True, "data": _run_script(request["script"], request["args"])})
        module = _load_code(request["code"]) if "code" in request else _load_file(request["file"])
        if request["function"] is None:  # load only
            return json.dumps({"ok": True, "data": None})
        stage = "lookup"
        function = _callable(module, request["function"])
        stage = "call"
        if inspect.iscoroutinefunction(function):
            data = asyncio.run(function(*request["args"]))
        else:
            data = function(*request["args"])
        stage = "result"
        return json.dumps({"ok": True, "data": data}, ensure_ascii=False)
    except (Exception, SystemExit) as exc:  # a failure of user code is reported, never raised
        only = traceback.format_exception_only(type(exc), exc)
        last = only[-1].strip()
        return json.dumps(
            {
                "ok": False,
                "stage": stage,
                "kind": type(exc).__name__,
                "error": str(exc),
                "last": last,
                "traceback": "".join(_user_frames(exc) + only),
                "module": getattr(module, "__file__", None),
                "available": _public_callables(module) if stage == "lookup" else [],
            },
            ensure_ascii=False,
        )


def _public_callables(module: ModuleType | None) -> list[str]:
    names = dir(module) if module is not None else []
    return [n for n in names if not n.startswith("_") and callable(getattr(module, n, None))]


def _user_frames(exc: BaseException) -> list[str]:
    """The traceback's frames of the user's code (this worker's and importlib's left out)."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename != __file__ and not frame.filename.startswith("<frozen ")
    ]
    if not frames:
        return []
    return ["Traceback (most recent call last):\n", *traceback.StackSummary.from_list(frames).format()]


def _offline_guard() -> None:
    """Under ``--offline`` (``BENCH_OFFLINE=1``) the user's code runs behind bench's network guard.
    An interpreter without bench cannot enforce it, so the worker refuses to start rather than
    let the code reach the network (docs/offline.md)."""
    if os.environ.get("BENCH_OFFLINE") != "1":
        return
    try:
        from bench.workspace import install_from_env
    except ImportError:
        sys.stderr.write(
            f"offline: the Python at {sys.executable} has no bench to guard the network with; "
            "run promptfoo's Python under bench's interpreter for an offline run\n"
        )
        sys.exit(3)
    install_from_env()


def main() -> None:
    _offline_guard()
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    os.dup2(2, 1)  # the user's prints go to stderr
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout = sys.stderr
    for line in requests:
        if not line.strip():
            continue
        reply = _handle(json.loads(line))
        replies.write(reply + "\n")
        replies.flush()


if __name__ == "__main__":
    main()
