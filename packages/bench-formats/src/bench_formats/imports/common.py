"""What the importers share: message text, OpenAI-style tool calls, numbers read safely."""

from __future__ import annotations

import json
from typing import Any

from bench.llm import ToolCall, parse_tool_call


def text_of(content: Any) -> str:
    """A message's content as text: a string as it is, the text parts of a list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") or p.get("content") if isinstance(p, dict) else p for p in content]
        return "".join(str(p) for p in parts if isinstance(p, str))
    return "" if content is None else json.dumps(content)


def function_call(call_id: str | None, name: str, arguments: Any) -> dict[str, Any]:
    """An OpenAI-style tool call of an assistant message (arguments as JSON text)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def tool_calls(messages: list[dict[str, Any]]) -> list[ToolCall]:
    """The tool calls of the assistant messages, in order."""
    found = []
    for message in messages:
        if message.get("role") == "assistant":
            for raw in message.get("tool_calls") or []:
                call = parse_tool_call(raw)
                if call is not None:
                    found.append(call)
    return found


def number(value: Any) -> float | None:
    """``value`` as a float when it is a number (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
