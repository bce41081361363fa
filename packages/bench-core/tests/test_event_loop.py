"""The event loop a run goes on: uvloop where it is installed, the stock loop on request."""

from __future__ import annotations

import asyncio
import sys

import pytest

from bench.api import run_blocking
from bench.llm.providers import eventloop
from bench.vocabulary.errors import ConfigError
from bench.workspace import safe_git
from bench.workspace.safe_git import GitError, feed_stdin


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
        await feed_stdin(proc.stdin, b"the prompt")
        return closed

    assert run_blocking(feed_a_closed_pipe) is True


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_git_that_exits_before_its_stdin_is_written_reports_its_own_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path, loop: str
) -> None:
    """Under uvloop ``communicate(stdin)`` raised RuntimeError (the pipe's handler closed) in
    place of git's own message when git had exited before its stdin was written."""
    monkeypatch.setenv(eventloop.ENV, loop)
    spawn = asyncio.create_subprocess_exec

    async def spawned_and_exited(*args, **kwargs):  # git is done before bench writes to it
        proc = await spawn(*args, **kwargs)
        await proc.wait()
        for _ in range(500):
            if proc.stdin is None or proc.stdin.is_closing():
                break
            await asyncio.sleep(0.01)
        return proc

    monkeypatch.setattr(safe_git.asyncio, "create_subprocess_exec", spawned_and_exited)

    async def hash_into_no_repository() -> str:
        try:
            await safe_git.git("hash-object", "-w", "--stdin", stdin=b"data", git_dir=tmp_path / "none")
        except GitError as exc:
            return str(exc)
        return "no error"

    assert run_blocking(hash_into_no_repository) == (
        f"git hash-object failed: fatal: not a git repository: '{tmp_path / 'none'}'"
    )
