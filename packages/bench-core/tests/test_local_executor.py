"""The local executor opens the targets before the run and closes every one it opened, whatever fails."""

from __future__ import annotations

from typing import ClassVar

import pytest

from bench import ConfigError, Response, Target
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.pipeline.run import run_plan
from bench.plugins.registry import build_registry
from bench.suite.loader import load_suite

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

EVENTS: list[str] = []


class Opens(Target):
    name: ClassVar[str] = "opens"

    async def open(self) -> None:
        EVENTS.append("open")

    async def respond(self, task):  # type: ignore[no-untyped-def]
        return Response(output="x")

    async def close(self) -> None:
        EVENTS.append("close")


class Refuses(Opens):
    name: ClassVar[str] = "refuses"

    async def open(self) -> None:
        raise ConfigError("refuses: no such service")


class _Plugin:
    @hookimpl
    def bench_register_targets(self, register):  # type: ignore[no-untyped-def]
        register(Opens)
        register(Refuses)


def test_a_target_that_fails_to_open_leaves_none_of_the_others_open(bench_suite_file, tmp_path):
    EVENTS.clear()
    path = bench_suite_file(
        "targets:\n  - {type: opens, label: a}\n  - {type: refuses, label: b}\n"
        "tasks:\n  - {id: t1, prompt: hi, evaluate: {type: equals, value: x}}\n"
    )
    registry = build_registry([("bench-test-targets", "targets", _Plugin())])
    with pytest.raises(ConfigError, match="refuses: no such service"):
        run_plan(load_suite(path, registry), RunOptions(runs_dir=tmp_path / "runs", handle_signals=False))
    assert EVENTS == ["open", "close"]
