"""Model-graded checks through the run's LLM client, with promptfoo's own grading prompts and
parsing (``src/matchers/llmGrading.ts``, ``rubric.ts``, ``similarity.ts``; prompts in ``prompts.py``)."""

from __future__ import annotations

import json
import re
from typing import Any

from bench import EvaluatorError
from bench.llm import LLMRequest
from bench_formats.promptfoo.checks.base import Call, Grade
from bench_formats.promptfoo.checks.conversation_relevance import conversation_relevance
from bench_formats.promptfoo.checks.geval import CHECKS as _GEVAL
from bench_formats.promptfoo.checks.grader import grader
from bench_formats.promptfoo.checks.json_checks import extract_json
from bench_formats.promptfoo.checks.moderation import moderation
from bench_formats.promptfoo.checks.prompts import CLOSEDQA_SYSTEM, FACTUALITY_SYSTEM, RUBRIC_SYSTEM
from bench_formats.promptfoo.checks.rag import CHECKS as _RAG
from bench_formats.promptfoo.checks.search_rubric import search_rubric
from bench_formats.promptfoo.checks.similarity import METRICS, similar

#: Types promptfoo grades with a model that bench does not grade yet: an error names them.
NOT_YET: tuple[str, ...] = ()

__all__ = ["GRADED", "NOT_YET", "grader"]


def _as_template_value(output: str) -> str:
    """promptfoo's ``tryParse(output)`` rendered into the prompt: JSON output shows compact."""
    try:
        value = json.loads(output)
    except ValueError:
        return output
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return output if not isinstance(value, str) else value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


async def _ask(call: Call, options: dict[str, Any], messages: list[dict[str, str]], kind: str) -> str:
    if call.sample.llm is None:
        raise EvaluatorError(f"promptfoo {kind}: no LLM client in this run")
    if options.get("rubricPrompt"):
        # A custom grading prompt asks something else: grading with promptfoo's default would not
        # be the same check, so there is no verdict rather than a different one.
        raise EvaluatorError(f"promptfoo {kind}: options.rubricPrompt is not supported by bench yet")
    request = LLMRequest(model=grader(call.assertion, options), messages=messages, purpose="judge")
    result = await call.sample.llm.complete(request)
    if not result.text:
        raise EvaluatorError(f"promptfoo {kind}: the grader returned no output")
    return result.text


async def llm_rubric(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    rubric = _text(call.value if call.value is not None else "")
    shown = _as_template_value(call.output)
    messages = [
        {"role": "system", "content": RUBRIC_SYSTEM},
        {"role": "user", "content": f"<Output>\n{shown}\n</Output>\n<Rubric>\n{rubric}\n</Rubric>"},
    ]
    reply = await _ask(call, options, messages, "llm-rubric")
    objects = [o for o in extract_json(reply) if isinstance(o, dict)]
    if not objects:
        return Grade(False, 0.0, "Could not extract JSON from llm-rubric response")
    parsed = objects[0]
    passed = parsed.get("pass", True)
    if not isinstance(passed, bool):
        passed = re.fullmatch(r"true|yes|pass|y", str(passed), re.IGNORECASE) is not None
    raw = parsed.get("score")
    try:
        score = float(raw) if raw is not None and not isinstance(raw, bool) else float(passed)
    except (TypeError, ValueError):
        score = float(passed)
    threshold = call.assertion.get("threshold")
    if isinstance(threshold, (int, float)):
        passed = passed and score >= threshold
    reason = parsed.get("reason") or (
        "Grading passed" if passed else f"Score {score:g} below threshold {threshold}"
    )
    return _invert(call, Grade(passed, float(score), str(reason)))


async def factuality(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    prompt = FACTUALITY_SYSTEM.format(
        input=call.sample.task.text, ideal=_text(call.value), completion=call.output
    )
    reply = await _ask(call, options, [{"role": "system", "content": prompt}], "factuality")
    option, reason = None, reply
    objects = [o for o in extract_json(reply) if isinstance(o, dict)]
    if objects and isinstance(objects[0].get("category"), str):
        option = objects[0]["category"].strip().upper()
        reason = str(objects[0].get("reason") or f"Category {option}")
        if not re.fullmatch(r"[A-E]", option):
            return Grade(False, 0.0, f"Invalid category value: {option}")
    else:
        match = re.search(r"\s*\(?([a-eA-E])\)", reply)
        if match is None:
            return Grade(False, 0.0, f"Factuality checker output did not match expected format: {reply}")
        option = match.group(1).upper()
        rest = re.search(r"\)\s*(.*)", reply, re.DOTALL)
        reason = rest.group(1).strip() if rest and rest.group(1) else reply
    scores = {"A": 1.0, "B": 1.0, "C": 1.0, "D": 0.0, "E": 1.0}
    scores.update({k: float(v) for k, v in _factuality_weights(options).items()})
    return _invert(call, Grade(scores[option] > 0, scores[option], reason))


def _factuality_weights(options: dict[str, Any]) -> dict[str, Any]:
    names = {"subset": "A", "superset": "B", "agree": "C", "disagree": "D", "differButFactual": "E"}
    configured = options.get("factuality") or {}
    return {names[k]: v for k, v in configured.items() if k in names}


async def closedqa(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    prompt = CLOSEDQA_SYSTEM.format(
        input=call.sample.task.text, completion=call.output, criteria=_text(call.value)
    )
    reply = await _ask(call, options, [{"role": "system", "content": prompt}], "model-graded-closedqa")
    end = reply.rstrip()
    passed = end.endswith("Y")
    if passed:
        reason = f"The submission meets the criterion:\n{reply}"
    elif end.endswith("N"):
        reason = f"The submission does not meet the criterion:\n{reply}"
    else:
        reason = f"Model grader produced a malformed response:\n{reply}"
    return _invert(call, Grade(passed, float(passed), reason))


def _invert(call: Call, grade: Grade) -> Grade:
    if not call.inverse:
        return grade
    return Grade(not grade.passed, 1.0 - grade.score, grade.reason)


GRADED = {
    "llm-rubric": llm_rubric,
    "factuality": factuality,
    "model-graded-factuality": factuality,
    "model-graded-closedqa": closedqa,
    **dict.fromkeys(METRICS, similar),
    "moderation": moderation,
    "search-rubric": search_rubric,
    "conversation-relevance": conversation_relevance,
    **_GEVAL,
    **_RAG,
}
