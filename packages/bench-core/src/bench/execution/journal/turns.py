"""A conversation's turns journalled as they happen (one JSON line each), replayed on resume.

The journal of task run ``KEY`` is ``<run>/conversations/<digest of KEY>.jsonl``; its first line
holds the task's digest. Events: ``user`` (a user turn: a simulator's message kept, a scripted
one's place only), ``reply`` (the target's response), ``asked`` (when the conversation began to
wait for a person) and ``person`` (a person's answer, ``journal/person``).
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.workspace.captures import task_folder

#: A person's turn's journal event, and who spoke it in a conversation's ``turns``.
PERSON = "person"
#: The key of a conversation's record naming the person's turn it waits for (``turn``, ``prompt``,
#: ``since``: when it began; ``deadline`` and ``on_timeout`` when the person has a time limit).
WAITING_FOR = "waiting"
#: The journal event of when a conversation began to wait for a person (``at``, seconds since epoch).
ASKED = "asked"
#: The key of a conversation's record naming the person's turn no one answered in time.
TIMED_OUT = "timed_out"


def instant(seconds: float) -> str:
    """Seconds since the epoch as an ISO 8601 UTC time (how a person's wait is recorded)."""
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat()


def journal_path(run_folder: Path, key: str) -> Path:
    """Where the conversation of the task run ``key`` is journalled in the run folder."""
    return task_folder(run_folder / "conversations", key).with_suffix(".jsonl")


def read_journal(path: Path) -> list[dict[str, Any]]:
    """A journal's events; a line a kill cut short (or any damaged line) ends it there."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return []
    events = []
    for line in text.split("\n")[:-1]:  # the text after the last newline was cut mid-write
        try:
            event = json.loads(line)
        except ValueError:
            break
        if not isinstance(event, dict):
            break
        events.append(event)
    return events


class Journal:
    """A conversation's messages appended as they happen (one JSON line each), replayed on resume.

    The first line holds the task's digest: a journal of an edited task is started again."""

    def __init__(self, path: Path | None, digest: str) -> None:
        self.path = path
        self.digest = digest
        self.replay: list[dict[str, Any]] = []
        #: The events replayed so far: the journal's prefix that still holds.
        self.consumed: list[dict[str, Any]] = []
        if path is None:
            return
        lines = read_journal(path)
        if lines and lines[0].get("digest") == digest:
            self.replay = lines[1:]
            self.replay.reverse()
        self._rewrite()  # a new journal, or the old one without a line a kill cut short

    def replayed(self, kind: str) -> dict[str, Any] | None:
        """The next journalled event when it is of ``kind`` (``user``, ``reply``, ``person``), else None."""
        if self.replay and self.replay[-1].get("kind") == kind:
            self.consumed.append(self.replay.pop())
            return self.consumed[-1]
        if self.replay:  # the conversation went another way from here: live from now on
            self.replay = []
            self._rewrite()
        return None

    def upcoming(self) -> str | None:
        """The kind of the next journalled event to replay, if any (nothing is consumed)."""
        return str(self.replay[-1].get("kind")) if self.replay else None

    def _rewrite(self) -> None:
        """The journal as replayed so far and still to replay, replaced atomically: a kill
        while it is written leaves the old one (which may hold a person's answer)."""
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lines = [{"digest": self.digest}, *self.consumed, *reversed(self.replay)]
            partial = self.path.with_suffix(".partial")
            partial.write_text(
                "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in lines), encoding="utf-8"
            )
            os.replace(partial, self.path)

    def write(self, event: dict[str, Any]) -> None:
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(event, ensure_ascii=False) + "\n")

    def finish(self) -> None:
        """The conversation's result is recorded: its journal is no longer needed."""
        if self.path is not None:
            self.path.unlink(missing_ok=True)
