"""The simulated user: a model playing the user of a conversation, through the one LLM client.

Its calls are cached like any model call: the request holds the transcript so far, so a re-run
whose transcript prefix is unchanged replays the same user message without a call. Its calls
have their own purpose (``simulator``), counted apart from the target's and the judges'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench.llm.client import LLMClient
from bench.llm.request import LLMRequest
from bench.vocabulary.errors import TargetError
from bench.vocabulary.models import Usage, UserSimulator

#: The purpose of the simulator's model calls (``LLMRequest.purpose``).
SIMULATOR = "simulator"


@dataclass(frozen=True)
class UserTurn:
    """What the simulated user said, whether it ended its phase, and what the call cost."""

    text: str
    ended: bool
    usage: Usage
    cached: bool


def instructions(simulator: UserSimulator) -> str:
    """The simulator's system message: its role, persona, goal and how to stop."""
    parts = [
        "You are playing the USER in a conversation with an AI assistant. Write only the user's "
        "next message: no role labels, no commentary."
    ]
    if simulator.persona:
        parts.append(f"Who you are: {simulator.persona}")
    if simulator.goal:
        parts.append(f"Your goal: {simulator.goal}")
    if simulator.instructions:
        parts.append(simulator.instructions)
    parts.append(
        f"When your goal is met, or you cannot get further, reply with exactly {simulator.end_marker}"
    )
    return "\n\n".join(parts)


def as_seen_by_user(transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The transcript from the user's side: the assistant's text as ``user``, the user's own
    messages as ``assistant``; system and tool messages are not the user's to see."""
    flipped = {"assistant": "user", "user": "assistant"}
    seen = []
    for message in transcript:
        role = flipped.get(str(message.get("role")))
        content = message.get("content")
        if role is not None and isinstance(content, str) and content:
            seen.append({"role": role, "content": content})
    if not seen or seen[-1]["role"] != "user":
        seen.append({"role": "user", "content": "(Begin the conversation: write your first message.)"})
    return seen


async def next_message(
    llm: LLMClient | None, simulator: UserSimulator, transcript: list[dict[str, Any]], repeat: int
) -> UserTurn:
    """The simulated user's next message after ``transcript`` (the repeat is in the cache key,
    so repeats of a task may vary the user)."""
    if llm is None:
        raise TargetError("a simulated user needs the run's LLM client")
    request = LLMRequest(
        model=simulator.model,
        messages=[{"role": "system", "content": instructions(simulator)}, *as_seen_by_user(transcript)],
        params=dict(simulator.params),
        api_base=simulator.api_base,
        api_key_env=simulator.api_key_env,
        purpose=SIMULATOR,
        index=repeat,
    )
    result = await llm.complete(request)
    text = (result.text or "").strip()
    # The marker anywhere ends the phase: that message is not sent to the target.
    ended = not text or simulator.end_marker.casefold() in text.casefold()
    return UserTurn(text, ended, result.usage, result.cached)
