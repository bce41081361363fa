"""bench's one LLM client, and the public API for plugins that call models (docs/plugins.md).

Every model call of every target and evaluator goes through ``LLMClient`` (``bench.llm.client``):
it calls litellm's async API (imported on first use) and owns everything around the call: the
response cache, retries with backoff that honour ``Retry-After``, per-provider adaptive
concurrency and rate limits, a circuit breaker, token and cost accounting, budgets and secret
redaction. The suite settings live in ``bench.llm.settings``.

Plugins import from this package: the client and its requests, what a conversation is made of
(``Message``, ``ToolCall``, ``Usage``...), the judge base (``Judge``, ``JudgeConfig``, ``Vote``),
structured verdicts (``ask_verdict``, ``delimit``) and the tool loop (``tool_loop``). Names load
on first use: this package imports nothing itself, so reading settings stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.vocabulary import lazy_exports

if TYPE_CHECKING:
    from bench.llm.client import LLMClient as LLMClient
    from bench.llm.judge import Judge as Judge
    from bench.llm.judge import JudgeConfig as JudgeConfig
    from bench.llm.judge import TemplateJudgeConfig as TemplateJudgeConfig
    from bench.llm.judge import Vote as Vote
    from bench.llm.judge import framed as framed
    from bench.llm.providers.offline import SKIPPED as SKIPPED
    from bench.llm.providers.offline import offline_skip as offline_skip
    from bench.llm.request import LLMRequest as LLMRequest
    from bench.llm.request import LLMResult as LLMResult
    from bench.llm.tool_calling import ToolLoopOutcome as ToolLoopOutcome
    from bench.llm.tool_calling import tool_loop as tool_loop
    from bench.llm.verdict import ask_verdict as ask_verdict
    from bench.llm.verdict import data_rule as data_rule
    from bench.llm.verdict import delimit as delimit
    from bench.vocabulary.errors import ModelCallError as ModelCallError
    from bench.vocabulary.errors import RunStopped as RunStopped
    from bench.vocabulary.models import Message as Message
    from bench.vocabulary.models import ToolCall as ToolCall
    from bench.vocabulary.models import ToolMock as ToolMock
    from bench.vocabulary.models import Usage as Usage
    from bench.vocabulary.tool_calls import decode_arguments as decode_arguments
    from bench.vocabulary.tool_calls import parse_tool_call as parse_tool_call

#: name -> the module that defines it
_EXPORTS = {
    "LLMClient": "bench.llm.client",
    "LLMRequest": "bench.llm.request",
    "LLMResult": "bench.llm.request",
    "Message": "bench.vocabulary.models",
    "ToolCall": "bench.vocabulary.models",
    "ToolMock": "bench.vocabulary.models",
    "Usage": "bench.vocabulary.models",
    "ModelCallError": "bench.vocabulary.errors",
    "RunStopped": "bench.vocabulary.errors",
    "Judge": "bench.llm.judge",
    "JudgeConfig": "bench.llm.judge",
    "TemplateJudgeConfig": "bench.llm.judge",
    "Vote": "bench.llm.judge",
    "framed": "bench.llm.judge",
    "ask_verdict": "bench.llm.verdict",
    "data_rule": "bench.llm.verdict",
    "delimit": "bench.llm.verdict",
    "tool_loop": "bench.llm.tool_calling",
    "ToolLoopOutcome": "bench.llm.tool_calling",
    "parse_tool_call": "bench.vocabulary.tool_calls",
    "decode_arguments": "bench.vocabulary.tool_calls",
    "offline_skip": "bench.llm.providers.offline",
    "SKIPPED": "bench.llm.providers.offline",
}

__all__ = [*_EXPORTS]


__getattr__ = lazy_exports("bench.llm", _EXPORTS)
