"""Reading tool calls: the one parser of an OpenAI-style call and of its JSON arguments.

A call is ``{"id", "type": "function", "function": {"name", "arguments"}}`` as chat models send
it, or the flat ``{"name", "arguments"}`` that suites and trajectory files may use. Arguments
arrive as a JSON string; text that is not JSON is kept as it is, for the tool-call evaluators to
report (RELIABILITY C20).
"""

from __future__ import annotations

import json
from typing import Any

from bench.vocabulary.models import ToolCall


def decode_arguments(raw: Any) -> Any:
    """A call's arguments as data: JSON text decoded (none, or text that is empty or only
    whitespace: ``{}``), other text kept as it is."""
    if raw is None:
        return {}
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw) if raw.strip() else {}
    except ValueError:
        return raw


def parse_tool_call(call: Any, *, decode: bool = True) -> ToolCall | None:
    """One call from a message's ``tool_calls``; ``None`` when it names no tool.

    With ``decode=False`` the arguments stay as they were written (a JSON string, usually).
    """
    function = call.get("function", call) if isinstance(call, dict) else {}
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(name, str):
        return None
    arguments = function.get("arguments", {})
    call_id = call.get("id")
    return ToolCall(
        name=name,
        arguments=decode_arguments(arguments) if decode else arguments,
        id=None if call_id is None else str(call_id),
    )


__all__ = ["decode_arguments", "parse_tool_call"]
