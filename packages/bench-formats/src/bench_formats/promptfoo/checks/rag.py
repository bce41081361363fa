"""promptfoo's RAG checks (RAGAS metrics): ``answer-relevance``, ``context-faithfulness``,
``context-recall``, ``context-relevance`` (``src/matchers/rag.ts``, ``src/assertions/context*.ts``).

promptfoo ignores ``not-`` on these four (their handlers never read it): so does bench.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

from bench import EvaluatorError
from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Grade, js_string
from bench_formats.promptfoo.checks.grader import (
    Graded,
    ask,
    grader,
    parsed,
    render,
    template_value,
    to_fixed,
)
from bench_formats.promptfoo.checks.prompts_rag import (
    ANSWER_RELEVANCY_GENERATE,
    CONTEXT_FAITHFULNESS_LONGFORM,
    CONTEXT_FAITHFULNESS_NLI_STATEMENTS,
    CONTEXT_RECALL,
    CONTEXT_RELEVANCE,
)
from bench_formats.promptfoo.checks.rag_context import context_of, serialize

EPSILON = sys.float_info.epsilon  # JavaScript's Number.EPSILON
NO_OUTPUT = Grade(False, 0.0, "No output")


def _threshold(call: Call) -> tuple[float, str]:
    threshold = call.assertion.get("threshold")
    return (0.0, "0") if threshold is None else (float(threshold), js_string(threshold))


def _lines(text: str) -> list[str]:
    """promptfoo's ``splitIntoSentences``: the non-blank lines, untrimmed."""
    return [line for line in text.split("\n") if line.strip()]


def _sentences(text: str) -> list[str]:
    """promptfoo's ``splitTextIntoSentences``: lines when there are several, else sentences."""
    lines = _lines(text)
    units = lines if len(lines) > 1 else re.split(r"(?<=[.!?])\s+", text)
    return [u.strip() for u in units if u.strip() and not re.fullmatch(r"\d+[.)]", u.strip())]


def _cosine(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        raise EvaluatorError("Vectors must be of equal length")
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


async def answer_relevance(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    """Three questions the grader writes for the answer, each compared with the question asked
    by embedding cosine; the mean passes at ``threshold`` (default 0)."""
    prompt = call.sample.task.text
    if not prompt:
        raise AssertionInvalid("answer-relevance assertion type must have a prompt")
    query = vars_.get("query")
    question = query if isinstance(query, str) else prompt
    text = render(ANSWER_RELEVANCY_GENERATE, {"answer": template_value(parsed(call.output))})
    candidates: list[str] = []
    for index in range(3):  # three samples: each its own cache entry
        reply = await ask(call, options, text, "answer-relevance", index=index)
        if reply is None:
            return NO_OUTPUT
        candidates.append(reply)
    assert call.sample.llm is not None  # ask() has checked
    vectors = await call.sample.llm.embed(
        grader(call.assertion, options, "embedding"), [question, *candidates]
    )
    similarity = sum(_cosine(vectors[0], v) for v in vectors[1:]) / len(candidates)
    threshold, shown = _threshold(call)
    if similarity >= threshold - EPSILON:
        return Grade(True, similarity, f"Relevance {to_fixed(similarity)} is greater than threshold {shown}")
    return Grade(False, similarity, f"Relevance {to_fixed(similarity)} is less than threshold {shown}")


def _verdict(call: Call, score: float, label: str) -> Grade:
    threshold, shown = _threshold(call)
    passed = score >= threshold - EPSILON
    return Grade(passed, score, f"{label} {to_fixed(score)} is {'>=' if passed else '<'} {shown}")


def _query(vars_: dict[str, Any], kind: str) -> str:
    query = vars_.get("query")
    if not isinstance(query, str):
        raise AssertionInvalid(f'{kind} assertion requires a "query" variable with the user question')
    return query


async def context_faithfulness(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    """The answer split into statements by the grader, each judged against the context (NLI);
    the share supported passes at ``threshold`` (default 0)."""
    query = _query(vars_, "context-faithfulness")
    context = context_of(call, vars_, fallback=None)
    values = {"question": template_value(query), "answer": template_value(parsed(call.output))}
    reply = await ask(call, options, render(CONTEXT_FAITHFULNESS_LONGFORM, values), "context-faithfulness")
    if reply is None:
        return NO_OUTPUT
    statements = _lines(reply)
    values = {"context": serialize(context), "statements": "\n".join(statements)}
    reply = await ask(
        call, options, render(CONTEXT_FAITHFULNESS_NLI_STATEMENTS, values), "context-faithfulness"
    )
    if reply is None:
        return NO_OUTPUT
    return _verdict(call, _faithfulness(reply, len(statements)), "Faithfulness")


def _faithfulness(reply: str, statements: int) -> float:
    final = "final verdict for each statement in order:"
    verdicts = reply.lower().strip()
    score = 0.0
    if statements > 0:
        if final in verdicts:
            verdicts = verdicts[verdicts.index(final) + len(final) :]
            answers = [a for a in verdicts.split(".") if a.strip()]
            if answers:
                unsupported = sum(1 for a in answers if "yes" not in a)
                score = 1 - (unsupported + max(0, statements - len(answers))) / statements
        else:
            no, yes = verdicts.count("verdict: no"), verdicts.count("verdict: yes")
            if no + yes > 0:
                score = 1 - (no + max(0, statements - no - yes)) / statements
    return min(1.0, max(0.0, score))


async def context_recall(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    """Each sentence of the expected answer (``value``) classified as attributable to the context
    or not; the share attributed passes at ``threshold`` (default 0)."""
    if not isinstance(call.value, str):
        raise AssertionInvalid(
            "context-recall assertion requires a string value (expected answer or fact to verify)"
        )
    prompt = call.sample.task.text
    if not prompt:
        raise AssertionInvalid("context-recall assertion requires a prompt")
    context = context_of(call, vars_, fallback=prompt)
    values = {"context": serialize(context), "groundTruth": call.value}
    reply = await ask(call, options, render(CONTEXT_RECALL, values), "context-recall")
    if reply is None:
        return NO_OUTPUT
    attributed, not_attributed = "[attributed]", "[not attributed]"
    lines = [line.lower() for line in _lines(reply)]
    lines = [line for line in lines if attributed in line or not_attributed in line]
    hits = sum(1 for line in lines if not_attributed not in line and attributed in line)
    return _verdict(call, hits / len(lines) if lines else 0.0, "Recall")


async def context_relevance(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    """The context's sentences the grader extracts as needed for the query, over the context's
    sentences (or chunks); passes at ``threshold`` (default 0)."""
    query = _query(vars_, "context-relevance")
    context = context_of(call, vars_, fallback=None)
    values = {"context": serialize(context), "query": query}
    reply = await ask(call, options, render(CONTEXT_RELEVANCE, values), "context-relevance")
    if reply is None:
        return NO_OUTPUT
    if isinstance(context, list):
        units, segmented = [c for c in context if c.strip()], True
    else:
        units, segmented = _sentences(context), len(_lines(context)) > 1
    if "Insufficient Information" in reply:
        relevant: list[str] = []
    else:
        relevant = list(dict.fromkeys(_lines(reply) if segmented else _sentences(reply)))
    score = min(len(relevant), len(units)) / len(units) if units else 0.0
    return _verdict(call, score, "Context relevance")


CHECKS: dict[str, Graded] = {
    "answer-relevance": answer_relevance,
    "context-faithfulness": context_faithfulness,
    "context-recall": context_recall,
    "context-relevance": context_relevance,
}
