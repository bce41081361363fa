"""The one directory walker: every entry below a folder, links never followed.

``os.walk`` follows no links either, but it lists a whole level before descending and cannot
be told to skip one folder while listing it; this walker yields each entry and asks
``descend`` before entering a folder. Folders that cannot be read are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import AnyStr


def walk(
    top: AnyStr,
    *,
    descend: Callable[[os.DirEntry[AnyStr]], bool] | None = None,
    ordered: bool = False,
) -> Iterator[os.DirEntry[AnyStr]]:
    """Each entry below ``top`` (depth first; by name within a folder when ``ordered``).

    A folder (not a link to one) is entered after it was yielded, when ``descend`` allows it.
    """
    stack = [top]
    while stack:
        current = stack.pop()
        try:
            scan = list(os.scandir(current))
        except OSError:
            continue
        if ordered:
            scan.sort(key=lambda e: e.name)
        for entry in scan:
            yield entry
            try:
                folder = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if folder and (descend is None or descend(entry)):
                stack.append(entry.path)


__all__ = ["walk"]
