"""The event loop a run's model calls go on: uvloop where it is installed, else asyncio's own.

uvloop (libuv under asyncio's API) spends less CPU per call than the stock loop on the many
short I/O events of a run at high concurrency (benchmarks/README.md, "What limits the three
model-call figures"). ``BENCH_EVENT_LOOP=asyncio`` goes back to the stock loop;
``BENCH_EVENT_LOOP=uvloop`` insists on uvloop (an error where it is not installed).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

from bench.vocabulary.errors import ConfigError

T = TypeVar("T")

#: The environment variable that picks the loop: ``auto`` (the default), ``uvloop`` or ``asyncio``.
ENV = "BENCH_EVENT_LOOP"
CHOICES = ("auto", "uvloop", "asyncio")


def loop_kind() -> str:
    """``uvloop`` or ``asyncio``: the loop ``run`` would use now."""
    choice = os.environ.get(ENV, "").strip().lower() or "auto"
    if choice not in CHOICES:
        raise ConfigError(f"{ENV}={choice!r}: expected one of {', '.join(CHOICES)}")
    if choice == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401
    except ImportError:
        if choice == "uvloop":
            raise ConfigError(
                f"{ENV}=uvloop, but uvloop is not installed here (pip install uvloop; "
                "it has no Windows build)"
            ) from None
        return "asyncio"
    return "uvloop"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the loop ``loop_kind`` picks."""
    try:
        kind = loop_kind()
    except ConfigError:
        main.close()  # never awaited: no "coroutine was never awaited" warning on top of the error
        raise
    if kind == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
