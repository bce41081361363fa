"""promptfoo's ``g-eval``: the grader writes evaluation steps for each criterion, then scores the
reply 0-10 against them (``src/matchers/llmGrading.ts`` ``matchesGEval``, ``src/assertions/geval.ts``)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Grade, js_string, js_stringify
from bench_formats.promptfoo.checks.grader import Graded, ask, parsed, provider_id, render, template_value
from bench_formats.promptfoo.checks.prompts_rag import GEVAL_EVALUATE, GEVAL_STEPS

MAX_SCORE = 10


class _GraderFailure(Exception):
    """promptfoo's ``graderFail``: the grader's reply was unusable; ``not-`` does not flip it."""


def _js_json(value: Any) -> str:
    return "undefined" if value is _MISSING else js_stringify(value)


_MISSING = object()


async def _criterion(call: Call, options: dict[str, Any], criteria: str, threshold: float) -> Grade:
    source = call.sample.task.text
    if not source:
        raise AssertionInvalid("No source text to estimate reply")
    name = provider_id(call.assertion, options)
    reply = await ask(call, options, render(GEVAL_STEPS, {"criteria": criteria}), "g-eval")
    if reply is None:
        raise _GraderFailure(f"G-Eval step-generation call to {name} returned no output")
    match = re.search(r'\{"steps".+\}', reply)
    if match is None:
        raise _GraderFailure(f"LLM-proposed evaluation steps are not in JSON format: {reply}")
    try:
        steps = json.loads(match.group(0)).get("steps", _MISSING)
    except ValueError as exc:
        raise _GraderFailure(
            f"LLM-proposed evaluation steps are not in JSON format: {exc}\n\n{reply}"
        ) from None
    if not isinstance(steps, list):
        raise _GraderFailure(f"G-Eval steps response has invalid or missing steps: {_js_json(steps)}")
    if not steps:
        raise _GraderFailure("LLM does not propose any evaluation step")
    if not all(isinstance(step, str) and step.strip() for step in steps):
        raise _GraderFailure(f"G-Eval steps response contains invalid steps: {js_stringify(steps)}")
    values = {
        "criteria": criteria,
        "steps": "\n- ".join(steps),
        "maxScore": str(MAX_SCORE),
        "input": template_value(parsed(source)),
        "output": template_value(parsed(call.output)),
    }
    reply = await ask(call, options, render(GEVAL_EVALUATE, values), "g-eval")
    if reply is None:
        raise _GraderFailure(f"G-Eval evaluation call to {name} returned no output")
    match = re.search(r"\{.+\}", reply)
    if match is None:
        raise _GraderFailure(f"LLM-proposed evaluation result is not in JSON format: {reply}")
    try:
        result = json.loads(match.group(0))
    except ValueError as exc:
        raise _GraderFailure(
            f"LLM-proposed evaluation result is not in JSON format: {exc}\n\n{reply}"
        ) from None
    if not isinstance(result, dict):
        result = {}
    raw = result.get("score", _MISSING)
    score = _number(raw)
    if not math.isfinite(score):
        raise _GraderFailure(f"G-Eval result has invalid or missing score: {_js_json(raw)}")
    if score < 0 or score > MAX_SCORE:
        raise _GraderFailure(
            f"G-Eval result score {js_string(score)} is outside the expected 0-{MAX_SCORE} range"
        )
    reason = result.get("reason", _MISSING)
    if not isinstance(reason, str) or not reason.strip():
        raise _GraderFailure(f"G-Eval result has invalid or missing reason: {_js_json(reason)}")
    return Grade(score / MAX_SCORE >= threshold, score / MAX_SCORE, reason)


def _number(raw: Any) -> float:
    """``typeof score === "number" ? score : Number(score)`` for a non-blank string, else NaN."""
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, str) and raw.strip():
        try:
            return float(raw.strip())
        except ValueError:
            return math.nan
    return math.nan


async def g_eval(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    """One criterion, or the mean over a list of them; passes at ``threshold`` (default 0.7)."""
    value = call.value
    if not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
        raise AssertionInvalid("G-Eval assertion type must have a string or array of strings value")
    threshold = call.assertion.get("threshold")
    threshold = 0.7 if threshold is None else float(threshold)
    if isinstance(value, str):
        try:
            grade = await _criterion(call, options, value, threshold)
        except _GraderFailure as failure:
            return Grade(False, 0.0, str(failure))
        passed = (grade.score >= threshold) != call.inverse
        return Grade(passed, 1 - grade.score if call.inverse else grade.score, grade.reason)
    if not value:
        return Grade(
            False, 0.0, "G-Eval assertion requires at least one criterion string in the value array."
        )
    grades: list[Grade] = []
    for index, criterion in enumerate(value):
        try:
            grades.append(await _criterion(call, options, criterion, threshold))
        except _GraderFailure as failure:
            return Grade(
                False,
                0.0,
                f"G-Eval criterion {index + 1}/{len(value)} ({js_stringify(criterion)}) failed: {failure}",
            )
    average = sum(g.score for g in grades) / len(grades)
    reason = "\n\n".join(g.reason for g in grades)
    return Grade((average >= threshold) != call.inverse, 1 - average if call.inverse else average, reason)


CHECKS: dict[str, Graded] = {"g-eval": g_eval}
