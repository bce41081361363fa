"""``file://`` references as promptfoo resolves them: relative to a folder, globs expanded."""

from __future__ import annotations

import glob
from pathlib import Path

FILE = "file://"


def strip_file(value: str) -> str:
    """The path of a ``file://`` reference (the value itself when it has no prefix)."""
    return value[len(FILE) :] if value.startswith(FILE) else value


def expand(pattern: str, base: Path) -> list[Path]:
    """The files a path or glob names, relative to ``base``, sorted; a plain path is kept even if absent."""
    full = Path(pattern) if Path(pattern).is_absolute() else base / pattern
    if glob.has_magic(str(full)):
        return [Path(p) for p in sorted(glob.glob(str(full), recursive=True)) if Path(p).is_file()]
    return [full] if full.is_file() else []
