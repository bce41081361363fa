"""``file://`` references as promptfoo resolves them: relative to a folder, globs expanded."""

from __future__ import annotations

import glob
from pathlib import Path

FILE = "file://"


def strip_file(value: str) -> str:
    """The path of a ``file://`` reference (the value itself when it has no prefix)."""
    return value[len(FILE) :] if value.startswith(FILE) else value


def expand(pattern: str, base: Path) -> list[Path]:
    """The files a path or glob names, relative to ``base``, in node-glob's order; [] when none."""
    full = Path(pattern) if Path(pattern).is_absolute() else base / pattern
    if glob.has_magic(str(full)):
        found = [Path(p) for p in glob.glob(str(full), recursive=True) if Path(p).is_file()]
        return sorted(found, key=_glob_order, reverse=True)
    return [full] if full.is_file() else []


def _glob_order(path: Path) -> tuple[tuple[int, str], ...]:
    """Sort key (reversed) for promptfoo's ``globSync`` (glob 13) order: in each folder its files
    first, then its subfolders' matches, names from last to first (``b.txt`` before ``a.txt``)."""
    *folders, name = path.parts
    return (*((0, folder) for folder in folders), (1, name))
