"""The disk a task's workspace needs where it runs: its ``repo:``'s size on disk, or what the task
declares (``resources: [disk=2GiB]``), carried among its resource needs as ``disk=BYTES`` so an
executor with worker pools can place it (docs/scale.md)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

from bench.workspace.walk import walk

#: How a task's disk need is written among its resource tags: ``disk=BYTES``.
DISK = "disk="
_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([a-zA-Z]*)")


def parse_size(text: str) -> int | None:
    """Bytes of a size as written (``2GiB``, ``500MB``, ``1048576``); None when it is not one."""
    match = _SIZE.fullmatch(text.strip())
    unit = _UNITS.get(match.group(2).lower()) if match else None
    if match is None or unit is None:
        return None
    return int(float(match.group(1)) * unit)


def format_size(size: float) -> str:
    """``1.5 GiB``, ``20 MiB``, ``512 B``: a size for people."""
    for unit, name in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if size >= unit:
            return f"{size / unit:.1f} {name}".replace(".0 ", " ")
    return f"{size:g} B"


def disk_tag(size: int) -> str:
    """The resource tag of a disk need of ``size`` bytes."""
    return f"{DISK}{size}"


def disk_of(needs: Iterable[str]) -> int:
    """The disk a task with these needs asks for (the largest ``disk=BYTES``; 0: none)."""
    return max((int(tag[len(DISK) :]) for tag in needs if tag.startswith(DISK)), default=0)


def without_disk(needs: frozenset[str]) -> frozenset[str]:
    """The needs that name tags, the disk need left out."""
    return frozenset(tag for tag in needs if not tag.startswith(DISK))


@functools.lru_cache(maxsize=256)
def size_on_disk(folder: str) -> int:
    """Bytes of the files below ``folder`` (its ``.git`` included: the workspace is a clone);
    links are not followed. Measured once per folder and process."""
    total = 0
    for entry in walk(folder):
        if entry.is_file(follow_symlinks=False):
            try:
                total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total


def repo_need(source: str) -> int | None:
    """The disk a copy of the repository at ``source`` takes: its size on disk when it is a local
    folder; None for a remote one (declare it: ``resources: [disk=SIZE]``)."""
    path = Path(source.removeprefix("file://"))
    return size_on_disk(str(path)) if path.is_absolute() and path.is_dir() else None
