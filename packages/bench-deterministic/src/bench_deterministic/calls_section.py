"""AI Eval's text for ``contains``/``regex``: the response, then a "## Tool Calls Made" section.

AI Eval's runner (``buildFullResponse``) lets these checks see the tool calls' names and inputs,
so a check can look for an argument the model passed. The inputs are JSON as Go's
``json.MarshalIndent(input, "", "  ")`` writes them: keys sorted, ``<``, ``>``, ``&`` escaped.
"""

from __future__ import annotations

import json
from typing import Any

from bench import Response

_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _go_json(value: Any) -> str:
    text = json.dumps(_go_numbers(value), indent=2, sort_keys=True, ensure_ascii=False)
    for char, escape in _GO_ESCAPES.items():
        text = text.replace(char, escape)
    return text


def _go_numbers(value: Any) -> Any:
    """Go decodes JSON numbers as float64 and prints 2.0 as ``2``."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: _go_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_numbers(v) for v in value]
    return value


def with_calls_section(text: str, response: Response) -> str:
    """The response ``text``, followed by the response's tool calls when it made any (else the text)."""
    if not response.tool_calls:
        return text
    parts = ["## Response Text\n", text, "\n\n## Tool Calls Made\n"]
    for number, call in enumerate(response.tool_calls, start=1):
        parts.append(f"\n### Tool Call {number}\n- **Tool:** `{call.name}`\n")
        if call.arguments is not None:
            parts.append(f"- **Input:**\n```json\n{_go_json(call.arguments)}\n```\n")
    return "".join(parts)
