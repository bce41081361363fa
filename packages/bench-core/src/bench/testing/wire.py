"""The OpenAI shapes the fake server reads and answers: messages' text, completions, tool calls,
moderation scores."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

MODERATION_CATEGORIES = ("harassment", "hate", "self-harm", "sexual", "violence")
_INSULTS = ("idiot", "stupid", "useless", "hate you")


def default_moderation(text: str) -> dict[str, float]:
    """0.9 harassment for an insult, else 0.01 for every category."""
    rude = any(word in text.lower() for word in _INSULTS)
    return {c: (0.9 if rude and c == "harassment" else 0.01) for c in MODERATION_CATEGORIES}


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the request's last user message."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
            return str(content or "")
    return ""


def all_text(body: dict[str, Any]) -> str:
    """Every message's text, one per line (what a rule's ``match`` is looked for in)."""
    return "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])


def tool_call(call: dict[str, Any]) -> dict[str, Any]:
    """A scripted tool call as the API writes it."""
    arguments = call.get("arguments", {})
    return {
        "id": call.get("id") or f"call_{uuid.uuid4().hex[:8]}",
        "type": "function",
        "function": {
            "name": call["name"],
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        },
    }


def completion(body: dict[str, Any], reply: Any, choice: dict[str, Any] | None) -> dict[str, Any]:
    """A chat completion answering ``body`` with ``reply``'s tokens (a ``Reply``), and ``choice``."""
    usage = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [choice] if choice else [],
        "usage": usage,
    }
