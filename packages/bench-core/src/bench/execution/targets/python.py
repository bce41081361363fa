"""The ``python`` target: a function in the suite's folder (or any importable module)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError, field_validator

from bench.target import Target, TargetConfig
from bench.vocabulary.errors import ConfigError, TargetError
from bench.vocabulary.models import Response, Task

_FIELD = ("target", "function")
#: Top-level module -> the suite folder this target imported it from (see _forget_another_suites).
_SUITE_MODULES: dict[str, Path] = {}


class PythonConfig(TargetConfig):
    """Settings of the python target."""

    function: str
    """``module:callable``; it receives the ``bench.Task`` and returns text, a dict or a Response."""

    @field_validator("function")
    @classmethod
    def _module_and_name(cls, value: str) -> str:
        module, _, name = value.partition(":")
        if not module or not name:
            raise ValueError("write it as 'module:function'")
        return value


class PythonTarget(Target[PythonConfig]):
    """Calls a Python function per task; sync functions run in a worker thread."""

    name = "python"
    Config = PythonConfig

    async def open(self) -> None:
        config = self.config
        module_name, _, attr = config.function.partition(":")
        folder = self.suite.folder.resolve()
        top = module_name.partition(".")[0]
        _look_here_first(folder)
        _forget_another_suites(top, folder)
        try:
            module = importlib.import_module(module_name)
            _remember_if_from(top, folder)
        except Exception as exc:
            message = f"cannot import '{module_name}': {type(exc).__name__}: {exc}"
            raise ConfigError(message, file=self.suite.path, field=_FIELD) from None
        func: Any = module
        for part in attr.split("."):
            func = getattr(func, part, None)
        if not callable(func):
            message = f"'{config.function}' is not a callable"
            raise ConfigError(message, file=self.suite.path, field=_FIELD)
        self.func: Callable[[Task], Any] = func
        self.is_async = inspect.iscoroutinefunction(func)

    async def respond(self, task: Task) -> Response:
        label = self.config.function
        try:
            if self.is_async:
                value = await self.func(task)
            else:
                value = await _in_daemon_thread(self.func, task)
        except Exception as exc:
            raise TargetError(f"{label} raised {type(exc).__name__}: {exc}") from None
        return _to_response(label, value)


def _look_here_first(folder: Path) -> None:
    """Put the suite's folder first on ``sys.path``, ahead of any other suite's."""
    with contextlib.suppress(ValueError):
        sys.path.remove(str(folder))
    sys.path.insert(0, str(folder))


def _forget_another_suites(top: str, folder: Path) -> None:
    """Drop module ``top`` (and its submodules) when this target imported it from another
    suite's folder: two suites' ``assistant.py`` in one process (``bench.run`` twice, a test
    session) would otherwise both call the first one."""
    imported_from = _SUITE_MODULES.get(top)
    if imported_from is None or imported_from == folder:
        return
    for name in [name for name in sys.modules if name == top or name.startswith(f"{top}.")]:
        del sys.modules[name]
    del _SUITE_MODULES[top]


def _remember_if_from(top: str, folder: Path) -> None:
    origin = getattr(sys.modules.get(top), "__file__", None)
    if origin is not None and Path(origin).resolve().is_relative_to(folder):
        _SUITE_MODULES[top] = folder


async def _in_daemon_thread(func: Callable[[Task], Any], task: Task) -> Any:
    """Run a sync function off the event loop in a daemon thread.

    A thread cannot be stopped, so a function that hangs past its timeout is abandoned; a daemon
    thread does not keep the process alive at exit (``asyncio.to_thread`` would wait for it).
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if not future.done():
            if error is None:
                future.set_result(value)
            else:
                future.set_exception(error)

    def work() -> None:
        try:
            value, error = func(task), None
        except BaseException as exc:  # handed to the awaiting coroutine
            value, error = None, exc
        # RuntimeError: the loop has closed, nobody waits for this result any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=work, name=f"bench-python-target-{task.id}", daemon=True).start()
    return await future


def _to_response(label: str, value: Any) -> Response:
    if isinstance(value, Response):
        return value
    if isinstance(value, str):
        return Response(output=value)
    if isinstance(value, dict):
        if "output" not in value and "error" not in value:
            raise TargetError(f"{label} returned a dict without 'output' (keys: {sorted(value)})")
        try:
            return Response.model_validate(value)
        except ValidationError as exc:
            raise TargetError(f"{label} returned an invalid response: {exc.errors()[0]['msg']}") from None
    raise TargetError(
        f"{label} returned {type(value).__name__}; return a str, a dict with 'output', or a bench.Response"
    )
