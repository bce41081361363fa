"""The ``command`` target: a program (a script, a CLI agent) whose stdout is the response.

The command never runs through a shell. ``{prompt}`` in an argument is replaced by the prompt,
``{prompt_file}`` by a file holding it; otherwise the prompt is written to stdin. When the task
runs in a workspace (``repo:``) the program runs there (``{workspace}``); ``{suite_dir}`` names
the suite's folder (where a scripted agent lives). An agent may report
its trajectory and token usage in the file named by ``BENCH_TRAJECTORY_FILE`` (also
``{trajectory_file}``; format in ``bench.workspace.trajectory``). The program runs in its own process
group, and the whole group is killed on timeout or when the program exits. On Linux it also runs
under ``bench.execution.reaper``, a child subreaper: daemons it started (double fork and ``setsid``
included) are killed when it exits, on timeout, and when bench itself dies (RELIABILITY C21).
The program keeps the network and the file system: an agent needs both.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from bench.execution import reaper
from bench.target import Target, TargetConfig
from bench.vocabulary import redact
from bench.vocabulary.errors import ConfigError, TargetError
from bench.vocabulary.models import Response, Task, Usage
from bench.workspace import trajectory
from bench.workspace.sandbox import Tail, kill_group, reap

PROMPT = "{prompt}"
PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 3.0  # how long the reaper may take to kill a program's processes before bench does
PLACEHOLDERS = ("{prompt_file}", "{trajectory_file}", "{workspace}", "{suite_dir}")
MIB = 1024 * 1024


class CommandConfig(TargetConfig):
    """Settings of the command target."""

    command: list[str] | str
    """argv words, or one string split the way a shell would (but never run by one)."""
    cwd: str | None = None
    """Working directory, relative to the suite's folder (default: the task's workspace, else the
    suite's folder)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for the program."""
    max_output_bytes: int = Field(default=10 * MIB, gt=0)
    """Cap on captured stdout; beyond it the tail is kept and the response marked truncated."""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class CommandTarget(Target[CommandConfig]):
    """Runs a program per task and returns its stdout."""

    name = "command"
    Config = CommandConfig

    async def open(self) -> None:
        config = self.config
        argv = shlex.split(config.command) if isinstance(config.command, str) else list(config.command)
        if not argv:
            raise ConfigError("the command is empty", file=self.suite.path, field=("target", "command"))
        cwd = self.suite.folder / (config.cwd or ".")
        program = argv[0]
        found = shutil.which(program, path=os.environ.get("PATH")) or (
            (cwd / program).is_file() and os.access(cwd / program, os.X_OK)
        )
        if not found:
            raise ConfigError(
                f"command not found: {program}", file=self.suite.path, field=("target", "command")
            )
        if os.sep in program and (cwd / program).is_file():
            argv[0] = str((cwd / program).resolve())  # the program stays found when cwd is a workspace
        self.argv = argv
        self.cwd = cwd
        self.env = {**os.environ, **config.env}

    async def respond(self, task: Task) -> Response:
        with tempfile.TemporaryDirectory(prefix="bench-cmd-") as scratch:
            return await self._respond(task, Path(scratch))

    async def _respond(self, task: Task, scratch: Path) -> Response:
        config = self.config
        prompt = task.text
        prompt_file, trajectory_file = scratch / "prompt.txt", scratch / "trajectory.json"
        prompt_file.write_text(prompt, encoding="utf-8")
        cwd = Path(task.workspace) if task.workspace and config.cwd is None else self.cwd
        values = {
            "{prompt_file}": str(prompt_file),
            "{trajectory_file}": str(trajectory_file),
            "{workspace}": str(cwd),
            "{suite_dir}": str(self.suite.folder.resolve()),
        }
        substituted = any(PROMPT in word or "{prompt_file}" in word for word in self.argv)
        argv = []
        for word in self.argv:
            for placeholder in PLACEHOLDERS:
                word = word.replace(placeholder, values[placeholder])
            argv.append(word.replace(PROMPT, prompt))
        env = {
            **self.env,
            "BENCH_PROMPT_FILE": str(prompt_file),
            "BENCH_TRAJECTORY_FILE": str(trajectory_file),
            **({"BENCH_WORKSPACE": str(cwd)} if task.workspace else {}),
        }
        reaped = _reaper_argv()
        if reaped:  # the reaper is Python, which coerces a C locale: it gives the program this one back
            env[reaper.LC_CTYPE_SAVED] = env.get("LC_CTYPE", reaper.UNSET)
        proc = await asyncio.create_subprocess_exec(
            *reaped,
            *argv,
            stdin=asyncio.subprocess.DEVNULL if substituted else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=functools.partial(_die_with, os.getpid()) if reaped else None,
        )
        stdout, stderr = Tail(config.max_output_bytes), Tail(64 * 1024)
        try:
            assert proc.stdout is not None
            assert proc.stderr is not None
            readers: list[Any] = [stdout.drain(proc.stdout), stderr.drain(proc.stderr)]
            if not substituted:
                readers.append(_feed(proc.stdin, prompt.encode()))
            await asyncio.gather(*readers)
            code = await proc.wait()
        finally:
            await _stop(proc)
        if code < 0:
            hint = "; possibly out of memory" if code == -signal.SIGKILL else ""
            raise TargetError(f"command killed by signal {-code} ({_signal_name(-code)}{hint})")
        if code != 0:
            tail = redact.excerpt(stderr.text().strip() or stdout.text().strip(), 2000, keep="end")
            raise TargetError(f"command exited with status {code}" + (f": {tail}" if tail else ""))
        messages, usage = trajectory.read(trajectory_file)
        cap = config.max_output_bytes
        # The text is decoded with replacement characters (D02); when it is not exactly what the
        # program wrote, the size and sha256 of what it wrote are kept.
        exact = not stdout.truncated and stdout.is_utf8()
        return Response(
            output=stdout.text().rstrip("\n"),
            truncated=stdout.truncated,
            truncation=f"stdout over max_output_bytes ({cap}): the last {cap} bytes kept"
            if stdout.truncated
            else None,
            output_bytes=None if exact else stdout.total,
            output_sha256=None if exact else stdout.digest.hexdigest(),
            messages=messages,
            tool_calls=trajectory.tool_calls(messages),
            usage=usage or Usage(),
        )


def _libc_prctl() -> Any:
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(None).prctl
    return None


_prctl = _libc_prctl() if sys.platform.startswith("linux") else None


def _reaper_argv() -> list[str]:
    """The words that run a program under ``bench.execution.reaper`` (Linux), or none where it cannot."""
    if not sys.platform.startswith("linux") or not sys.executable:
        return []
    return [sys.executable, "-I", "-S", reaper.__file__]


def _die_with(parent: int) -> None:  # runs in the child between fork and exec
    """SIGTERM the reaper when bench dies, even by SIGKILL; it then kills what the program started."""
    if _prctl is not None:  # looked up before the fork: no dlopen in a forked child of a threaded process
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # bench died before the line above
        os._exit(1)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """End a program and everything it started.

    The reaper gets SIGTERM first, so it can kill the daemons that left the process group; the
    group is SIGKILLed after it (or at once where no reaper runs).
    """
    try:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            # returncode, not proc.wait(): that also waits for the pipes, which may never close
            deadline = time.monotonic() + STOP_GRACE_S
            while proc.returncode is None and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
    finally:
        kill_group(proc.pid)
    if proc.returncode is None:
        await reap(proc)  # not proc.wait(): it can hang on a pipe nobody reads (3.11)


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes) -> None:
    assert stdin is not None
    try:
        stdin.write(data)
        await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the program does not read its stdin; that is its business
    finally:
        stdin.close()
