"""The event loop a run goes on: uvloop where it is installed, the stock loop on request."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bench.api import run_blocking
from bench.llm.providers import eventloop
from bench.vocabulary.errors import ConfigError


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_a_run_goes_on_uvloop_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(eventloop.ENV, raising=False)
    assert run_blocking(_loop_module) == "uvloop"


def test_bench_event_loop_asyncio_runs_on_the_stock_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(eventloop.ENV, "asyncio")
    assert run_blocking(_loop_module).startswith("asyncio.")


def test_a_run_from_inside_a_running_loop_goes_on_uvloop_in_its_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(eventloop.ENV, raising=False)

    async def caller() -> tuple[str, str]:
        return await _loop_module(), run_blocking(_loop_module)

    assert asyncio.run(caller()) == ("asyncio.unix_events", "uvloop")


def test_an_unknown_bench_event_loop_is_refused_with_the_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(eventloop.ENV, "trio")
    with pytest.raises(ConfigError) as refused:
        run_blocking(_loop_module)
    assert str(refused.value) == "BENCH_EVENT_LOOP='trio': expected one of auto, uvloop, asyncio"


def test_uvloop_asked_for_but_missing_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(eventloop.ENV, "uvloop")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    with pytest.raises(ConfigError) as refused:
        run_blocking(_loop_module)
    assert str(refused.value) == (
        "BENCH_EVENT_LOOP=uvloop, but uvloop is not installed here (pip install uvloop; it has no Windows build)"
    )


def test_without_uvloop_auto_falls_back_to_the_stock_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(eventloop.ENV, raising=False)
    monkeypatch.setitem(sys.modules, "uvloop", None)
    assert run_blocking(_loop_module).startswith("asyncio.")


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_c21_a_program_that_closed_its_stdin_before_the_prompt_is_written_is_no_error(
    monkeypatch: pytest.MonkeyPatch, loop: str
) -> None:
    """uvloop raises RuntimeError (not BrokenPipeError) writing to a pipe the program closed."""
    from bench.execution.targets.command import _feed

    monkeypatch.setenv(eventloop.ENV, loop)
    program = "import os; os.close(0)"

    async def feed_a_closed_pipe() -> bool:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", program, stdin=asyncio.subprocess.PIPE
        )
        assert proc.stdin is not None
        await proc.wait()
        for _ in range(500):  # until the loop has seen the pipe close
            if proc.stdin.is_closing():
                break
            await asyncio.sleep(0.01)
        closed = proc.stdin.is_closing()
        await _feed(proc.stdin, b"the prompt")
        return closed

    assert run_blocking(feed_a_closed_pipe) is True
