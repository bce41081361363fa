"""The data a run moves around: a task, the system's response to it, and their parts."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError


class _Model(BaseModel):
    """Unknown fields are refused, and the schema is built at first use (``defer_build``): a run
    pays only for the models it validates (a recorded run never builds the conversation's)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")


class Message(_Model):
    """One OpenAI-style chat message."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[Any] | None = None


class ToolCall(_Model):
    """A tool (function) call the system made; ``arguments`` is the decoded JSON when it parses."""

    name: str
    arguments: Any = Field(default_factory=dict)
    id: str | None = None


class ToolMock(_Model):
    """A canned answer to the model's calls of one tool (the ``litellm`` target's mocked tools).

    The first mock whose ``name`` is the call's and whose ``match`` the call's arguments contain
    answers it: ``error`` when set, else ``template`` filled with the call's arguments when set,
    else ``response`` (text as it is, anything else as JSON).
    """

    name: str = Field(min_length=1)
    response: Any = ""
    #: A value answered with the call's arguments filled in (``${city}``, ``${json:filters}``,
    #: ``${parameters}``; docs/suites.md, "Mocked tools").
    template: Any = None
    error: str | None = None
    #: Arguments the call must have: mappings match a subset, lists item by item, numbers by value.
    match: dict[str, Any] | None = None


class Usage(_Model):
    """Tokens, cost and timing of producing a response; ``None`` means unknown, never zero."""

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


class Response(_Model):
    """What the system under test produced for one task.

    ``output`` is the text evaluators read by default; ``error`` is set when the target failed.
    Later parts of bench (LLM targets, agents, workspaces) fill the other fields.
    """

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

    def with_last_reply(self) -> Response:
        """A recorded transcript's response: ``output`` is its last assistant message's text."""
        if self.output is not None or self.error is not None:
            return self
        for message in reversed(self.messages):
            if message.role == "assistant" and isinstance(message.content, str):
                return self.model_copy(update={"output": message.content})
        return self


MIB = 1024 * 1024


class RepoSpec(_Model):
    """A git repository a task runs in: a URL or a local path, and which branch or commit."""

    source: str
    branch: str | None = None
    ref: str | None = None
    #: A folder (absolute) where each run of the task gets its own kept folder
    #: ``NAME-YYYY-MM-DD-MS``, the copy in its ``src-modified`` (``workspace_dir:``); else a
    #: temporary folder.
    workspace_dir: str | None = None
    #: NAME above (``workspace_name:``; default ``run``).
    workspace_name: str | None = None

    @property
    def revision(self) -> str:
        """What to check out: ``ref`` (a commit, tag or branch), else ``branch``, else the default."""
        return self.ref or self.branch or "HEAD"


class CaptureCheck(_Model):
    """An AgentClash ``post_execution_checks`` entry: what to keep from the workspace after the run."""

    type: Literal["file_capture", "directory_listing"]
    path: str
    key: str | None = None
    #: Per-file cap for ``file_capture`` (AgentClash's default: 1 MiB).
    max_bytes: int = Field(default=MIB, gt=0)
    #: Entry cap for ``directory_listing``.
    max_entries: int = Field(default=10_000, gt=0)


class AfterTask(_Model):
    """``after_task:``: a command run once the task is decided, in its workspace, with its result.

    It cannot change the result: a failure or a timeout is a warning on bench's standard error.
    """

    #: The program and its arguments (no shell).
    command: list[str] = Field(min_length=1)
    #: Variables added to bench's environment for it.
    env: dict[str, str] = Field(default_factory=dict)
    #: Seconds before it and everything it started are killed.
    timeout: float = Field(default=60.0, gt=0)


class ReplyExpectation(_Model):
    """What a scripted turn's reply should hold; a reply that falls short is a *mismatch*, which
    steers the conversation (a phase ``when: after_mismatch``) and is no verdict."""

    #: The reply holds this text (case-sensitive).
    contains: str | None = None
    #: The reply, without surrounding whitespace, is this text.
    equals: str | None = None

    @model_validator(mode="after")
    def _one_check(self) -> ReplyExpectation:
        if (self.contains is None) == (self.equals is None):
            raise PydanticCustomError("conversation", "an expectation has either 'contains' or 'equals'")
        return self

    def met(self, reply: str) -> bool:
        """Whether ``reply`` holds what is expected."""
        if self.contains is not None:
            return self.contains in reply
        return reply.strip() == self.equals


class ScriptedTurn(_Model):
    """One scripted user turn: the user's message, and checks of the assistant's reply to it."""

    #: The user's message (text, or OpenAI-style content parts).
    user: str | list[Any]
    #: Evaluator entries judging the reply to this turn only (as a task's ``evaluate:``).
    evaluate: str | dict[str, Any] | list[str | dict[str, Any]] | None = None
    #: What the reply should hold: a reply failing one is a mismatch (``when: after_mismatch``).
    expect: list[ReplyExpectation] = Field(default_factory=list)


class StopConditions(_Model):
    """When a simulated user's phase ends before ``max_turns``."""

    #: The assistant's reply holds one of these texts (case-insensitive).
    assistant_says: list[str] = Field(default_factory=list)
    #: The assistant called one of these tools in its reply.
    assistant_calls: list[str] = Field(default_factory=list)
    #: The simulated user's message holds one of these texts (case-insensitive).
    user_says: list[str] = Field(default_factory=list)


class UserSimulator(_Model):
    """A model playing the user: who they are, what they want, and when they stop."""

    model_config = ConfigDict(allow_inf_nan=False)

    model: str = Field(min_length=1)
    #: Who the user is (their situation, tone).
    persona: str | None = None
    #: Further instructions to the simulator (how to behave, what to reveal when).
    instructions: str | None = None
    #: What the user wants from the conversation; the simulator stops once it is met.
    goal: str | None = None
    #: The most user messages the simulator writes in this phase.
    max_turns: int = Field(default=5, gt=0, le=1000)
    #: The simulator writes this alone when its goal is met or it gives up: the phase ends.
    end_marker: str = Field(default="[done]", min_length=1)
    stop: StopConditions = Field(default_factory=StopConditions)
    #: Extra parameters of the simulator's model calls (``temperature``, ``max_tokens``, ...).
    params: dict[str, Any] = Field(default_factory=dict)
    api_base: str | None = None
    api_key_env: str | None = None


class PersonTurn(_Model):
    """A turn only a person can take: the conversation stops there, waiting for them."""

    #: What the person is asked to do (shown where they are asked).
    prompt: str = ""
    #: Seconds the person has, from when the conversation first waits for them; none: no limit.
    timeout_s: float | None = Field(default=None, gt=0)
    #: Past ``timeout_s``, a resume ends the conversation there and judges it (``stop``), or makes
    #: the task an error (``fail``); an answer then comes too late.
    on_timeout: Literal["stop", "fail"] = "stop"


class ConversationPhase(_Model):
    """One phase of a conversation: scripted turns, a simulated user, or a person."""

    turns: list[ScriptedTurn | str] | None = Field(default=None, min_length=1)
    user_simulator: UserSimulator | None = None
    person: PersonTurn | None = None
    #: ``after_mismatch``: the phase runs only when the reply before it was a mismatch (a
    #: scripted turn's ``expect`` fell short; a person's turn leaves it standing); ``always`` (the
    #: default) runs it in any case.
    when: Literal["always", "after_mismatch"] = "always"

    @model_validator(mode="after")
    def _one_kind(self) -> ConversationPhase:
        if sum(kind is not None for kind in (self.turns, self.user_simulator, self.person)) != 1:
            raise PydanticCustomError(
                "conversation", "a phase has one of 'turns', 'user_simulator' or 'person'"
            )
        return self

    def scripted(self) -> list[ScriptedTurn]:
        """This phase's turns, each as a ``ScriptedTurn`` (a bare string is the user's message)."""
        return [ScriptedTurn(user=t) if isinstance(t, str) else t for t in self.turns or []]


class Conversation(_Model):
    """A multi-turn task: scripted user turns, a simulated user, or both in phases.

    ``turns`` then ``user_simulator`` are the two-phase shorthand; ``phases`` orders any number.
    """

    turns: list[ScriptedTurn | str] | None = Field(default=None, min_length=1)
    user_simulator: UserSimulator | None = None
    phases: list[ConversationPhase] | None = Field(default=None, min_length=1)
    #: The most user turns the whole conversation takes, across its phases (the opening input's
    #: included): at the cap it ends, whatever phase it is in; None: no cap but the phases' own.
    max_turns: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _some_phase(self) -> Conversation:
        shorthand = self.turns is not None or self.user_simulator is not None
        if self.phases is not None and shorthand:
            raise PydanticCustomError(
                "conversation", "give 'phases', or 'turns' and 'user_simulator', not both"
            )
        if self.phases is None and not shorthand:
            raise PydanticCustomError(
                "conversation", "a conversation needs 'turns', 'user_simulator' or 'phases'"
            )
        return self

    def ordered(self) -> list[ConversationPhase]:
        """The phases in the order they run."""
        if self.phases is not None:
            return self.phases
        found = [ConversationPhase(turns=self.turns)] if self.turns is not None else []
        if self.user_simulator is not None:
            found.append(ConversationPhase(user_simulator=self.user_simulator))
        return found

    def scripted_turns(self) -> list[ScriptedTurn]:
        """Every scripted turn, in order (their position numbers per-turn checks: ``turn 1``...)."""
        return [turn for phase in self.ordered() for turn in phase.scripted()]

    def simulators(self) -> list[UserSimulator]:
        """Every simulated user of the conversation, in order."""
        return [p.user_simulator for p in self.ordered() if p.user_simulator is not None]


class Task(_Model):
    """One task of a suite, as the target and the evaluators see it.

    ``prompt`` is the rendered prompt text (``vars`` substituted); ``messages`` is set when the
    task's input is a chat conversation. ``response`` is a recorded response: no target is called.
    """

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
    #: The group whose rows an evaluator with ``groups`` decides together (``group:``; a task's
    #: runs on the suite's prompts and targets share their task's id as their group).
    group: str | None = None
    #: Which repeat of the task this is; model calls use it in their cache key, so K repeats
    #: are K independent answers (0 until the suite repeats tasks).
    repeat: int = 0
    #: A repository bench copies into a fresh workspace for this task (the agent runs there).
    repo: RepoSpec | None = None
    #: What to capture from the workspace after the target ran (``file:PATH`` evidence reads it).
    post_execution_checks: list[CaptureCheck] = Field(default_factory=list)
    #: Cap on all captured bytes of one run of the task.
    max_capture_bytes: int = 10 * MIB
    #: A command run after the task is decided, before its workspace is removed.
    after_task: AfterTask | None = None
    #: Tools offered to the model besides the target's own (``litellm``), in either spec form.
    tools: list[dict[str, Any]] = Field(default_factory=list)
    #: Mocked tools answering this task's tool calls, before the target's own (``litellm``).
    tool_mocks: list[ToolMock] = Field(default_factory=list)
    #: The most model turns of this task's mocked tool loop (default: the target's ``max_steps``).
    max_steps: int | None = None
    #: A multi-turn task: the target answers each user turn with the whole history as input.
    conversation: Conversation | None = None

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
