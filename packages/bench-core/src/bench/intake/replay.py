"""A stored result's response, as the target gave it: what ``bench rescore`` hands the evaluators."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bench.evidence import CONVERSATION
from bench.vocabulary.models import Message, Response, ToolCall, Usage
from bench.vocabulary.results import INTERRUPTED, WAITING
from bench.vocabulary.run_key import RunKey
from bench.workspace.captures import PORTABLE, task_folder
from bench.workspace.checkout import DIFF_FIELDS, STORED_WORKSPACE


def stored_response(row: dict[str, Any], captures: Path | None = None) -> Response | None:
    """The response a result line recorded; None when the task never got one (interrupted) or
    its conversation is not over (waiting for a person). ``captures``: the run's captures
    folder, where the captured files' text was kept."""
    if not has_response(row):
        return None
    # A conversation keeps its transcript in ``conversation``; an agent its steps in ``trajectory``.
    conversation = dict(row.get("conversation") or {})
    transcript = conversation.pop("messages", None) or row.get("trajectory") or []
    return Response(
        output=row.get("response"),
        error=row.get("error"),
        tool_calls=[ToolCall.model_validate(c) for c in row.get("tool_calls") or []],
        messages=[Message.model_validate(m) for m in transcript],
        metadata={CONVERSATION: conversation} if conversation else {},
        usage=Usage.model_validate(row.get("usage") or {}),
        artifacts=stored_artifacts(row, captures),
        truncated=bool(row.get("truncated")),
        truncation=row.get("truncation"),
        output_bytes=row.get("response_bytes"),
        output_sha256=row.get("response_sha256"),
    )


def stored_artifacts(row: dict[str, Any], captures: Path | None) -> dict[str, Any]:
    """What a result kept of its task's workspace, as the evaluators of a change read it from a
    live one (``artifacts``): the diff (files, line counts, the patch), what escaped the
    workspace, and each captured file with its kept text. Nothing for a task without a workspace."""
    kept = row.get("workspace")
    if not isinstance(kept, dict) or not isinstance(kept.get("files"), list):
        return {}
    diff = {"base_commit": kept.get("base_commit"), **{k: kept[k] for k in DIFF_FIELDS if k in kept}}
    artifacts: dict[str, Any] = {"diff": diff, "escapes": kept.get("escapes") or [], STORED_WORKSPACE: kept}
    captured = kept.get("captured")
    if isinstance(captured, dict) and captures is not None:
        folder = task_folder(captures, result_key(row))
        found = {path: _with_text(record, folder, path) for path, record in captured.items()}
        files = {path: record for path, record in found.items() if record is not None}
        artifacts["files"] = files
        # The new run keeps the captured text in its own captures folder (the sink lands it).
        carried = {path: {**record, PORTABLE: files[path]["content"]} if path in files else record
                   for path, record in captured.items()}  # fmt: skip
        artifacts[STORED_WORKSPACE] = {**kept, "captured": carried}
    return artifacts


def _with_text(record: Any, folder: Path, path: str) -> dict[str, Any] | None:
    """A captured file's record with its kept text (``content``), as it was captured; None when
    its text was kept but cannot be read now."""
    if not isinstance(record, dict):
        return None
    if not record.get("exists") or record.get("link") is not None or "size" not in record:
        return {**record, "content": ""}  # nothing was kept: the record says why
    try:
        text = (folder / os.path.normpath(path)).read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    return {**record, "content": text}


def has_response(row: dict[str, Any]) -> bool:
    """Whether a result line holds a response to judge again (not interrupted, not waiting)."""
    return row.get("status") not in (INTERRUPTED, WAITING)


def result_key(row: dict[str, Any]) -> str:
    """The key a result line is stored under: its id, then ``id@N`` for repeat N > 0."""
    return RunKey.of(row).key()
