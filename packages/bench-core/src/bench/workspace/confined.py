"""Reading files inside a workspace without ever leaving it.

Every path an evaluator reads (``file_content_match``, ``file:`` evidence, directory listings)
goes through ``inside``: absolute paths, ``..`` and symlinks that lead outside the workspace are
refused before anything is opened, and the file itself is opened with ``O_NOFOLLOW`` and
``fstat``-ed, so a FIFO, a device or a huge file never blocks or floods a run (RELIABILITY B07).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from bench.vocabulary.errors import EvaluatorError
from bench.workspace.walk import walk

MIB = 1024 * 1024
DEFAULT_MAX_BYTES = 10 * MIB


class PathEscape(EvaluatorError):
    """A path that would lead outside the workspace."""


def inside(root: Path | str, relative: str) -> Path:
    """The real path of ``relative`` under ``root``; raise PathEscape when it leaves ``root``."""
    if not relative or "\x00" in relative:
        raise PathEscape(f"invalid path {relative!r}")
    if os.path.isabs(relative) or relative.startswith("~"):
        raise PathEscape(f"path escapes the workspace: {relative} (absolute paths are refused)")
    base = Path(root).resolve()
    try:
        resolved = (base / relative).resolve()
    except (RuntimeError, OSError) as exc:  # a symlink loop
        raise PathEscape(f"cannot resolve {relative}: {exc}") from None
    if resolved != base and base not in resolved.parents:
        raise PathEscape(f"path escapes the workspace: {relative}")
    return resolved


@dataclass(frozen=True)
class FileRead:
    """A file's text (decoded with replacement), its size and whether it was cut."""

    text: str
    size: int
    truncated: bool


def read_at_most(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from an open file, read in chunks of at most 1 MiB."""
    data = b""
    while len(data) < limit:
        chunk = os.read(fd, min(limit - len(data), 1 << 20))
        if not chunk:
            break
        data += chunk
    return data


def read_inside(root: Path | str, relative: str, max_bytes: int = DEFAULT_MAX_BYTES) -> FileRead | None:
    """Read a regular file under ``root``; ``None`` when it does not exist."""
    path = inside(root, relative)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EvaluatorError(f"cannot open {relative}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise EvaluatorError(f"{relative} is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise EvaluatorError(f"{relative} is not a regular file")
        data = read_at_most(fd, max_bytes)
    finally:
        os.close(fd)
    return FileRead(data.decode("utf-8", errors="replace"), info.st_size, info.st_size > max_bytes)


def exists_inside(root: Path | str, relative: str) -> bool:
    """Whether ``relative`` names an existing entry under ``root`` (escapes are refused)."""
    path = inside(root, relative)
    return os.path.lexists(path)


def list_inside(root: Path | str, relative: str = ".", max_entries: int = 100_000) -> tuple[list[str], bool]:
    """Relative paths of every entry under a directory (directories end with ``/``).

    Symlinks are listed, never followed; the walk stops after ``max_entries`` (second value True).
    """
    top = inside(root, relative)
    if not top.is_dir():
        raise EvaluatorError(f"{relative} is not a directory in the workspace")
    entries: list[str] = []
    for entry in walk(str(top), ordered=True):
        rel = Path(entry.path).relative_to(top).as_posix()
        entries.append(rel + "/" if entry.is_dir(follow_symlinks=False) else rel)
        if len(entries) >= max_entries:
            return entries, True
    return entries, False
