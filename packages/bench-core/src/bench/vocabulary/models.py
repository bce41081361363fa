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


class ToolMock(BaseModel):
    """A canned answer to the model's calls of one tool (the ``litellm`` target's mocked tools).

    The first mock whose ``name`` is the call's and whose ``match`` the call's arguments contain
    answers it: ``error`` when set, else ``response`` (text as it is, anything else as JSON).
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    response: Any = ""
    error: str | None = None
    #: Arguments the call must have: mappings match a subset, lists item by item, numbers by value.
    match: dict[str, Any] | None = None


class Usage(BaseModel):
    """Tokens, cost and timing of producing a response; ``None`` means unknown, never zero."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    cost_usd: float | None = None
    latency_ms: float | None = None
    ttft_ms: float | None = None
    #: Model calls sent to produce the response, retries included (0: replayed from the cache).
    attempts: int | None = None
    #: Time spent waiting rather than working: for a call slot (concurrency, rate limits) and
    #: between attempts (backoff, ``Retry-After``). ``latency_ms`` is the answering call alone.
    wait_ms: float | None = None


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
    #: The output is incomplete (the model hit its token limit, a stream was cut, a cap applied).
    truncated: bool = False
    #: Why ``truncated`` is set, in words.
    truncation: str | None = None
    #: Size in bytes and sha256 of the whole output, when ``output`` holds less than all of it
    #: or was decoded with replacement characters (RELIABILITY D01, D02, C21).
    output_bytes: int | None = None
    output_sha256: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        """The output text, or an empty string when there is none."""
        return self.output or ""


MIB = 1024 * 1024


class RepoSpec(BaseModel):
    """A git repository a task runs in: a URL or a local path, and which branch or commit."""

    model_config = ConfigDict(extra="forbid")

    source: str
    branch: str | None = None
    ref: str | None = None

    @property
    def revision(self) -> str:
        """What to check out: ``ref`` (a commit, tag or branch), else ``branch``, else the default."""
        return self.ref or self.branch or "HEAD"


class CaptureCheck(BaseModel):
    """An AgentClash ``post_execution_checks`` entry: what to keep from the workspace after the run."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["file_capture", "directory_listing"]
    path: str
    key: str | None = None
    #: Per-file cap for ``file_capture`` (AgentClash's default: 1 MiB).
    max_bytes: int = Field(default=MIB, gt=0)
    #: Entry cap for ``directory_listing``.
    max_entries: int = Field(default=10_000, gt=0)


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
    #: Labels the task was given (``tags:``); ``bench run -k`` selects on them.
    tags: list[str] = Field(default_factory=list)
    #: AgentClash case fields, read through evidence references (``case.inputs.x``).
    inputs: dict[str, Any] = Field(default_factory=dict)
    expectations: dict[str, Any] = Field(default_factory=dict)
    #: A directory the file evaluators read (absolute); agents' workspaces fill it at run time.
    workspace: str | None = None
    #: Which of the suite's prompt variants (``prompts:``) this task's prompt is, when it is one.
    prompt_label: str | None = None
    #: Which repeat of the task this is; model calls use it in their cache key, so K repeats
    #: are K independent answers (0 until the suite repeats tasks).
    repeat: int = 0
    #: A repository bench copies into a fresh workspace for this task (the agent runs there).
    repo: RepoSpec | None = None
    #: What to capture from the workspace after the target ran (``file:PATH`` evidence reads it).
    post_execution_checks: list[CaptureCheck] = Field(default_factory=list)
    #: Cap on all captured bytes of one run of the task.
    max_capture_bytes: int = 10 * MIB
    #: Tools offered to the model besides the target's own (``litellm``), in either spec form.
    tools: list[dict[str, Any]] = Field(default_factory=list)
    #: Mocked tools answering this task's tool calls, before the target's own (``litellm``).
    tool_mocks: list[ToolMock] = Field(default_factory=list)
    #: The most model turns of this task's mocked tool loop (default: the target's ``max_steps``).
    max_steps: int | None = None

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
