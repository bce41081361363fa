"""``file://`` references as promptfoo resolves them: relative to a folder, globs expanded.

Every file a reference names must lie inside the config's folder (bench's suite-folder rule,
``bench.SuiteFolder``) unless ``--allow-outside-root`` was given. A glob's ``**`` does not enter
symlinked folders (as promptfoo's ``globSync``), and a walk stops with an error after
``MAX_GLOB_ENTRIES`` files and folders.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Iterator
from pathlib import Path

from bench import ConfigError, SuiteFolder

FILE = "file://"
#: How many files and folders one glob may look at before bench gives up on it.
MAX_GLOB_ENTRIES = 100_000


def strip_file(value: str) -> str:
    """The path of a ``file://`` reference (the value itself when it has no prefix)."""
    return value[len(FILE) :] if value.startswith(FILE) else value


def expand(pattern: str, base: Path, folder: SuiteFolder, what: str) -> list[Path]:
    """The files a path or glob names, relative to ``base``, in node-glob's order; [] when none.

    ``what`` (``var 'doc' reads file://x``) names the reference when the rule refuses a file.
    """
    full = Path(pattern) if Path(pattern).is_absolute() else base / pattern
    if not glob.has_magic(str(full)):
        return [folder.check(full, what)] if full.is_file() else []
    start, parts = _split(full)
    folder.check(start, what)  # a walk outside the folder could only find files it refuses
    found = list(dict.fromkeys(p for p in _walk(start, parts, folder.suite, what) if p.is_file()))
    return [folder.check(p, what) for p in sorted(found, key=_glob_order, reverse=True)]


def _split(full: Path) -> tuple[Path, list[str]]:
    """The folder before the first part with a wildcard, and the parts from there on."""
    parts = full.parts
    first = next(i for i, part in enumerate(parts) if glob.has_magic(part))
    rest = list(parts[first:])
    if rest[-1] == "**":  # a trailing ** matches every file below too
        rest.append("*")
    return Path(*parts[:first]), rest


def _walk(start: Path, parts: list[str], suite: Path, what: str) -> Iterator[Path]:
    """What ``parts`` match under ``start``, as Python's recursive glob matches them, except that
    ``**`` never enters a symlinked folder; at most MAX_GLOB_ENTRIES entries are looked at."""
    seen = 0

    def entries(folder: Path) -> list[os.DirEntry[str]]:
        nonlocal seen
        try:
            with os.scandir(folder) as listing:
                found = list(listing)
        except OSError:
            return []
        seen += len(found)
        if seen > MAX_GLOB_ENTRIES:
            raise ConfigError(
                f"{what}: the glob looks at more than {MAX_GLOB_ENTRIES:,} files and folders; "
                "name fewer of them",
                file=suite,
            )
        return found

    def folders_below(folder: Path) -> Iterator[Path]:
        """``folder`` and every folder under it, symlinked folders not entered; hidden ones skipped."""
        stack = [folder]
        while stack:
            current = stack.pop()
            yield current
            stack.extend(
                Path(e.path)
                for e in entries(current)
                if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
            )

    def match(folder: Path, index: int) -> Iterator[Path]:
        if index == len(parts):
            yield folder
            return
        part = parts[index]
        if part == "**":
            for below in folders_below(folder):
                yield from match(below, index + 1)
        elif glob.has_magic(part):
            hidden = part.startswith(".")
            for entry in entries(folder):
                if (hidden or not entry.name.startswith(".")) and fnmatch.fnmatchcase(entry.name, part):
                    yield from match(Path(entry.path), index + 1)
        elif os.path.lexists(folder / part):
            yield from match(folder / part, index + 1)

    yield from match(start, 0)


def _glob_order(path: Path) -> tuple[tuple[int, str], ...]:
    """Sort key (reversed) for promptfoo's ``globSync`` (glob 13) order: in each folder its files
    first, then its subfolders' matches, names from last to first (``b.txt`` before ``a.txt``)."""
    *folders, name = path.parts
    return (*((0, folder) for folder in folders), (1, name))
