"""The tool-calling loop: ask the model, run the tool calls it makes, append the results, repeat.

Used by the ``agent`` target (bench-agent), the agentic judge (bench-llm-judge) and the
``litellm`` target's mocked tools (``bench.llm.mock_tools``). Every request goes through the
run's LLM client (retries, limits, cache, cost); the tools run in a ``Workbench`` or answer from
mocks. The loop ends when the model answers without a tool call, or when a limit on turns
(model answers) or on tool calls is reached before the next request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bench.llm.client import LLMClient
from bench.llm.request import LLMRequest, LLMResult
from bench.vocabulary.errors import ModelCallError
from bench.vocabulary.models import ToolCall, Usage
from bench.workspace.tools import ToolResult


class Toolbox(Protocol):
    """What runs the model's tool calls: a ``Workbench``, a ``MockToolbox``; never raises."""

    async def call(self, name: str, arguments: Any) -> ToolResult: ...


def add_usage(total: Usage, part: Usage) -> Usage:
    """The sum of two usages; a figure stays unknown (``None``) only when both are unknown."""

    def plus(a: float | None, b: float | None) -> float | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return Usage(
        input_tokens=plus(total.input_tokens, part.input_tokens),  # type: ignore[arg-type]
        output_tokens=plus(total.output_tokens, part.output_tokens),  # type: ignore[arg-type]
        total_tokens=plus(total.total_tokens, part.total_tokens),  # type: ignore[arg-type]
        cost_usd=plus(total.cost_usd, part.cost_usd),
        latency_ms=plus(total.latency_ms, part.latency_ms),
    )


@dataclass
class ToolLoopOutcome:
    """What a tool loop did: the whole conversation, the calls made, and how it ended."""

    messages: list[dict[str, Any]]
    calls: list[ToolCall] = field(default_factory=list)
    #: The model's answer without a tool call; ``None`` when a limit ended the loop first.
    final: LLMResult | None = None
    usage: Usage = field(default_factory=Usage)


async def tool_loop(
    llm: LLMClient,
    request: LLMRequest,
    workbench: Toolbox,
    *,
    max_turns: int | None = None,
    max_calls: int | None = None,
    id_prefix: str = "call",
    on_error: Callable[[int, ModelCallError], Exception] | None = None,
) -> ToolLoopOutcome:
    """Run ``request`` (its params name the tools) as a tool-calling conversation.

    A call without an id gets ``{id_prefix}_{turn}_{number}``. A failed model call raises
    ``on_error(turn, error)`` (turn counted from 1), or the ``ModelCallError`` itself.
    """
    outcome = ToolLoopOutcome(messages=list(request.messages))
    turn = 0
    while (max_turns is None or turn < max_turns) and (max_calls is None or len(outcome.calls) < max_calls):
        try:
            result = await llm.complete(dataclasses.replace(request, messages=outcome.messages))
        except ModelCallError as exc:
            if on_error is None:
                raise
            raise on_error(turn + 1, exc) from None
        outcome.usage = add_usage(outcome.usage, result.usage)
        outcome.messages.append(result.raw_message)
        if not result.tool_calls:
            outcome.final = result
            break
        for number, call in enumerate(result.tool_calls):
            outcome.calls.append(call)
            done = await workbench.call(call.name, call.arguments)
            call_id = call.id or f"{id_prefix}_{turn}_{number}"
            # A failure's text starts with "error:" or "exit code N" (what bench_agent.steps reads).
            outcome.messages.append({"role": "tool", "tool_call_id": call_id, "content": done.text})
        turn += 1
    return outcome


__all__ = ["ToolLoopOutcome", "Toolbox", "add_usage", "tool_loop"]
