"""Scratch folders for one task's files (a prompt file, a program to run, an agent's notes), made
inside one folder per process that the next bench process removes if this one is killed.

``tempfile.TemporaryDirectory`` removes its folder when the block ends, which a SIGKILL never
lets happen: a killed run left one ``bench-cmd-*`` or ``bench-code-*`` folder per task in flight,
for good. Here each process makes one ``bench-scratch-*`` root in the temp folder, holds it like
a workspace root (``abandoned.hold``), and removes it at exit; a root whose process died is swept
by the next process that makes one (RELIABILITY F21).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from bench.workspace.roots.abandoned import hold, let_go, remove_tree, sweep

ROOT_PREFIX = "bench-scratch-"

_lock = threading.Lock()
#: This process's root: (pid, the temp folder it is in, the root). A forked child, or a changed
#: TMPDIR, makes its own.
_current: tuple[int, str, Path] | None = None


def _close(root: Path, held: int | None, pid: int) -> None:
    if os.getpid() == pid:  # a forked child inherits the hook: only the process that made it removes it
        let_go(root, held)
        remove_tree(root)


def _root() -> Path:
    global _current
    parent = tempfile.gettempdir()
    with _lock:
        current = _current
        if current is not None and current[:2] == (os.getpid(), parent) and current[2].is_dir():
            return current[2]
        sweep(Path(parent), ROOT_PREFIX, remove_tree)
        root = Path(tempfile.mkdtemp(prefix=ROOT_PREFIX, dir=parent))
        atexit.register(_close, root, hold(root), os.getpid())
        _current = (os.getpid(), parent, root)
        return root


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A new empty folder named ``prefix*`` for one task's scratch files, removed when the block
    ends, and by the next bench process if this one is killed before it ends. Only this user can
    read it. ``prefix`` starts a name (no path, no leading dot), or ValueError."""
    if not prefix or prefix.startswith(".") or Path(prefix).name != prefix:
        raise ValueError(f"scratch_folder: {prefix!r} is not the start of a folder's name")
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=_root()))
    try:
        yield folder
    finally:
        remove_tree(folder)
