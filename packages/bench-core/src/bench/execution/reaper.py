"""Run a command so that nothing it starts outlives it (the ``command`` target's wrapper, Linux).

``python -I -S reaper.py ARGV...`` makes itself a child subreaper (``PR_SET_CHILD_SUBREAPER``):
every process the command starts is re-parented to it when its parent exits, daemons that
double-fork and call ``setsid`` included, so it can always find them. When the command exits, the
wrapper kills what is left and exits with the command's status. On SIGTERM (bench's timeout, or
bench's own death through ``PR_SET_PDEATHSIG``) it kills the command and everything under it,
then dies of the same signal.

This file imports only a few standard modules (no contextlib: it imports slowly) and runs with
``-I -S``: it must start fast and whatever way bench itself was installed or imported.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
#: The program's own LC_CTYPE (empty: unset), which Python's locale coercion may have changed in ours.
LC_CTYPE_SAVED = "BENCH_REAPER_LC_CTYPE"
UNSET = ""  # an empty LC_CTYPE means the same to setlocale as none
KILL_ROUNDS_S = 5.0  # a fork bomb racing the kill loop gets this long before the wrapper gives up


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children...), read from ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")"
        ppid = int(fields[fields.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found: list[int] = []
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _reap_exited() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def kill_descendants() -> None:
    """SIGKILL everything below this process and reap it, until nothing is left."""
    deadline = time.monotonic() + KILL_ROUNDS_S
    while time.monotonic() < deadline:
        pids = descendants(os.getpid())
        if not pids:
            return
        for pid in pids:
            try:  # noqa: SIM105 (contextlib imports slowly)
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap_exited()
        time.sleep(0.005)  # let the killed processes' children be re-parented to us


def _die_like(status: int) -> None:
    """Exit the way the command did: with its exit code, or killed by its signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if number not in (signal.SIGKILL, signal.SIGSTOP):  # these have no handler to reset
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.waitstatus_to_exitcode(status))


def _on_term(number: int, frame: object) -> None:
    kill_descendants()
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


def _as_the_program_expects() -> None:
    """Undo what starting Python changed: signal dispositions (it ignores SIGPIPE and SIGXFSZ, and
    an ignored signal stays ignored across exec) and a coerced LC_CTYPE."""
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(number, signal.SIG_DFL)
    saved = os.environ.pop(LC_CTYPE_SAVED, None)
    if saved == UNSET:
        os.environ.pop("LC_CTYPE", None)
    elif saved is not None:
        os.environ["LC_CTYPE"] = saved


def main(argv: list[str]) -> None:
    """Run ``argv`` as a child subreaper; never returns."""
    signal.signal(signal.SIGTERM, _on_term)
    signal.signal(signal.SIGHUP, _on_term)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    pid = os.fork()
    if pid == 0:
        _as_the_program_expects()
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"cannot run {argv[0]}: {exc.strerror}\n".encode())
        os._exit(127)
    _, status = os.waitpid(pid, 0)
    kill_descendants()
    _die_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
