"""The ``command`` target: a program (a script, a CLI agent) whose stdout is the response.

The command never runs through a shell. ``{prompt}`` in an argument is replaced by the prompt,
``{prompt_file}`` by a file holding it; otherwise the prompt is written to stdin. The input as
OpenAI-style messages (a conversation's whole history) is in ``{messages_file}``, also
``BENCH_MESSAGES_FILE``. When the task
runs in a workspace (``repo:``) the program runs there (``{workspace}``); ``{suite_dir}`` names
the suite's folder (where a scripted agent lives). An agent may report
its trajectory and token usage in the file named by ``BENCH_TRAJECTORY_FILE`` (also
``{trajectory_file}``; format in ``bench.workspace.trajectory``). The program runs in its own process
group, and the whole group is killed on timeout or when the program exits. On Linux it also runs
under ``bench.execution.reaper``, a child subreaper: daemons it started (double fork and ``setsid``
included) are killed when it exits, on timeout, and when bench itself dies (RELIABILITY C21).
The program keeps the network and the file system: an agent needs both, unless a ``sandbox:``
runs it elsewhere (``{type: container, image: ...}``: a Podman or Docker container that sees only
the workspace, at ``/workspace``, and bench's files for the task, at ``/bench``; the suite's
folder, read-only at ``/suite``, only when the command names ``{suite_dir}``). Placeholders and
``BENCH_*`` variables then name the paths inside, and the environment is ``env:`` and those only.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shlex
import shutil
import signal
import uuid
from pathlib import Path
from typing import Any

from pydantic import Field

from bench.execution import reaper
from bench.execution.targets.reaped import die_with, reaper_argv, stop_program
from bench.plugins.sandboxes import open_sandbox, sandbox_settings
from bench.target import SuiteContext, Target, TargetConfig
from bench.vocabulary import redact
from bench.vocabulary.errors import ConfigError, TargetError
from bench.vocabulary.models import Response, Task, Usage
from bench.workspace import network_guard, trajectory
from bench.workspace.container import ContainerSandbox
from bench.workspace.roots.scratch import scratch_folder
from bench.workspace.safe_git import feed_stdin
from bench.workspace.sandbox import Tail
from bench.workspace.sandboxes import Mount, Sandbox, SandboxRun

PROMPT = "{prompt}"
PLACEHOLDERS = ("{prompt_file}", "{messages_file}", "{trajectory_file}", "{workspace}", "{suite_dir}")
#: The sandbox types bench-core registers, for ``sandbox:`` (plugins add others).
BUILT_IN_SANDBOXES: tuple[type[Sandbox], ...] = (ContainerSandbox,)
SUITE_INSIDE = "/suite"  # where a sandboxed command sees the suite's folder (read-only)
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
    sandbox: dict[str, Any] | None = None
    """Where the program runs instead of the host: ``{type: container, image: IMAGE, network:
    none, cpus: 2, memory: 2g, timeout: 600}`` (docs/agents.md), or a type a plugin registers."""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class CommandTarget(Target[CommandConfig]):
    """Runs a program per task and returns its stdout."""

    name = "command"
    Config = CommandConfig

    def __init__(self, config: CommandConfig, suite: SuiteContext) -> None:
        super().__init__(config, suite)
        if config.sandbox is not None:  # its settings at load (bench validate); can it run: open()
            sandbox_settings(config.sandbox, file=suite.path, field=("target", "sandbox"))

    async def open(self) -> None:
        config = self.config
        argv = shlex.split(config.command) if isinstance(config.command, str) else list(config.command)
        if not argv:
            raise ConfigError("the command is empty", file=self.suite.path, field=("target", "command"))
        cwd = self.suite.folder / (config.cwd or ".")
        self.sandbox: Sandbox | None = None
        if config.sandbox is not None:
            field = ("target", "sandbox")
            self.sandbox = open_sandbox(config.sandbox, file=self.suite.path, field=field)
            self.argv, self.cwd, self.env = argv, cwd, dict(config.env)
            return  # the program is looked up inside the sandbox
        program = argv[0]
        found = shutil.which(program, path=os.environ.get("PATH")) or (
            (cwd / program).is_file() and os.access(cwd / program, os.X_OK)
        )
        if not found:
            raise ConfigError(
                f"command not found: {program}", file=self.suite.path, field=("target", "command")
            )
        if os.sep in program and (cwd / program).is_file():
            # Absolute, so it stays found when cwd is a workspace; not resolved: a symlink's own path
            # decides what it runs as (a virtual environment's bin/python).
            argv[0] = os.path.abspath(cwd / program)
        self.argv = argv
        self.cwd = cwd
        self.env = {**os.environ, **config.env}

    async def respond(self, task: Task) -> Response:
        with scratch_folder("bench-cmd-") as scratch:
            return await self._respond(task, scratch)

    def _paths(self, task: Task, scratch: Path) -> tuple[Path, dict[str, str]]:
        """The program's folder on the host, and what each placeholder names where it runs."""
        cwd = Path(task.workspace) if task.workspace and self.config.cwd is None else self.cwd
        inside_io = self.sandbox.io_path if self.sandbox else None
        inside_cwd = self.sandbox.workspace_path if self.sandbox else None
        suite_dir = str(self.suite.folder.resolve())
        io = inside_io or str(scratch)
        return cwd, {
            "{prompt_file}": f"{io}/prompt.txt",
            "{messages_file}": f"{io}/messages.json",
            "{trajectory_file}": f"{io}/trajectory.json",
            "{workspace}": inside_cwd or str(cwd),
            "{suite_dir}": SUITE_INSIDE if self.sandbox else suite_dir,
        }

    def _sandbox_run(self, argv: list[str], env: dict[str, str], cwd: Path, scratch: Path) -> SandboxRun:
        """The program as its sandbox runs it: only the workspace, bench's files (and the suite's
        folder, read-only, when the command names it) mounted."""
        assert self.sandbox is not None
        inside = self.sandbox.workspace_path or str(cwd)
        mounts = [Mount(cwd.resolve(), inside, writable=True)]
        mounts.append(Mount(scratch.resolve(), self.sandbox.io_path or str(scratch), writable=True))
        if any("{suite_dir}" in word for word in self.argv):
            mounts.append(Mount(self.suite.folder.resolve(), SUITE_INSIDE))
        name = f"bench-{uuid.uuid4().hex[:16]}"
        return SandboxRun(name=name, argv=argv, mounts=mounts, workdir=inside, env=env)

    async def _respond(self, task: Task, scratch: Path) -> Response:
        config = self.config
        prompt = task.text
        prompt_file, trajectory_file = scratch / "prompt.txt", scratch / "trajectory.json"
        prompt_file.write_text(prompt, encoding="utf-8")
        # The input as OpenAI-style messages: a conversation's whole history so far.
        (scratch / "messages.json").write_text(json.dumps(task.chat(), ensure_ascii=False), encoding="utf-8")
        cwd, values = self._paths(task, scratch)
        substituted = any(PROMPT in word or "{prompt_file}" in word for word in self.argv)
        argv = []
        for word in self.argv:
            for placeholder in PLACEHOLDERS:
                word = word.replace(placeholder, values[placeholder])
            argv.append(word.replace(PROMPT, prompt))
        env = {
            **self.env,
            "BENCH_PROMPT_FILE": values["{prompt_file}"],
            "BENCH_MESSAGES_FILE": values["{messages_file}"],
            "BENCH_TRAJECTORY_FILE": values["{trajectory_file}"],
            **({"BENCH_WORKSPACE": values["{workspace}"]} if task.workspace else {}),
        }
        run = self._sandbox_run(argv, env, cwd, scratch) if self.sandbox else None
        try:
            host_argv = self.sandbox.command(run) if self.sandbox and run else argv
            stdout, stderr, code = await self._execute(host_argv, env, cwd, run, prompt, substituted)
        finally:
            if run is not None and self.sandbox is not None:
                await self.sandbox.stop(run)
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

    async def _execute(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        run: SandboxRun | None,
        prompt: str,
        substituted: bool,
    ) -> tuple[Tail, Tail, int]:
        """Run the program (or its sandbox's command) to the end: its stdout, stderr and status."""
        # A sandbox's client (podman, docker) runs on the host with the host's environment; the
        # program's own environment travels in the sandbox's command.
        # Secrets travel in the client's environment, named without their values on its command line.
        env = {**os.environ, **run.secret_env()} if run is not None else env
        reaped = reaper_argv()
        if run is None:  # offline: a program on the host runs with no network (a container has its own)
            try:
                argv = [*network_guard.child_prefix(), *argv]
            except network_guard.OfflineRefused as exc:
                raise TargetError(f"{exc}; run it in a container sandbox (network: none) instead") from None
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
            preexec_fn=functools.partial(die_with, os.getpid()) if reaped else None,
        )
        stdout, stderr = Tail(self.config.max_output_bytes), Tail(64 * 1024)
        limit = self.sandbox.config.timeout if self.sandbox is not None else None
        try:
            assert proc.stdout is not None
            assert proc.stderr is not None
            readers: list[Any] = [stdout.drain(proc.stdout), stderr.drain(proc.stderr)]
            if not substituted:
                readers.append(feed_stdin(proc.stdin, prompt.encode()))
            await asyncio.wait_for(asyncio.gather(*readers), limit)
            code = await proc.wait()
        except asyncio.TimeoutError:
            raise TargetError(f"sandbox timeout: the command ran longer than {limit:g} s") from None
        finally:
            await stop_program(proc)
        return stdout, stderr, code
