"""An agent's trajectory as steps: each tool call, what it returned and whether it failed.

Steps come from the response's OpenAI-style ``messages`` (an assistant message's ``tool_calls``
paired with the ``tool`` messages answering them, by ``tool_call_id``, else in order), or from
``tool_calls`` alone when the system reported no messages. A tool result counts as failed when
the message says ``is_error: true``, or its text starts with ``error`` (any case), reports a
non-zero ``exit code``, or holds a Python traceback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from bench import Response
from bench.llm import parse_tool_call

_FAILED = re.compile(
    r"^\s*(error\b|exit (code|status) [1-9])|Traceback \(most recent call last\)", re.IGNORECASE
)


@dataclass(frozen=True)
class Step:
    """One tool call of the agent and its outcome (``result`` None when not reported)."""

    name: str
    arguments: Any
    result: str | None
    failed: bool

    @property
    def signature(self) -> str:
        """The call's identity: its name and canonical arguments."""
        return f"{self.name}({json.dumps(self.arguments, sort_keys=True, default=str)})"


def failed(message: dict[str, Any] | Any, text: str) -> bool:
    """Whether a tool message reports a failure (see the module's rule)."""
    if isinstance(message, dict) and message.get("is_error") is True:
        return True
    return bool(_FAILED.search(text[:2000]))


def _text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


def steps(response: Response) -> list[Step]:
    """The response's tool calls in order, each with its result when the trajectory has one."""
    messages = [m.model_dump() for m in response.messages]
    results: dict[str, dict[str, Any]] = {}
    unnamed: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "tool":
            if message.get("tool_call_id"):
                results[str(message["tool_call_id"])] = message
            else:
                unnamed.append(message)
    found: list[Step] = []
    for message in messages:
        if message["role"] != "assistant":
            continue
        for raw in message.get("tool_calls") or []:
            call = parse_tool_call(raw)
            if call is None:
                continue
            answer = results.get(call.id) if call.id else None
            if answer is None and unnamed:
                answer = unnamed.pop(0)
            text = _text(answer.get("content")) if answer is not None else None
            found.append(Step(call.name, call.arguments, text, text is not None and failed(answer, text)))
    if not found:
        found = [Step(c.name, c.arguments, None, False) for c in response.tool_calls]
    return found


def assistant_turns(response: Response) -> int:
    """How many times the model answered (assistant messages), at least one per tool-call batch."""
    turns = sum(1 for m in response.messages if m.role == "assistant")
    return turns or (1 if response.tool_calls or response.output else 0)


def final_message(response: Response) -> str:
    """The agent's last words: its final assistant text, else the response output."""
    for message in reversed(response.messages):
        if message.role == "assistant" and message.content:
            return _text(message.content)
    return response.text
