"""Folders left by a bench process that died (SIGKILL, the OOM killer, a Ray worker whose node was
lost): workspace roots and scratch roots, removed by the next bench process on the machine.

A root holds an owner file that its process keeps locked with ``flock`` while it lives; the kernel
drops the lock when the process dies, however it dies. A root whose owner file someone else can
lock has no owner left: the sweep removes it. Roots of other users, roots with no owner file
(kept workspaces, a root being made) and systems without ``flock`` are left alone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

_log = logging.getLogger(__name__)

OWNER = ".owner"


def remove_tree(path: Path) -> None:
    """Remove ``path`` and all it holds, even what a program made read-only (if it exists)."""

    def writable(function: Any, name: str, _exc: Any) -> None:
        parent = os.path.dirname(name)
        os.chmod(parent, stat.S_IRWXU)
        if os.path.isdir(name) and not os.path.islink(name):
            os.chmod(name, stat.S_IRWXU)
            shutil.rmtree(name, ignore_errors=True)
        else:
            os.unlink(name)

    if os.path.lexists(path):
        handler = {"onexc" if sys.version_info >= (3, 12) else "onerror": writable}
        shutil.rmtree(path, **handler)  # type: ignore[arg-type]


def hold(root: Path) -> int | None:
    """Mark ``root`` as this process's: the open descriptor of its locked owner file (keep it open
    for as long as the root is in use), or None where ``flock`` is missing."""
    try:
        import fcntl
    except ImportError:  # Windows
        return None
    fd, made = tempfile.mkstemp(prefix=f"{OWNER}-", dir=root)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # a file system without flock
        os.close(fd)
        os.unlink(made)
        return None
    os.replace(made, root / OWNER)  # so the owner file is never seen unlocked
    return fd


def let_go(root: Path, held: int | None) -> None:
    """Give ``root`` up: its owner file goes first (what stays of it is never swept), then the lock."""
    if held is None:
        return
    with contextlib.suppress(FileNotFoundError):
        (root / OWNER).unlink()
    os.close(held)


def sweep(parent: Path, prefix: str, remove: Callable[[Path], None]) -> list[Path]:
    """Remove the folders named ``prefix*`` in ``parent`` that this user made and whose owner died;
    return them."""
    try:
        import fcntl

        entries = list(os.scandir(parent))
    except (ImportError, OSError):
        return []
    removed = []
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        try:
            mine = entry.stat(follow_symlinks=False).st_uid == os.getuid()
            if not (mine and entry.is_dir(follow_symlinks=False)):
                continue
            owner = os.open(os.path.join(entry.path, OWNER), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held while removing: one sweeper at a time
            remove(Path(entry.path))
            removed.append(Path(entry.path))
        except OSError:  # its owner lives (or the folder went meanwhile)
            continue
        finally:
            os.close(owner)
    if removed:
        _log.info("removed %d folder(s) a killed run left: %s", len(removed), removed)
    return removed
