"""A person's answer to a conversation that waits for them, kept where ``--resume`` reads it.

A conversation that reaches a ``person`` phase stops, its task ``waiting`` in the run store and
its journal left in the run's ``conversations/`` folder. The answer (``bench answer``, the
``--resume`` prompt on a terminal, ``bench view``) is appended to that journal and flushed to
disk before anyone is told it is saved, so a kill right after it loses nothing; a kill before it
leaves the task waiting as it was. ``--resume`` replays the turns, takes the answer as the
person's message and goes on.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.execution.journal.turns import PERSON, WAITING_FOR, journal_path, read_journal
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.results import WAITING
from bench.vocabulary.run_key import RunKey
from bench.vocabulary.store import read_run

#: The most characters a person's answer may have.
ANSWER_MAX = 20_000


@dataclass(frozen=True)
class Waiting:
    """A conversation of a run that waits for a person's turn."""

    run_id: str
    #: The task run's key (``id``, or ``id@N`` for repeat N).
    key: str
    #: The turn the person takes (1-based) and what they are asked to do.
    turn: int
    prompt: str
    #: The transcript so far (OpenAI-style messages).
    messages: list[dict[str, Any]]
    journal: Path
    #: When the person's time is up (ISO 8601 UTC) and what a resume then does; None: no limit.
    deadline: str | None = None
    on_timeout: str = "stop"

    @property
    def too_late(self) -> bool:
        """Whether the person's time is up: an answer is refused, a resume applies ``on_timeout``."""
        return self.deadline is not None and datetime.now(timezone.utc) >= datetime.fromisoformat(
            self.deadline
        )

    @property
    def answered(self) -> bool:
        """Whether the person's answer is saved, waiting for ``--resume`` to send it."""
        events = read_journal(self.journal)
        return bool(events) and events[-1].get("kind") == PERSON


def waiting_tasks(runs_dir: Path, ref: str) -> list[Waiting]:
    """The conversations of run ``ref`` (an id or ``latest``) that wait for a person."""
    run_id, _, results = read_run(runs_dir, ref, "bench answer")
    found = []
    for result in results:
        conversation = result.get("conversation") or {}
        asked = conversation.get(WAITING_FOR)
        if result.get("status") != WAITING or not isinstance(asked, dict):
            continue
        key = RunKey(str(result.get("id")), int(result.get("repeat") or 0)).key()
        found.append(
            Waiting(
                run_id,
                key,
                int(asked.get("turn") or 0),
                str(asked.get("prompt") or ""),
                list(conversation.get("messages") or []),
                journal_path(runs_dir / run_id, key),
                asked.get("deadline"),
                str(asked.get("on_timeout") or "stop"),
            )
        )
    return found


def find_waiting(runs_dir: Path, ref: str, key: str) -> Waiting:
    """Run ``ref``'s task run ``key`` that waits for a person; a clear refusal when none does."""
    found = waiting_tasks(runs_dir, ref)
    for waiting in found:
        if waiting.key == key:
            return waiting
    run_id = found[0].run_id if found else ref
    others = ", ".join(w.key for w in found) or "none"
    raise ConfigError(f"run {run_id} has no task '{key}' waiting for a person (waiting: {others})")


def check_in_time(waiting: Waiting) -> None:
    """Refuse an answer that comes after the person's deadline (a phase's ``timeout_s``)."""
    if waiting.too_late:
        ending = "fails the task" if waiting.on_timeout == "fail" else "ends the conversation there"
        raise ConfigError(
            f"too late: task '{waiting.key}' of run {waiting.run_id} waited for a person until "
            f"{waiting.deadline}; resuming the run {ending} (on_timeout: {waiting.on_timeout})"
        )


def save_answer(waiting: Waiting, text: str) -> None:
    """Append the person's answer to the conversation's journal, on disk before this returns."""
    check_in_time(waiting)
    text = text.strip()
    if not text:
        raise ConfigError("an answer is a message: it cannot be empty")
    if len(text) > ANSWER_MAX:
        raise ConfigError(f"an answer is at most {ANSWER_MAX} characters, not {len(text)}")
    if waiting.answered:
        raise ConfigError(
            f"task '{waiting.key}' of run {waiting.run_id} is answered already: "
            "resume the run to send the answer"
        )
    if not waiting.journal.is_file():
        raise ConfigError(
            f"task '{waiting.key}' of run {waiting.run_id} has no conversation journal "
            f"({waiting.journal}): run it again"
        )
    line = json.dumps({"kind": PERSON, "turn": waiting.turn, "content": text}, ensure_ascii=False)
    with open(waiting.journal, "r+b") as journal:
        end = journal.seek(0, os.SEEK_END)
        if end:  # a line a kill cut short would swallow the answer: cut it off first
            journal.seek(end - 1)
            if journal.read(1) != b"\n":
                journal.seek(0)
                kept = journal.read().rfind(b"\n") + 1
                journal.truncate(kept)
                journal.seek(kept)
        journal.write(line.encode("utf-8") + b"\n")
        journal.flush()
        os.fsync(journal.fileno())


def answer_waiting(runs_dir: Path, run: str, key: str, text: str) -> None:
    """Take a person's turn as ``bench answer`` does, without a terminal (tests, scripts): the task
    ``key`` of run ``run`` waits, and ``--resume`` goes on with ``text``."""
    save_answer(find_waiting(runs_dir, run, key), text)
