"""The ``agent`` target: a plain model made into a tool-calling agent working in the task's workspace.

Each step sends the conversation to the model through bench's LLM client (retries, limits,
cache, cost) with the workspace tools (``bench.workspace.tools``); the tool calls it makes are
run and their results appended, until the model answers without a tool call or ``max_steps``
is reached. The response holds the final answer, every message (the trajectory), every tool
call and the summed token usage and cost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field

from bench import Response, SuiteContext, Target, TargetConfig, TargetError, Task
from bench.llm import LLMRequest, Message, tool_loop
from bench.workspace import Sandbox, Workbench, open_sandbox, scratch_folder, specs

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
    sandbox: dict[str, Any] | None = None
    """Where ``run_command`` runs: ``{type: container, image: ..., network: none}`` (docs/agents.md);
    none: bench's own sandbox on the host. The file tools read and write the workspace on the host."""


class AgentTarget(Target[AgentConfig]):
    """Runs a model as a tool-calling agent in the task's workspace (or a scratch folder)."""

    name = "agent"
    Config = AgentConfig

    def __init__(self, config: AgentConfig, suite: SuiteContext) -> None:
        super().__init__(config, suite)
        self.container: Sandbox | None = None
        if config.sandbox is not None:
            field = ("target", "sandbox")
            self.container = open_sandbox(config.sandbox, file=suite.path, field=field)

    def llm_calls(self) -> list[tuple[str, int]]:
        return [(self.config.model, self.config.max_steps)]

    async def respond(self, task: Task) -> Response:
        if task.workspace is not None:
            return await self._loop(task, Path(task.workspace))
        with scratch_folder("bench-agent-") as scratch:
            return await self._loop(task, scratch)

    async def _loop(self, task: Task, root: Path) -> Response:
        config = self.config
        if self.llm is None:
            raise TargetError("no LLM client for this run")
        bench = Workbench(
            root,
            allowed=tuple(config.tools),
            command_timeout=config.command_timeout,
            container=self.container,
        )
        messages: list[dict[str, Any]] = [{"role": "system", "content": config.system}, *task.chat()]
        params = config.model_dump(include={"temperature", "max_tokens", "seed"}, exclude_none=True)
        params["tools"] = specs(config.tools)
        request = LLMRequest(
            model=config.model,
            messages=messages,
            params=params,
            api_base=config.api_base,
            api_key_env=config.api_key_env,
            index=task.repeat,
        )
        done = await tool_loop(
            self.llm,
            request,
            bench,
            max_turns=config.max_steps,
            on_error=lambda step, exc: TargetError(f"step {step}: {exc}"),
        )
        messages = done.messages
        answer = done.final.text if done.final is not None else None
        truncation = done.final.truncation if done.final is not None else None
        metadata: dict[str, Any] = {
            "model": config.model,
            "steps": sum(m["role"] == "assistant" for m in messages),
        }
        if answer is None:
            metadata["stopped"] = f"max_steps ({config.max_steps}) reached"
        return Response(
            output=answer if answer is not None else f"(stopped: max_steps {config.max_steps} reached)",
            tool_calls=done.calls,
            messages=[Message.model_validate(m) for m in messages],
            usage=done.usage,
            truncated=truncation is not None,
            truncation=truncation,
            metadata=metadata,
        )
