"""The ``agent`` target: a plain model made into a tool-calling agent working in the task's workspace.

Each step sends the conversation to the model through bench's LLM client (retries, limits,
cache, cost) with the workspace tools (``bench.workspace.tools``); the tool calls it makes are
run and their results appended, until the model answers without a tool call or ``max_steps``
is reached. The response holds the final answer, every message (the trajectory), every tool
call and the summed token usage and cost.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field

from bench import (
    LLMRequest,
    Message,
    ModelCallError,
    Response,
    Target,
    TargetConfig,
    TargetError,
    Task,
    ToolCall,
    Usage,
    Workbench,
    specs,
)

SYSTEM = (
    "You are a software agent working in a repository. Use the tools to inspect and change files "
    "and to run commands (there is no network). Paths are relative to the repository root. When "
    "the task is done, reply with a short summary of what you did, without calling a tool."
)

ToolName = Literal["read_file", "write_file", "list_dir", "run_command"]


class AgentConfig(TargetConfig):
    """Settings of the built-in agent."""

    model: str
    """litellm model name, with its provider prefix (``openai/gpt-4o-mini``)."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server."""
    api_key_env: str | None = None
    """Environment variable holding the API key."""
    system: str = SYSTEM
    """The system message."""
    tools: list[ToolName] = Field(default_factory=lambda: list(get_args(ToolName)))
    """Which tools the model gets."""
    max_steps: int = Field(default=20, gt=0)
    """Most model turns; the run stops (and says so) when reached."""
    command_timeout: float = Field(default=60, gt=0)
    """Seconds one run_command may take."""
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    seed: int | None = None


def _add(total: Usage, part: Usage) -> Usage:
    def plus(a: float | None, b: float | None) -> float | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return Usage(
        input_tokens=plus(total.input_tokens, part.input_tokens),  # type: ignore[arg-type]
        output_tokens=plus(total.output_tokens, part.output_tokens),  # type: ignore[arg-type]
        total_tokens=plus(total.total_tokens, part.total_tokens),  # type: ignore[arg-type]
        cost_usd=plus(total.cost_usd, part.cost_usd),
        latency_ms=plus(total.latency_ms, part.latency_ms),
    )


class AgentTarget(Target):
    """Runs a model as a tool-calling agent in the task's workspace (or a scratch folder)."""

    name = "agent"
    Config = AgentConfig

    def llm_calls(self) -> list[tuple[str, int]]:
        config = self.config
        assert isinstance(config, AgentConfig)
        return [(config.model, config.max_steps)]

    async def respond(self, task: Task) -> Response:
        if task.workspace is not None:
            return await self._loop(task, Path(task.workspace))
        with tempfile.TemporaryDirectory(prefix="bench-agent-") as scratch:
            return await self._loop(task, Path(scratch))

    async def _loop(self, task: Task, root: Path) -> Response:
        config = self.config
        assert isinstance(config, AgentConfig)
        if self.llm is None:
            raise TargetError("no LLM client for this run")
        bench = Workbench(root, allowed=tuple(config.tools), command_timeout=config.command_timeout)
        messages: list[dict[str, Any]] = [{"role": "system", "content": config.system}, *task.chat()]
        params = config.model_dump(include={"temperature", "max_tokens", "seed"}, exclude_none=True)
        params["tools"] = specs(config.tools)
        usage = Usage()
        calls: list[ToolCall] = []
        answer: str | None = None
        truncation: str | None = None
        for step in range(config.max_steps):
            request = LLMRequest(
                model=config.model,
                messages=messages,
                params=params,
                api_base=config.api_base,
                api_key_env=config.api_key_env,
                index=task.repeat,
            )
            try:
                result = await self.llm.complete(request)
            except ModelCallError as exc:
                raise TargetError(f"step {step + 1}: {exc}") from None
            usage = _add(usage, result.usage)
            messages.append(result.raw_message)
            if not result.tool_calls:
                answer, truncation = result.text, result.truncation
                break
            for number, call in enumerate(result.tool_calls):
                calls.append(call)
                outcome = await bench.call(call.name, call.arguments)
                call_id = call.id or f"call_{step}_{number}"
                # A failure's text starts with "error:" or "exit code N" (what bench_agent.steps reads).
                messages.append({"role": "tool", "tool_call_id": call_id, "content": outcome.text})
        metadata: dict[str, Any] = {
            "model": config.model,
            "steps": sum(m["role"] == "assistant" for m in messages),
        }
        if answer is None:
            metadata["stopped"] = f"max_steps ({config.max_steps}) reached"
        return Response(
            output=answer if answer is not None else f"(stopped: max_steps {config.max_steps} reached)",
            tool_calls=calls,
            messages=[Message.model_validate(m) for m in messages],
            usage=usage,
            truncated=truncation is not None,
            truncation=truncation,
            metadata=metadata,
        )
