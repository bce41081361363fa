"""A stored result's response, as the target gave it: what ``bench rescore`` hands the evaluators."""

from __future__ import annotations

from typing import Any

from bench.vocabulary.models import Message, Response, ToolCall, Usage
from bench.vocabulary.results import INTERRUPTED, WAITING
from bench.vocabulary.run_key import RunKey


def stored_response(row: dict[str, Any]) -> Response | None:
    """The response a result line recorded; None when the task never got one (interrupted) or
    its conversation is not over (waiting for a person)."""
    if row.get("status") in (INTERRUPTED, WAITING):
        return None
    return Response(
        output=row.get("response"),
        error=row.get("error"),
        tool_calls=[ToolCall.model_validate(c) for c in row.get("tool_calls") or []],
        messages=[Message.model_validate(m) for m in row.get("trajectory") or []],
        usage=Usage.model_validate(row.get("usage") or {}),
        truncated=bool(row.get("truncated")),
        truncation=row.get("truncation"),
        output_bytes=row.get("response_bytes"),
        output_sha256=row.get("response_sha256"),
    )


def result_key(row: dict[str, Any]) -> str:
    """The key a result line is stored under: its id, then ``id@N`` for repeat N > 0."""
    return RunKey.of(row).key()
