"""The data a run moves around: a task, the system's response to it, and their parts."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Message(BaseModel):
    """One OpenAI-style chat message."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[Any] | None = None


class ToolCall(BaseModel):
    """A tool (function) call the system made; ``arguments`` is the decoded JSON when it parses."""

    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: Any = Field(default_factory=dict)
    id: str | None = None


class Usage(BaseModel):
    """Tokens, cost and timing of producing a response; ``None`` means unknown, never zero."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    ttft_ms: float | None = None


class Response(BaseModel):
    """What the system under test produced for one task.

    ``output`` is the text evaluators read by default; ``error`` is set when the target failed.
    Later parts of bench (LLM targets, agents, workspaces) fill the other fields.
    """

    model_config = ConfigDict(extra="forbid")

    output: str | None = None
    error: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    artifacts: dict[str, Any] = Field(default_factory=dict)
    truncated: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        """The output text, or an empty string when there is none."""
        return self.output or ""


class Task(BaseModel):
    """One task of a suite, as the target and the evaluators see it.

    ``prompt`` is the rendered prompt text (``vars`` substituted); ``messages`` is set when the
    task's input is a chat conversation. ``response`` is a recorded response: no target is called.
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    prompt: str | None = None
    messages: list[Message] | None = None
    input: Any = None
    vars: dict[str, Any] = Field(default_factory=dict)
    response: Response | None = None
    timeout: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: AgentClash case fields, read through evidence references (``case.inputs.x``).
    inputs: dict[str, Any] = Field(default_factory=dict)
    expectations: dict[str, Any] = Field(default_factory=dict)
    #: A directory the file evaluators read (absolute); agents' workspaces fill it at run time.
    workspace: str | None = None
    #: Which repeat of the task this is; model calls use it in their cache key, so K repeats
    #: are K independent answers (0 until the suite repeats tasks).
    repeat: int = 0

    @property
    def text(self) -> str:
        """The prompt as one string: the prompt, else the last user message's text content."""
        if self.prompt is not None:
            return self.prompt
        for message in reversed(self.messages or []):
            if message.role == "user" and isinstance(message.content, str):
                return message.content
        return ""

    def chat(self) -> list[dict[str, Any]]:
        """The input as OpenAI-style messages."""
        if self.messages is not None:
            return [m.model_dump(exclude_none=True) for m in self.messages]
        return [{"role": "user", "content": self.prompt or ""}]
