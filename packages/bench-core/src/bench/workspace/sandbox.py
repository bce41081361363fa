"""Run untrusted code (a model's program, its tests) in the strongest isolation the machine offers.

Two levels, and every result says which one ran (``isolation``):

``namespaces``
    bench runs as root and ``unshare`` works: the program gets its own PID, network, mount, IPC
    and UTS namespaces (no network at all, not even the host's loopback; a fresh ``/proc``), the
    host's file systems read-only, private ``/tmp``, ``/var/tmp``, ``/dev/shm`` and ``/run/lock``,
    its work folder bound at ``/mnt/work``, an empty
    environment, and runs under an unprivileged uid, so the process limit holds (RELIABILITY P2,
    P4: ``RLIMIT_NPROC`` does nothing for root). When the PID namespace's first process dies the
    kernel kills everything left in it, daemons included (P3), and ``unshare`` dies with bench
    (``PR_SET_PDEATHSIG``, E10).
``rlimits-only``
    anywhere else: resource limits, a new session killed as a group, an empty environment and a
    fresh temporary folder, but the network and the file system are the host's (world-writable
    folders such as ``/tmp`` stay writable); the result's notes say so.

Both levels apply ``RLIMIT_CPU``, ``RLIMIT_AS``, ``RLIMIT_FSIZE``, ``RLIMIT_NOFILE`` and
``RLIMIT_NPROC`` (P1), a wall-clock timeout, ``stdin`` from ``/dev/null`` and a cap on captured
output that kills the program when it is reached (E07). At most one program per CPU core runs at
a time, whatever the run's concurrency (E13).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import functools
import hashlib
import itertools
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.workspace import network_guard
from bench.workspace.sandboxes import Mount, Sandbox, SandboxRun
from bench.workspace.walk import walk

MIB = 1024 * 1024
#: Where the program's work folder and interpreter appear inside the namespaces.
WORK_MOUNT = "/mnt/work"
PYTHON_MOUNT = "/mnt/python"
SETUP_FAILED = 125  # the launcher's exit status when it could not build the sandbox
_UID_BASE = 61000  # one unprivileged uid per concurrent program, so process limits do not collide
_uids = itertools.count()

_LAUNCHER = r"""
set -e
work=$1; uid=$2; prefix=$3; shift 3
# Every mount inherited from the host becomes read-only (mount keeps nosuid, nodev, noexec), so
# no world-writable host folder stays writable (E05). A mount that cannot be made read-only stops
# the program from running; one hidden under another (not a mount point here) is out of reach.
while read -r _ _ _ _ target _; do
  case $target in *\\*) target=$(printf '%b' "$(printf '%s' "$target" | sed 's/\\/\\0/g')") ;; esac
  if ! mount -o remount,bind,ro "$target" 2>/dev/null && mountpoint -q "$target"; then
    echo "bench-sandbox: cannot make $target read-only" >&2
    exit 125
  fi
done < /proc/self/mountinfo
mount -t tmpfs -o size=1m,mode=755 bench /mnt
mkdir /mnt/work /mnt/python
mount --bind "$work" /mnt/work
mount -o remount,bind,rw /mnt/work
if [ -n "$prefix" ]; then
  mount --bind "$prefix" /mnt/python
  mount -o remount,bind,ro /mnt/python
fi
for d in /tmp /var/tmp /dev/shm /run/lock; do
  if [ -d "$d" ]; then mount -t tmpfs -o size=64m,mode=1777,nosuid,nodev bench "$d"; fi
done
cd /mnt/work
set +e
setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all \
  env -i PATH=/mnt/python/bin:/usr/local/bin:/usr/bin:/bin HOME=/mnt/work TMPDIR=/tmp \
  LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 LD_LIBRARY_PATH=/mnt/python/lib "$@"
exit $?
"""


@dataclass(frozen=True)
class Limits:
    """What a program may use. Sizes in MiB, times in seconds."""

    timeout_s: float = 10.0
    cpu_s: int = 10
    memory_mb: int = 512
    processes: int = 64
    file_size_mb: int = 16
    open_files: int = 256
    output_bytes: int = MIB


@dataclass
class Execution:
    """How a program ended and what it printed (the tail, when it printed too much)."""

    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: float
    isolation: str
    network: str
    timed_out: bool = False
    output_truncated: bool = False
    signal: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def describe(self, limits: Limits) -> str:
        """One line on how it ended: ``exit 0``, ``timed out after 10 s``, ``killed by SIGXCPU ...``."""
        if self.timed_out:
            return f"timed out after {limits.timeout_s:g} s"
        if self.output_truncated and self.exit_code is None:
            return f"stopped: printed more than {limits.output_bytes:,} bytes"
        if self.signal is not None:
            why = {
                "SIGXCPU": f" (CPU limit {limits.cpu_s} s exceeded)",
                "SIGKILL": f" (possibly the memory limit {limits.memory_mb} MiB)",
                "SIGXFSZ": f" (file size limit {limits.file_size_mb} MiB)",
            }.get(self.signal, "")
            return f"killed by {self.signal}{why}"
        return f"exit {self.exit_code}"


@functools.lru_cache(maxsize=1)
def isolation_level() -> str:
    """``namespaces`` when root and ``unshare`` can make namespaces here, else ``rlimits-only``."""
    if os.name != "posix" or os.geteuid() != 0:
        return "rlimits-only"
    if not all(shutil.which(tool) for tool in ("unshare", "setpriv", "mountpoint")):
        return "rlimits-only"
    try:
        probe = subprocess.run(
            ["unshare", "--pid", "--fork", "--net", "--mount", "--mount-proc", "true"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "rlimits-only"
    return "namespaces" if probe.returncode == 0 else "rlimits-only"


def interpreter_prefix(executable: str) -> tuple[str, str]:
    """(installation prefix, path of the interpreter inside the sandbox) for a Python executable."""
    real = Path(executable).resolve()
    return str(real.parent.parent), f"{PYTHON_MOUNT}/bin/{real.name}"


_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()


def _slot() -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    if loop not in _slots:
        _slots[loop] = asyncio.Semaphore(os.cpu_count() or 1)
    return _slots[loop]


def _preexec(limits: Limits) -> None:  # runs in the child between fork and exec
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with bench
    memory = limits.memory_mb * MIB
    for kind, value in (
        (resource.RLIMIT_CPU, limits.cpu_s),
        (resource.RLIMIT_AS, memory),
        (resource.RLIMIT_FSIZE, limits.file_size_mb * MIB),
        (resource.RLIMIT_NOFILE, limits.open_files),
        (resource.RLIMIT_NPROC, limits.processes),
        (resource.RLIMIT_CORE, 0),
    ):
        # The CPU hard limit sits a second above the soft one, so SIGXCPU (named in the result)
        # arrives before the kernel's SIGKILL.
        hard = value + 1 if kind == resource.RLIMIT_CPU else value
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(kind, (value, hard))


class Tail:
    """Keeps the last ``limit`` bytes of a stream and counts them all (commands and sandboxes)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.total = 0
        #: sha256 of everything read, not only the tail kept.
        self.digest = hashlib.sha256()

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.digest.update(chunk)
        self.data += chunk
        if len(self.data) > self.limit:
            del self.data[: len(self.data) - self.limit]

    async def drain(self, stream: asyncio.StreamReader) -> None:
        """Read the whole stream, keeping its tail."""
        while chunk := await stream.read(1 << 16):
            self.add(chunk)

    @property
    def truncated(self) -> bool:
        return self.total > self.limit

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")

    def is_utf8(self) -> bool:
        """Whether the kept bytes are valid UTF-8 (``text()`` then replaced nothing)."""
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return True


async def run(
    argv: list[str],
    workdir: Path,
    limits: Limits,
    *,
    python: str | None = None,
) -> Execution:
    """Run ``argv`` in ``workdir`` under ``limits``; never raises for what the program does.

    ``python``: the host interpreter whose installation the program may use (bound read-only);
    ``argv`` then names it by the path ``interpreter_prefix`` gives.
    """
    async with _slot():
        return await _run(argv, workdir, limits, python)


async def run_inside(box: Sandbox, argv: list[str], folder: Path, timeout: float) -> Execution:
    """Run ``argv`` in a fresh ``box`` (a container sandbox) that sees only ``folder``, read-write,
    as its working folder (at ``box.workspace_path``), stopped after ``timeout`` seconds (or the
    box's own ``timeout``, when shorter); never raises for what the program does."""
    root = folder.resolve()
    inside_root = box.workspace_path or str(root)
    # As under ``namespaces``: a plain environment and no bytecode files left in the folder.
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": inside_root, "LANG": "C.UTF-8"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    mounts = [Mount(root, inside_root, writable=True)]
    name = f"bench-run-{os.urandom(8).hex()}"
    job = SandboxRun(name=name, argv=argv, mounts=mounts, workdir=inside_root, env=env)
    limit = min(timeout, box.config.timeout or timeout)
    started = time.perf_counter()
    timed_out, out, err = False, b"", b""
    proc: asyncio.subprocess.Process | None = None
    try:  # ``stop`` runs even when the command never started (it frees what ``command`` took)
        proc = await asyncio.create_subprocess_exec(
            *box.command(job),
            env={**os.environ, **job.secret_env()},  # a secret is named on the command line, valued here
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), limit)
    except asyncio.TimeoutError:
        timed_out = True
    finally:
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await box.stop(job)
    assert proc is not None  # else create_subprocess_exec raised
    return Execution(
        exit_code=None if timed_out else proc.returncode,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        duration_ms=(time.perf_counter() - started) * 1000,
        isolation=f"sandbox {box.name}",
        network=box.network,
        timed_out=timed_out,
    )


def _command(
    level: str, argv: list[str], workdir: Path, python: str | None
) -> tuple[list[str], str, list[str]]:
    """What runs ``argv`` at the isolation ``level``: the command line, its network (on or off)
    and the notes that say what is not isolated."""
    if level == "namespaces":
        uid = _UID_BASE + next(_uids) % 1000
        for path in [str(workdir), *(entry.path for entry in walk(str(workdir)))]:
            os.chown(path, uid, uid, follow_symlinks=False)
        prefix = interpreter_prefix(python)[0] if python else ""
        command = [
            "unshare", "--pid", "--fork", "--kill-child", "--net", "--mount", "--mount-proc",
            "--ipc", "--uts", "--", "/bin/sh", "-c", _LAUNCHER, "bench-sandbox",
            str(workdir), str(uid), prefix, *argv,
        ]  # fmt: skip
        return command, "off", []
    command = [python if python and word == interpreter_prefix(python)[1] else word for word in argv]
    # An offline run keeps even this level off the network (H14), or runs nothing: OfflineRefused.
    offline = network_guard.child_prefix()
    isolated = "file system" if offline else "network and file system"
    notes = [
        f"{isolated} not isolated (needs root and unshare)",
        "world-writable host folders (/tmp, /var/tmp, /dev/shm, /run/lock) stay writable",
    ]
    if os.geteuid() == 0:
        notes.append("process limit not enforced for root")
    return [*offline, *command], "off" if offline else "on", notes


def _exit(level: str, code: int, stopped: bool) -> tuple[int | None, str | None]:
    """The exit code and the signal that ended the program (either None); ``stopped``: bench
    stopped it (time or output limit), so it has neither."""
    signal_name = None
    exit_code: int | None = code
    if stopped:
        exit_code = None
    elif code < 0 or (level == "namespaces" and 128 < code < 160):
        # killed by a signal; inside the namespaces the launcher shell reports it as 128+N
        number = -code if code < 0 else code - 128
        with contextlib.suppress(ValueError):
            signal_name = signal.Signals(number).name
        if signal_name is not None:
            exit_code = None
    return exit_code, signal_name


async def _run(argv: list[str], workdir: Path, limits: Limits, python: str | None) -> Execution:
    level = isolation_level()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workdir), "LANG": "C.UTF-8"}
    command, network, notes = _command(level, argv, workdir, python)
    cwd = str(workdir)
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
        preexec_fn=functools.partial(_preexec, limits),
    )
    out, err = Tail(limits.output_bytes), Tail(64 * 1024)
    flooded = asyncio.Event()

    async def drain(stream: asyncio.StreamReader | None, tail: Tail) -> None:
        assert stream is not None
        while chunk := await stream.read(1 << 16):
            tail.add(chunk)
            if out.total + err.total > limits.output_bytes:
                flooded.set()
                return

    readers = asyncio.gather(drain(proc.stdout, out), drain(proc.stderr, err))
    waiter = asyncio.ensure_future(flooded.wait())
    timed_out = False
    try:
        pending: set[asyncio.Future[Any]] = {readers, waiter}
        done, _ = await asyncio.wait(pending, timeout=limits.timeout_s, return_when="FIRST_COMPLETED")
        if not done:
            timed_out = True
    finally:
        kill_group(proc.pid)
        waiter.cancel()
        readers.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await readers
        code = await reap(proc)
    flooded_out = flooded.is_set()
    if flooded_out:
        notes.append(f"output cut at {limits.output_bytes:,} bytes; the program was stopped")
    if level == "namespaces" and code == SETUP_FAILED and err.text().startswith("bench-sandbox: "):
        notes.append(err.text().strip() + "; the program did not run")
    if "MemoryError" in err.text()[-4096:]:
        notes.append(f"memory limit {limits.memory_mb} MiB exceeded")
    exit_code, signal_name = _exit(level, code, timed_out or flooded_out)
    return Execution(
        exit_code=exit_code,
        stdout=out.text(),
        stderr=err.text(),
        duration_ms=(time.perf_counter() - started) * 1000,
        isolation=level,
        network=network,
        timed_out=timed_out,
        output_truncated=flooded_out or out.total > limits.output_bytes,
        signal=signal_name,
        notes=notes,
    )


async def reap(proc: asyncio.subprocess.Process) -> int:
    """The exit status of a killed program.

    Python 3.11's ``Process.wait()`` also waits for the pipes to close, and a pipe whose reader
    stopped at the output cap never does; so what is left in them is read and dropped (briefly:
    a daemon that escaped the process group may hold them open), then the status is polled.
    """

    async def discard(stream: asyncio.StreamReader | None) -> None:
        while stream is not None and await stream.read(1 << 16):
            pass

    with contextlib.suppress(asyncio.TimeoutError, OSError):
        await asyncio.wait_for(asyncio.gather(discard(proc.stdout), discard(proc.stderr)), 2.0)
    for _ in range(500):
        if proc.returncode is not None:
            return proc.returncode
        await asyncio.sleep(0.01)
    return -signal.SIGKILL


def kill_group(pid: int) -> None:
    """SIGKILL a whole process group (a program and what it spawned without a new session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def python_executable() -> str:
    """The interpreter programs run with: the base installation, not bench's virtual environment."""
    return getattr(sys, "_base_executable", None) or sys.executable


__all__ = [
    "Execution",
    "Limits",
    "Tail",
    "interpreter_prefix",
    "isolation_level",
    "kill_group",
    "python_executable",
    "reap",
    "run",
]
