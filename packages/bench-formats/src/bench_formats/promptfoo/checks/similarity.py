"""promptfoo's ``similar`` checks (``src/assertions/similar.ts``, ``src/matchers/similarity.ts``):
the embeddings of the expected value and the output, compared by cosine, dot product or distance."""

from __future__ import annotations

import math
import sys
from typing import Any

from bench import EvaluatorError
from bench.llm import ModelCallError
from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Grade, js_string
from bench_formats.promptfoo.checks.grader import grader, to_fixed
from bench_formats.promptfoo.python_embedding import embed, python_provider

#: ``Number.EPSILON``: promptfoo's threshold comparisons allow it.
EPSILON = sys.float_info.epsilon
#: The type's suffix → promptfoo's metric.
METRICS = {
    "similar": "cosine",
    "similar:cosine": "cosine",
    "similar:dot": "dot_product",
    "similar:euclidean": "euclidean",
}


async def similar(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    """``handleSimilar``: one value, or a list (any value passing; with ``not-``, every one)."""
    value = call.value
    if not isinstance(value, (str, list)):
        raise AssertionInvalid("Similarity assertion type must have a string or array of strings value")
    if isinstance(value, list) and not value:
        raise AssertionInvalid("Similarity assertion must have at least one value to compare against")
    threshold = call.assertion.get("threshold")
    threshold = 0.75 if threshold is None else float(threshold)
    metric = METRICS[str(call.assertion.get("type", "")).removeprefix("not-")]
    if not isinstance(value, list):
        return await _matches(call, options, value, threshold, metric)
    if call.inverse:
        closest: Grade | None = None
        for item in value:
            grade = await _matches(call, options, item, threshold, metric)
            if not grade.passed:
                return grade
            if closest is None or grade.score < closest.score:
                closest = grade
        assert closest is not None
        return closest
    best = -math.inf
    for item in value:
        grade = await _matches(call, options, item, threshold, metric)
        if grade.passed:
            return grade
        best = max(best, grade.score)
    return Grade(False, best, "None of the provided values met the similarity threshold")


async def _matches(
    call: Call, options: dict[str, Any], expected: Any, threshold: float, metric: str
) -> Grade:
    """``matchesSimilarity``: an embedding call that fails fails the check (score 0), as in promptfoo."""
    scripted = python_provider(call.assertion.get("provider") or options.get("provider"))
    if scripted is not None:  # a Python provider's call_embedding_api, in the run's Python worker
        replies = [await embed(*scripted, text, call.folder) for text in (js_string(expected), call.output)]
        if failed := next((str(r["error"]) for r in replies if r.get("error")), None):
            return Grade(False, 0.0, failed)
        vectors = [r.get("embedding") or [] for r in replies]
    else:
        if call.sample.llm is None:
            raise EvaluatorError("promptfoo similar: no LLM client in this run")
        model = grader(call.assertion, options, "embedding")
        try:
            vectors = await call.sample.llm.embed(model, [js_string(expected), call.output])
        except ModelCallError as exc:
            return Grade(False, 0.0, str(exc))
    if len(vectors) != 2 or not vectors[0] or not vectors[1]:
        return Grade(False, 0.0, "Embedding not found")
    a, b = vectors
    if len(a) != len(b):
        return Grade(False, 0.0, "Vectors must be of equal length")
    shown = js_string(threshold)
    if metric == "euclidean":
        distance = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))
        passed = distance >= threshold - EPSILON if call.inverse else distance <= threshold + EPSILON
        normalized = 1 / (1 + distance)
        near = f"Distance {to_fixed(distance)} is less than or equal to threshold {shown}"
        far = f"Distance {to_fixed(distance)} is greater than threshold {shown}"
        reason = (far if call.inverse else near) if passed else (near if call.inverse else far)
        return Grade(passed, 1 - normalized if call.inverse else normalized, reason)
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    if metric == "cosine":
        norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
        similarity = dot / norms if norms else 0.0
    else:
        similarity = dot
    passed = similarity <= threshold + EPSILON if call.inverse else similarity >= threshold - EPSILON
    above = f"Similarity {to_fixed(similarity)} is greater than or equal to threshold {shown}"
    below = f"Similarity {to_fixed(similarity)} is less than threshold {shown}"
    reason = (below if call.inverse else above) if passed else (above if call.inverse else below)
    return Grade(passed, 1 - similarity if call.inverse else similarity, reason)
