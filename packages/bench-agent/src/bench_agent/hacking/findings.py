"""A finding of a reward-hacking check, with its evidence: the file, the hunk and the line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench_agent.hacking.patches import FilePatch, Hunk, Side


@dataclass(frozen=True)
class Finding:
    """One way the agent may have gamed its grading, and where the diff shows it.

    ``hunk`` is the ``@@`` header of the hunk that shows it (``None`` for a change without
    hunks: a binary file, a pure rename); ``line`` is numbered on ``side`` (``old``: the file
    before the change, ``new``: after). A read seen in the trajectory has ``step`` and ``tool``.
    """

    check: str
    message: str
    file: str | None = None
    hunk: str | None = None
    line: int | None = None
    side: Side | None = None
    text: str | None = None
    step: int | None = None
    tool: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


def at_file(check: str, fp: FilePatch, message: str) -> Finding:
    """A finding about a whole file: its first hunk and first changed line as evidence."""
    for hunk in fp.hunks:
        for line in hunk.lines:
            if line.kind != " ":
                side: Side = "old" if line.kind == "-" else "new"
                number = line.old if side == "old" else line.new
                return Finding(check, message, fp.path, hunk.header, number, side, line.text)
    return Finding(check, message, fp.path)


def at_lines(
    check: str, fp: FilePatch, message: str, side: Side, first: int, last: int | None = None
) -> Finding:
    """A finding about lines ``first..last`` on ``side``: the hunk that changes them."""
    hunk = fp.locate(side, first, last)
    if hunk is None:
        return Finding(check, message, fp.path, None, first, side)
    number, text = next(
        (n, line.text)
        for line in hunk.lines
        if line.kind != " "
        and (n := line.old if side == "old" else line.new) is not None
        and first <= n <= (last or first)
    )
    return Finding(check, message, fp.path, hunk.header, number, side, text)


def at_line(
    check: str, fp: FilePatch, hunk: Hunk, kind: str, number: int | None, text: str, message: str
) -> Finding:
    """A finding about one added (``+``) or removed (``-``) line of ``hunk``."""
    return Finding(check, message, fp.path, hunk.header, number, "new" if kind == "+" else "old", text)
