"""The agent's change as files and hunks, read from the unified diff git writes (``diff-tree -p``).

bench records the patch itself (``bench.workspace``), so only git's format is read: a
``diff --git`` header, the extended header lines (``new file``, ``deleted file``, ``rename
from``/``to``, ``Binary files ... differ``), the ``---``/``+++`` names and ``@@`` hunks.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Literal

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")

Side = Literal["old", "new"]


@dataclass(frozen=True)
class Line:
    """One line of a hunk: ``+`` added, ``-`` removed, `` `` context; its number on each side."""

    kind: str
    text: str
    old: int | None
    new: int | None


@dataclass
class Hunk:
    """One ``@@`` hunk of a file's diff."""

    header: str
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list[Line] = field(default_factory=list)

    def covers(self, side: Side, first: int, last: int) -> bool:
        """Whether this hunk changes a line numbered ``first..last`` on ``side``."""
        for line in self.lines:
            number = line.old if side == "old" else line.new
            if line.kind != " " and number is not None and first <= number <= last:
                return True
        return False


@dataclass
class FilePatch:
    """What changed in one file: its status (added, deleted, modified, renamed) and hunks."""

    path: str
    old_path: str | None = None
    status: str = "modified"
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def paths(self) -> tuple[str, ...]:
        """The file's path, and its former path after a rename."""
        return (self.path,) if self.old_path in (None, self.path) else (self.path, str(self.old_path))

    def lines(self, kind: str) -> list[tuple[Hunk, Line]]:
        """Every added (``+``) or removed (``-``) line with its hunk."""
        return [(h, line) for h in self.hunks for line in h.lines if line.kind == kind]

    def locate(self, side: Side, first: int, last: int | None = None) -> Hunk | None:
        """The first hunk changing a line of ``first..last`` on ``side``."""
        return next((h for h in self.hunks if h.covers(side, first, last or first)), None)


def unquote(name: str) -> str:
    """A path as git writes it: C-quoted (``"a/caf\\303\\251"``) when it holds unusual bytes."""
    if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
        raw, _ = codecs.escape_decode(name[1:-1].encode("utf-8"))
        return bytes(raw).decode("utf-8", "replace")
    return name


def _strip_prefix(name: str) -> str:
    name = unquote(name)
    return name[2:] if name[:2] in ("a/", "b/") else name


def _header_paths(rest: str) -> tuple[str, str]:
    """``a/X b/Y`` of a ``diff --git`` line; exact when X == Y (the common case) or quoted."""
    if rest.startswith('"'):
        end = rest.index('"', 1)
        while rest[end - 1] == "\\":
            end = rest.index('"', end + 1)
        return _strip_prefix(rest[: end + 1]), _strip_prefix(rest[end + 2 :])
    half = (len(rest) - 1) // 2
    return _strip_prefix(rest[:half]), _strip_prefix(rest[half + 1 :])


def parse(patch: str) -> list[FilePatch]:
    """The files and hunks of a git patch, in order."""
    files: list[FilePatch] = []
    current: FilePatch | None = None
    hunk: Hunk | None = None
    old_no = new_no = 0
    for raw in patch.splitlines():
        if raw.startswith("diff --git "):
            old, new = _header_paths(raw[len("diff --git ") :])
            current = FilePatch(new, old_path=old if old != new else None)
            files.append(current)
            hunk = None
            continue
        if current is None:
            continue
        if hunk is not None and raw[:1] in (" ", "+", "-") and (old_no, new_no) != (-1, -1):
            kind = raw[0]
            line = Line(kind, raw[1:], old_no if kind != "+" else None, new_no if kind != "-" else None)
            hunk.lines.append(line)
            old_no += kind != "+"
            new_no += kind != "-"
            if old_no >= hunk.old_start + hunk.old_count and new_no >= hunk.new_start + hunk.new_count:
                old_no = new_no = -1  # the hunk is complete: what follows is a header
            continue
        found = _HUNK.match(raw)
        if found:
            old_start, old_count, new_start, new_count, _ = found.groups()
            hunk = Hunk(
                raw,
                int(old_start),
                1 if old_count is None else int(old_count),
                int(new_start),
                1 if new_count is None else int(new_count),
            )
            # an empty side starts at 0 in the header; its lines, if any, are numbered from 1
            old_no, new_no = max(hunk.old_start, 1), max(hunk.new_start, 1)
            current.hunks.append(hunk)
            continue
        _header_line(current, raw)
    return files


def _header_line(current: FilePatch, raw: str) -> None:
    if raw.startswith("new file mode"):
        current.status = "added"
    elif raw.startswith("deleted file mode"):
        current.status = "deleted"
    elif raw.startswith("rename from "):
        current.old_path, current.status = unquote(raw[len("rename from ") :]), "renamed"
    elif raw.startswith("rename to "):
        current.path = unquote(raw[len("rename to ") :])
    elif raw.startswith("Binary files ") or raw == "GIT binary patch":
        current.binary = True
    elif raw.startswith("--- ") and raw != "--- /dev/null":
        current.old_path = current.old_path or _strip_prefix(raw[4:])
        if current.old_path == current.path:
            current.old_path = None
    elif raw.startswith("+++ ") and raw != "+++ /dev/null":
        current.path = _strip_prefix(raw[4:])
