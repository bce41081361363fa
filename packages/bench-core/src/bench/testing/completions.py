"""What the fake server answers with: a chat completion's JSON and moderation scores."""

from __future__ import annotations

import json
import time
import uuid
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.testing.server import Reply

MODERATION_CATEGORIES = ("harassment", "hate", "self-harm", "sexual", "violence")
_INSULTS = ("idiot", "stupid", "useless", "hate you")


def default_moderation(text: str) -> dict[str, float]:
    """0.9 harassment for an insult, else 0.01 for every category."""
    rude = any(word in text.lower() for word in _INSULTS)
    return {c: (0.9 if rude and c == "harassment" else 0.01) for c in MODERATION_CATEGORIES}


def tool_call(call: dict[str, Any]) -> dict[str, Any]:
    """One tool call of a reply, as a chat completion's message holds it."""
    arguments = call.get("arguments", {})
    return {
        "id": call.get("id") or f"call_{uuid.uuid4().hex[:8]}",
        "type": "function",
        "function": {
            "name": call["name"],
            "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
        },
    }


def completion(body: dict[str, Any], reply: Reply, choice: dict[str, Any] | None) -> dict[str, Any]:
    """A chat completion's JSON body around ``choice``, with the reply's token counts."""
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
