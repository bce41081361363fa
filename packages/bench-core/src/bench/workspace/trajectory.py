"""Reading the trajectory an agent reports: OpenAI-style messages as JSON or JSONL.

The file bench names in ``BENCH_TRAJECTORY_FILE`` (or ``{trajectory_file}``) may hold

- a JSON list of messages,
- a JSON object ``{"messages": [...], "usage": {...}}``, or
- JSONL: one message per line; a line ``{"usage": {...}}`` (no ``role``) reports token usage.

``usage`` takes bench's keys (``input_tokens``, ``output_tokens``, ``total_tokens``, ``cost_usd``)
or OpenAI's (``prompt_tokens``, ``completion_tokens``). The tool calls of assistant messages
become the response's ``tool_calls``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.vocabulary.errors import TargetError
from bench.vocabulary.jsonio import loads_strict
from bench.vocabulary.models import Message, ToolCall, Usage
from bench.vocabulary.tool_calls import parse_tool_call

MAX_TRAJECTORY_BYTES = 64 * 1024 * 1024


def read(path: Path) -> tuple[list[Message], Usage | None]:
    """The messages and usage in a trajectory file; ``([], None)`` when the agent wrote none."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return [], None
    if size > MAX_TRAJECTORY_BYTES:
        raise TargetError(f"trajectory file is {size} bytes, more than {MAX_TRAJECTORY_BYTES}")
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text.strip():
        return [], None
    try:
        data: Any = loads_strict(text)
        rows = data if isinstance(data, list) else [data]
    except ValueError:
        rows = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(loads_strict(line))
                except ValueError as exc:
                    raise TargetError(f"trajectory line {number} is not JSON: {exc}") from None
    usage: dict[str, Any] = {}
    messages: list[Message] = []
    for row in rows:
        if not isinstance(row, dict):
            raise TargetError("a trajectory holds JSON objects (messages)")
        if "messages" in row and "role" not in row:
            usage.update(row.get("usage") or {})
            messages.extend(_message(m) for m in row["messages"])
        elif "role" not in row and "usage" in row:
            usage.update(row["usage"] or {})
        else:
            messages.append(_message(row))
    return messages, _usage(usage) if usage else None


def _message(row: Any) -> Message:
    try:
        return Message.model_validate(row)
    except ValidationError as exc:
        problem = exc.errors()[0]
        raise TargetError(f"trajectory message {row!r:.200}: {problem['msg']}") from None


def _usage(raw: dict[str, Any]) -> Usage:
    input_tokens = raw.get("input_tokens", raw.get("prompt_tokens"))
    output_tokens = raw.get("output_tokens", raw.get("completion_tokens"))
    total = raw.get("total_tokens")
    if total is None and input_tokens is not None and output_tokens is not None:
        total = input_tokens + output_tokens
    try:
        return Usage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=total,
            cost_usd=raw.get("cost_usd"),
        )
    except ValidationError as exc:
        raise TargetError(f"trajectory usage: {exc.errors()[0]['msg']}") from None


def tool_calls(messages: list[Message]) -> list[ToolCall]:
    """The tool calls of the assistant messages, arguments decoded when they are JSON."""
    calls: list[ToolCall] = []
    for message in messages:
        if message.role != "assistant":
            continue
        parsed = (parse_tool_call(call) for call in getattr(message, "tool_calls", None) or [])
        calls.extend(call for call in parsed if call is not None)
    return calls
