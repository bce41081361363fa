"""``bench view --label``: one rater's labels written from the viewer, in ``bench label``'s file.

The viewer posts ``{"task", "passed" | "score", "note"}`` for a task of a run; the label is checked
field by field and becomes the rater's only label for that task (a later one replaces it, under the
file's lock, which every writer of the file takes in any process), so
``bench label`` resumes after it and ``bench calibrate --labels`` reads it. The HTTP checks (token,
Host, Content-Type, size) are the server's (``viewer``). A person's answer to a conversation
waiting for one comes the same way (``answer_from_page``), without ``--label``.
"""

from __future__ import annotations

import math
import secrets
from pathlib import Path
from typing import Any

from bench.execution.journal.person import find_waiting, save_answer
from bench.report.viewer.data import NotFound, RunsView
from bench.scoring.labels import Label, check_output, locked, read_labels, replace_label

NOTE_MAX = 2000
_FIELDS = ("task", "passed", "score", "note")


class BadLabel(ValueError):
    """A label the viewer refuses; the message is shown to the user."""


class Labelling:
    """Where labels go and who gives them, with the token the page must send back."""

    def __init__(self, out: Path, rater: str) -> None:
        check_output(out)
        self.out = out
        self.rater = rater
        self.token = secrets.token_urlsafe(32)

    def labels(self) -> dict[str, dict[str, Any]]:
        """This rater's labels so far, by task id."""
        with locked(self.out):  # a bench label beside it may be adding a line
            found = read_labels(self.out) if self.out.exists() else []
        return {label.task: label.as_row() for label in found if label.rater == self.rater}

    def write(self, view: RunsView, ref: str, body: Any) -> dict[str, Any]:
        """Check ``body`` against run ``ref`` and record it; the label as written."""
        task, passed, score, note = _fields(body)
        folder = view.folder(ref)
        record = next(
            (r for r in view.records(folder) if str(r.get("id")) == task and not r.get("repeat")), None
        )
        if record is None:
            raise NotFound(f"run {folder.name} has no task '{task}'")
        response = record.get("response")
        label = Label(
            task,
            passed=passed,
            score=score,
            rater=self.rater,
            note=note,
            response=None if response is None else str(response),
        )
        replace_label(self.out, label)  # under the file's lock: other tabs and processes wait
        return label.as_row()


def _fields(body: Any) -> tuple[str, bool | None, float | None, str]:
    if not isinstance(body, dict):
        raise BadLabel("the body must be a JSON object")
    unknown = [key for key in body if key not in _FIELDS]
    if unknown:
        raise BadLabel(f"unknown field '{unknown[0]}' (a label has {', '.join(_FIELDS)})")
    task, passed, score, note = (body.get(key) for key in _FIELDS)
    if not isinstance(task, str) or not task:
        raise BadLabel("task must be a task id")
    if passed is not None and not isinstance(passed, bool):
        raise BadLabel(f"passed must be true or false, not {passed!r}")
    if score is not None and (
        isinstance(score, bool)
        or not isinstance(score, int | float)
        or not math.isfinite(score)
        or not 0 <= score <= 1
    ):
        raise BadLabel(f"score must be a number from 0 to 1, not {score!r}")
    if passed is None and score is None:
        raise BadLabel("a label needs passed or score")
    note = "" if note is None else note
    if not isinstance(note, str) or len(note) > NOTE_MAX:
        raise BadLabel(f"note must be text of at most {NOTE_MAX} characters")
    return task, passed, None if score is None else float(score), note


def answer_from_page(view: RunsView, ref: str, body: Any) -> dict[str, Any]:
    """A person's turn posted from the page of run ``ref``'s waiting conversation
    (``{"task", "text"}``), saved for ``--resume`` (``execution/journal/person``)."""
    if not isinstance(body, dict) or set(body) != {"task", "text"}:
        raise BadLabel('an answer is a JSON object {"task": TASK, "text": MESSAGE}')
    task, text = body["task"], body["text"]
    if not isinstance(task, str) or not task or not isinstance(text, str):
        raise BadLabel("task must be a task id and text the person's message")
    waiting = find_waiting(view.runs_dir, view.folder(ref).name, task)
    save_answer(waiting, text)
    return {"task": waiting.key, "resume": f"bench run SUITE --resume {waiting.run_id}"}
