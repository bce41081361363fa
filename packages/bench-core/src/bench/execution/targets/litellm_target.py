"""The ``litellm`` target: a model behind any provider litellm supports."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from bench.errors import ModelCallError, TargetError
from bench.llm.request import LLMRequest
from bench.models import Message, Response, Task
from bench.target import Target, TargetConfig


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
    """OpenAI-style tool specs; the model's tool calls are recorded on the response."""
    tool_choice: str | dict[str, Any] | None = None
    response_format: dict[str, Any] | None = None
    stream: bool = False
    """Stream answers, which records time to first token (``usage.ttft_ms``)."""


class LiteLLMTarget(Target):
    """Sends each task's messages to a model and records the completion, tool calls and usage."""

    name = "litellm"
    Config = LiteLLMConfig

    def llm_calls(self) -> list[tuple[str, int]]:
        config = self.config
        assert isinstance(config, LiteLLMConfig)
        return [(config.model, 1)]

    async def respond(self, task: Task) -> Response:
        config = self.config
        assert isinstance(config, LiteLLMConfig)
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
        request = LLMRequest(
            model=config.model,
            messages=messages,
            params=params,
            api_base=config.api_base,
            api_key_env=config.api_key_env,
            stream=config.stream,
            index=task.repeat,
        )
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
            metadata={"model": config.model, "attempts": result.attempts, "cached": result.cached},
        )
