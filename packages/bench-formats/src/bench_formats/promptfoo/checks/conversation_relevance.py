"""promptfoo's ``conversation-relevance`` (``src/external/assertions/deepeval.ts`` and
``matchers/deepeval.ts``): the grader says, window by window, whether the last answer is relevant."""

from __future__ import annotations

import json
import sys
from typing import Any

from bench import EvaluatorError
from bench.llm import LLMRequest
from bench_formats.promptfoo.checks.base import Call, Grade, js_string
from bench_formats.promptfoo.checks.grader import grader
from bench_formats.promptfoo.checks.json_checks import extract_json
from bench_formats.promptfoo.checks.prompts_more import CONVERSATION_REASON, CONVERSATION_VERDICTS, fill

DEFAULT_WINDOW = 5
DEFAULT_THRESHOLD = 0.5
NOT_RELEVANT = "Response is not relevant to the conversation context"
_EPSILON = sys.float_info.epsilon


async def conversation_relevance(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    """The share of windows whose last answer the grader finds relevant, ≥ ``threshold`` (0.5)."""
    if options.get("rubricPrompt"):
        raise EvaluatorError(
            "promptfoo conversation-relevance: options.rubricPrompt is not supported by bench yet"
        )
    conversation = vars_.get("_conversation")
    if isinstance(conversation, list) and conversation:
        messages = conversation
    else:
        messages = [{"input": call.sample.task.text, "output": call.output}]
    config = call.assertion.get("config") or {}
    window = (config.get("windowSize") if isinstance(config, dict) else None) or DEFAULT_WINDOW
    threshold = call.assertion.get("threshold")
    threshold = DEFAULT_THRESHOLD if threshold is None else threshold
    relevant = total = 0
    irrelevancies: list[str] = []
    for i in range(len(messages)):
        verdict = await _window(call, options, messages[max(0, i - window + 1) : i + 1])
        if isinstance(verdict, Grade):  # the grader failed: promptfoo returns its failure as it is
            return verdict
        passed, reason = verdict
        if passed:
            relevant += 1
        elif reason and reason != NOT_RELEVANT:
            irrelevancies.append(reason)
        total += 1
    score = relevant / total if total else 0.0
    passed = (score >= threshold - _EPSILON) != call.inverse
    summary = f"{relevant} out of {total} conversation windows were relevant"
    if irrelevancies and score < 1:
        summary = await _reason(call, options, score, irrelevancies) or summary
    return Grade(passed, 1 - score if call.inverse else score, summary)


async def _ask(call: Call, options: dict[str, Any], prompt: str) -> str:
    if call.sample.llm is None:
        raise EvaluatorError("promptfoo conversation-relevance: no LLM client in this run")
    request = LLMRequest(
        model=grader(call.assertion, options), messages=[{"role": "user", "content": prompt}], purpose="judge"
    )
    return (await call.sample.llm.complete(request)).text or ""


async def _window(call: Call, options: dict[str, Any], window: list[Any]) -> tuple[bool, str] | Grade:
    """One window's verdict (relevant, reason), or the grader's failure as the check's grade."""
    roles: list[dict[str, str]] = []
    for message in window:
        item = message if isinstance(message, dict) else {}
        for role, key in (("user", "input"), ("assistant", "output")):
            value = item.get(key)
            # JSON.stringify(undefined) leaves the key out of the message
            content = value if isinstance(value, str) else None if key not in item else _stringify(value)
            roles.append({"role": role} if content is None else {"role": role, "content": content})
    reply = await _ask(
        call, options, fill(CONVERSATION_VERDICTS, messages=json.dumps(roles, indent=2, ensure_ascii=False))
    )
    if not reply:
        return Grade(False, 0.0, "No output")
    objects = [o for o in extract_json(reply) if isinstance(o, dict)]
    if not objects:
        return Grade(False, 0.0, "Error parsing output: No JSON object found in response")
    verdict = objects[0].get("verdict")
    if verdict not in ("yes", "no"):
        return Grade(
            False, 0.0, "Error parsing output: Conversation relevance grader returned an invalid verdict"
        )
    reason = objects[0].get("reason")
    return verdict == "yes", reason if isinstance(reason, str) and reason else NOT_RELEVANT


async def _reason(call: Call, options: dict[str, Any], score: float, irrelevancies: list[str]) -> str | None:
    """The grader's summary of why windows were irrelevant (None: promptfoo's count instead)."""
    shown = json.dumps(irrelevancies, indent=2, ensure_ascii=False)
    reply = await _ask(call, options, fill(CONVERSATION_REASON, score=js_string(score), irrelevancies=shown))
    objects = [o for o in extract_json(reply) if isinstance(o, dict)]
    reason = objects[0].get("reason") if objects else None
    return reason if isinstance(reason, str) and reason else None


def _stringify(value: Any) -> str:
    """``JSON.stringify`` of a message's non-text content."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
