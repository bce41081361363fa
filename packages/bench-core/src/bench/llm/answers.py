"""What a model's answer becomes: an ``LLMResult`` from a chat completion, a moderation, or an
answer the response cache replays."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

from bench.llm.accounting import Prices
from bench.llm.request import LLMResult
from bench.vocabulary.errors import ModelCallError
from bench.vocabulary.models import ToolCall, Usage
from bench.vocabulary.tool_calls import decode_arguments


def completion(model: str, response: Any, attempt: int, started: float, prices: Prices) -> LLMResult:
    """A chat completion's text, tool calls, usage and cost; an empty one is a ModelCallError."""
    latency_ms = (time.perf_counter() - started) * 1000
    choice = response.choices[0]
    message = choice.message
    calls = []
    for call in getattr(message, "tool_calls", None) or []:
        arguments = decode_arguments(call.function.arguments)  # text that is not JSON stays (C20)
        calls.append(ToolCall(name=call.function.name, arguments=arguments, id=getattr(call, "id", None)))
    text = message.content
    finish = getattr(choice, "finish_reason", None)
    if not text and not calls:
        raise ModelCallError(f"empty completion from {model} (finish_reason={finish})", model=model)
    usage_in = getattr(response, "usage", None)
    input_tokens = getattr(usage_in, "prompt_tokens", None)
    output_tokens = getattr(usage_in, "completion_tokens", None)
    usage = Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=(input_tokens or 0) + (output_tokens or 0) if usage_in else None,
        cost_usd=prices.cost(model, input_tokens, output_tokens),
        latency_ms=round(latency_ms, 3),
    )
    raw_message = {"role": "assistant", "content": text}
    if calls:
        raw_message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": json.dumps(c.arguments) if not isinstance(c.arguments, str) else c.arguments,
                },
            }
            for c in calls
        ]
    return LLMResult(model, text, calls, finish, usage, attempts=attempt, raw_message=raw_message)


def moderation(model: str, response: Any, attempt: int, started: float) -> LLMResult:
    """A moderation's verdict as the text ``{flagged, scores, categories}`` (each category's flag)."""
    results = getattr(response, "results", None) or []
    if not results:
        raise ModelCallError(f"empty moderation result from {model}", model=model)
    first = results[0]
    raw_scores = getattr(first, "category_scores", None) or {}
    if hasattr(raw_scores, "model_dump"):
        raw_scores = raw_scores.model_dump(by_alias=True)
    scores = {str(k): float(v) for k, v in dict(raw_scores).items() if isinstance(v, (int, float))}
    raw_flags = getattr(first, "categories", None) or {}
    if hasattr(raw_flags, "model_dump"):
        raw_flags = raw_flags.model_dump(by_alias=True)
    flags = {str(k): v for k, v in dict(raw_flags).items() if isinstance(v, bool)}
    text = json.dumps(
        {"flagged": bool(getattr(first, "flagged", False)), "scores": scores, "categories": flags}
    )
    usage = Usage(latency_ms=round((time.perf_counter() - started) * 1000, 3), cost_usd=0.0)
    return LLMResult(model, text, [], "stop", usage, attempts=attempt)


def replayed(model: str, hit: dict[str, Any]) -> LLMResult:
    """A cached answer: nothing spent, no attempt made."""
    zero = {"cost_usd": 0.0, "latency_ms": 0.0, "attempts": 0, "wait_ms": 0.0}
    usage = Usage.model_validate({**hit.get("usage", {}), **zero})
    calls = [ToolCall.model_validate(c) for c in hit.get("tool_calls", [])]
    return LLMResult(
        model,
        hit.get("text"),
        calls,
        hit.get("finish_reason"),
        usage,
        attempts=0,
        cached=True,
        raw_message=hit.get("raw_message", {}),
    )


def adopted(result: LLMResult, stored: dict[str, Any]) -> LLMResult:
    """``result`` answering with the stored text and tool calls; its usage stays what was spent."""
    answer = replayed(result.model, stored)
    return replace(
        result,
        text=answer.text,
        tool_calls=answer.tool_calls,
        finish_reason=answer.finish_reason,
        raw_message=answer.raw_message,
    )
