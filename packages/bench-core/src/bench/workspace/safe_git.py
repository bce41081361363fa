"""Running git on repositories bench does not trust (an agent's workspace, a cloned repository).

A workspace's own ``.git/config`` and ``.gitattributes`` can make plain ``git status`` or
``git diff`` run commands (``core.fsmonitor``, ``filter.*.clean``, ``diff.external``; RELIABILITY
W1, H08). So bench never runs git with the workspace's git directory: it snapshots the worktree
into a git directory it owns, outside the workspace, with no system or global configuration,
no hooks, no fsmonitor, no external diff and no textconv (W2). Paths are passed after ``--``
(B10). Every call has a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from bench.vocabulary.errors import BenchError
from bench.workspace import network_guard

#: Options put before every git subcommand.
SAFE_OPTIONS = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.quotePath=false",
    "-c",
    "protocol.ext.allow=never",
    "--no-optional-locks",
)
DEFAULT_TIMEOUT_S = 120.0


class GitError(BenchError):
    """A git command failed; the message has git's own stderr."""


def environment() -> dict[str, str]:
    """The environment git runs with: no user or system config, never a prompt, stable output."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "SSL_CERT_FILE")}
    return {
        **keep,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "/bin/false",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@localhost",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@localhost",
        "LC_ALL": "C",
    }


async def git(
    *args: str,
    git_dir: Path | str | None = None,
    work_tree: Path | str | None = None,
    cwd: Path | str | None = None,
    stdin: bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    index_file: Path | str | None = None,
) -> bytes:
    """Run one git command and return its stdout; raise GitError on failure or timeout."""
    argv = ["git", *SAFE_OPTIONS]
    offline = network_guard.active()
    if offline:  # git's own transports reach the network outside the guard: only local ones (H22)
        argv += ["-c", "protocol.allow=never", "-c", "protocol.file.allow=always"]
    if git_dir is not None:
        argv.append(f"--git-dir={git_dir}")
    if work_tree is not None:
        argv.append(f"--work-tree={work_tree}")
    argv.extend(args)
    env = environment()
    if index_file is not None:
        env["GIT_INDEX_FILE"] = str(index_file)
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(_exchange(proc, stdin), timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        raise GitError(f"git {args[0]} timed out after {timeout:g} s") from None
    if proc.returncode != 0:
        message = err.decode("utf-8", "replace").strip().splitlines()
        detail = "; ".join(line for line in message[-3:] if line) or f"exit status {proc.returncode}"
        if offline and "not allowed" in detail:
            detail += "; an offline run clones only repositories on this machine (give a path)"
        raise GitError(f"git {args[0]} failed: {detail}")
    return out


async def _exchange(proc: asyncio.subprocess.Process, stdin: bytes | None) -> tuple[bytes, bytes]:
    """``proc.communicate(stdin)``, but a git that exits before reading its stdin (a bad option,
    a failed ``apply``) is left to say why in its exit status and stderr."""
    assert proc.stdout is not None
    assert proc.stderr is not None
    reading = asyncio.gather(proc.stdout.read(), proc.stderr.read())
    if stdin is None:
        out, err = await reading
    else:
        (out, err), _ = await asyncio.gather(reading, feed_stdin(proc.stdin, stdin))
    await proc.wait()
    return out, err


async def feed_stdin(stdin: asyncio.StreamWriter | None, data: bytes) -> None:
    """Write ``data`` to a child's stdin and close it; a child that stopped reading (or exited)
    first is no error here: what it does next (its exit status) says what went wrong."""
    assert stdin is not None
    try:
        stdin.write(data)
        await stdin.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass
    except RuntimeError:
        if not stdin.is_closing():
            raise
        # uvloop: the child exited (its pipe closed) before the data was written
    finally:
        stdin.close()
