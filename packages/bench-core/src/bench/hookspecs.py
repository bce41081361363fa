"""The hooks a bench plugin implements.

A plugin is a module named by an entry point in the ``bench`` group::

    [project.entry-points.bench]
    my_plugin = "my_package.plugin"

and implements any of the hooks below with ``@bench.hookimpl``. Each hook receives a
``register`` callback; call it once per thing the plugin provides. bench calls every plugin's
hook with its own ``register``, so a name registered by two distributions is reported with both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("bench")
hookimpl = pluggy.HookimplMarker("bench")


@hookspec
def bench_register_evaluators(register: Callable[[Any], None]) -> None:
    """Register evaluator types.

    ``register(cls)`` takes a subclass of ``bench.Evaluator`` with a ``name``, optional
    ``aliases`` and a ``Config`` model. Names and aliases share one namespace across plugins.
    """


@hookspec
def bench_register_targets(register: Callable[[Any], None]) -> None:
    """Register target types (systems under test).

    ``register(cls)`` takes a subclass of ``bench.Target`` with a ``name`` and a ``Config``
    model; a suite selects it with ``target: {type: NAME, ...}``.
    """


@hookspec
def bench_register_reporters(register: Callable[[Any], None]) -> None:
    """Register report writers.

    ``register(cls)`` takes a subclass of ``bench.report.Reporter`` with a ``name``; the user
    selects it with ``bench run SUITE --report NAME=PATH``.
    """


@hookspec
def bench_register_suite_loaders(register: Callable[[Any], None]) -> None:
    """Register readers of suite files in other tools' formats.

    ``register(cls)`` takes a subclass of ``bench.SuiteLoader``. The first registered
    loader whose ``claims(path)`` is true reads the file and returns bench's native suite data.
    """
