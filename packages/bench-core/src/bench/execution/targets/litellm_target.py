"""The ``litellm`` target: a model behind any provider litellm supports."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from bench.llm.request import LLMRequest
from bench.target import Target, TargetConfig
from bench.vocabulary.errors import ModelCallError, TargetError
from bench.vocabulary.models import Message, Response, Task, ToolMock

#: How many model turns a mocked tool loop takes at most, unless the target or task says.
DEFAULT_MAX_STEPS = 10


class LiteLLMConfig(TargetConfig):
    """Settings of the litellm target."""

    model: str
    """litellm model name, with its provider prefix (``openai/gpt-4o-mini``)."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server (a local model, a proxy, bench's fake server)."""
    api_key_env: str | None = None
    """Environment variable holding the API key (default: litellm's own, e.g. OPENAI_API_KEY)."""
    system: str | None = None
    """A system message put before each task's messages."""
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    seed: int | None = None
    stop: list[str] | None = None
    tools: list[dict[str, Any]] | None = None
    """Tools offered to the model: OpenAI function specs, or ``{name, description, input_schema}``
    (or ``parameters``); the model's tool calls are recorded on the response."""
    tool_mocks: list[ToolMock] = Field(default_factory=list)
    """Canned answers to the tool calls (after a task's own ``tool_mocks``); with any mock, the
    model is asked again with the answers until it replies without a tool call."""
    max_steps: int = Field(default=DEFAULT_MAX_STEPS, gt=0)
    """The most model turns of a mocked tool loop; the task is an error when it is reached."""
    tool_choice: str | dict[str, Any] | None = None
    response_format: dict[str, Any] | None = None
    stream: bool = False
    """Stream answers, which records time to first token (``usage.ttft_ms``)."""

    @field_validator("tools")
    @classmethod
    def _function_specs(cls, tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        return None if tools is None else [_function_spec(tool) for tool in tools]

    @model_validator(mode="after")
    def _mocks_need_tools(self) -> LiteLLMConfig:
        if self.tool_mocks and not self.tools:
            raise ValueError("tool_mocks need tools: list the tools the model is offered under 'tools'")
        return self


def _function_spec(tool: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI function tool from either form (an OpenAI spec stays as it is)."""
    if "type" in tool or "function" in tool:
        return tool
    if not isinstance(tool.get("name"), str) or not tool["name"].strip():
        raise ValueError("a tool needs a 'name' (or an OpenAI spec: {type: function, function: {...}})")
    unknown = sorted(set(tool) - {"name", "description", "input_schema", "parameters"})
    if unknown:
        raise ValueError(f"unknown tool field(s) {', '.join(unknown)} in tool {tool['name']!r}")
    function: dict[str, Any] = {"name": tool["name"].strip()}
    if tool.get("description"):
        function["description"] = tool["description"]
    function["parameters"] = tool.get("input_schema") or tool.get("parameters") or {"type": "object"}
    return {"type": "function", "function": function}


class LiteLLMTarget(Target[LiteLLMConfig]):
    """Sends each task's messages to a model and records the completion, tool calls and usage."""

    name = "litellm"
    Config = LiteLLMConfig

    def llm_calls(self) -> list[tuple[str, int]]:
        return [(self.config.model, 1)]

    async def respond(self, task: Task) -> Response:
        config = self.config
        if self.llm is None:
            raise TargetError("no LLM client for this run")
        messages = task.chat()
        if config.system:
            messages = [{"role": "system", "content": config.system}, *messages]
        params = config.model_dump(
            include={
                "temperature",
                "top_p",
                "max_tokens",
                "seed",
                "stop",
                "tools",
                "tool_choice",
                "response_format",
            },
            exclude_none=True,
        )
        if task.tools:
            try:
                offered = [*(params.get("tools") or []), *(_function_spec(t) for t in task.tools)]
            except ValueError as exc:
                raise TargetError(f"the task's tools: {exc}") from None
            params["tools"] = offered
        request = LLMRequest(
            model=config.model,
            messages=messages,
            params=params,
            api_base=config.api_base,
            api_key_env=config.api_key_env,
            stream=config.stream,
            index=task.repeat,
        )
        mocks = [*task.tool_mocks, *config.tool_mocks]
        if mocks:
            return await self._mocked(request, task, mocks)
        try:
            result = await self.llm.complete(request)
        except ModelCallError as exc:
            if exc.partial is None:
                raise TargetError(str(exc)) from None
            # An error still, but what the cut stream delivered is kept, flagged incomplete (C11).
            return Response(
                output=exc.partial,
                error=str(exc),
                truncated=True,
                truncation="the stream ended without a finish_reason",
                metadata={"model": config.model, "attempts": exc.attempts},
            )
        return Response(
            output=result.text,
            tool_calls=result.tool_calls,
            messages=[Message.model_validate(m) for m in messages]
            + [Message.model_validate(result.raw_message)],
            usage=result.usage,
            truncated=result.truncation is not None,
            truncation=result.truncation,
            metadata={
                "model": config.model,
                "attempts": result.attempts,
                "cached": result.cached,
                **_finish(result.finish_reason),
            },
        )

    async def _mocked(self, request: LLMRequest, task: Task, mocks: list[ToolMock]) -> Response:
        """The tool loop with mocked tools: every call answered, until a reply without one."""
        from bench.llm.mock_tools import MockToolbox
        from bench.llm.tool_calling import tool_loop

        config = self.config
        assert self.llm is not None
        if not request.params.get("tools"):
            raise TargetError("the task has tool_mocks but the target offers no tools (its 'tools:')")
        steps = task.max_steps or config.max_steps

        def failed(turn: int, exc: ModelCallError) -> Exception:
            return TargetError(f"turn {turn}: {exc}")

        done = await tool_loop(self.llm, request, MockToolbox(mocks), max_turns=steps, on_error=failed)
        messages = [Message.model_validate(m) for m in done.messages]
        metadata = {"model": config.model, "steps": sum(1 for m in messages if m.role == "assistant")}
        if done.final is None:
            # AI Eval's rule too: the answer is the last turn's text, and the task an error.
            last = next(m for m in reversed(messages) if m.role == "assistant")
            return Response(
                output=last.content if isinstance(last.content, str) else "",
                error=f"max steps ({steps}) reached: the model still called tools",
                tool_calls=done.calls,
                messages=messages,
                usage=done.usage,
                metadata=metadata,
            )
        return Response(
            output=done.final.text,
            tool_calls=done.calls,
            messages=messages,
            usage=done.usage,
            truncated=done.final.truncation is not None,
            truncation=done.final.truncation,
            metadata={**metadata, **_finish(done.final.finish_reason)},
        )


def _finish(reason: str | None) -> dict[str, str]:
    """``finish_reason`` for a response's metadata: why the model stopped (``stop``, ``length``,
    ``tool_calls``, ``content_filter``), as the provider said; nothing when it said nothing."""
    return {"finish_reason": reason} if reason else {}
