"""What a model call asks for and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from bench.vocabulary.models import ToolCall, Usage


@dataclass
class LLMRequest:
    """One chat completion to make."""

    model: str
    messages: list[dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    api_base: str | None = None
    api_key_env: str | None = None
    purpose: str = "target"
    #: Repeat or sample index: part of the cache key, so K repeats are K independent answers.
    index: int = 0
    cache: bool = True
    #: Stream the answer, which measures time to first token.
    stream: bool = False
    #: A moderation call (the first message's text is the input), not a chat completion.
    moderation: bool = False


@dataclass
class LLMResult:
    """A completion and what it cost."""

    model: str
    text: str | None
    tool_calls: list[ToolCall]
    finish_reason: str | None
    usage: Usage
    attempts: int = 1
    cached: bool = False
    raw_message: dict[str, Any] = field(default_factory=dict)

    @property
    def truncation(self) -> str | None:
        """Why the text is incomplete (the model hit its token limit; C13), else ``None``."""
        if self.finish_reason == "length":
            return "finish_reason=length: the model stopped at its token limit"
        return None

    def to_cache(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tool_calls": [c.model_dump() for c in self.tool_calls],
            "finish_reason": self.finish_reason,
            "usage": self.usage.model_dump(),
            "raw_message": self.raw_message,
        }


class CachedAnswer(BaseModel):
    """What the response cache keeps of an answer (``LLMResult.to_cache``): an entry of any other
    shape is damaged, and a miss."""

    text: str | None
    tool_calls: list[ToolCall]
    finish_reason: str | None
    usage: Usage
    raw_message: dict[str, Any]
