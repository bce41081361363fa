"""promptfoo's ``select-best`` and ``max-score``: a test's rows re-decided together once every
provider × prompt column ran (``src/matchers/comparison.ts``, and the evaluator's
``mergeSelectBestGradingResult`` and ``mergeMaxScoreGradingResult``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench import EvaluatorError, Result, Sample
from bench.llm import LLMRequest, offline_skip
from bench_formats.promptfoo.checks.base import js_string, js_stringify
from bench_formats.promptfoo.checks.grader import grader, parsed, template_value, to_fixed

if TYPE_CHECKING:
    from bench.llm import LLMClient

#: The assertion types that compare a test's rows (each runs once per test, after its rows).
COMPARING = ("select-best", "max-score")

SELECT_BEST_SYSTEM = (
    "You are comparing multiple pieces of text to see which best fits the following criteria: "
    "{criteria}\n\nHere are the pieces of text:\n\n{texts}\n\nOutput the index of the text that "
    "best fits the criteria. You must output a single integer."
)


@dataclass
class Row:
    """One row's verdict as the comparisons change it (promptfoo's result and gradingResult)."""

    passed: bool
    score: float
    reason: str
    details: dict[str, Any] = field(default_factory=dict)

    def result(self) -> Result:
        return Result(self.passed, max(0.0, min(1.0, self.score)), self.reason, self.details)

    def add_component(
        self, assertion: dict[str, Any], passed: bool, score: float, reason: str, **more: Any
    ) -> None:
        kind, metric = assertion.get("type"), assertion.get("metric")
        component = {
            "type": kind,
            "pass": passed,
            "score": score,
            "reason": reason,
            "weight": 1.0,
            "metric": metric,
        }
        component.update(more)
        self.details = {**self.details, "assertions": [*self.details.get("assertions", []), component]}


async def decide(
    asserts: list[dict[str, Any]], options: dict[str, Any], rows: list[tuple[Sample, Result | None]]
) -> list[Result | None]:
    """Each row's verdict after the test's ``select-best``, then its ``max-score`` (the first of
    each in ``assert``, as promptfoo takes them); None for a row with no verdict of its own."""
    state = [None if verdict is None else _row(verdict) for _, verdict in rows]
    if all(row_state is None for row_state in state):
        return [None] * len(rows)  # every row is an error already: no grader is asked
    select = next((a for a in asserts if a.get("type") == "select-best"), None)
    if select is not None:
        outputs = [sample.output if not sample.is_error else "" for sample, _ in rows]
        grades = await select_best(select, options, outputs, rows[0][0].llm if rows else None)
        for row_state, (passed, score, reason) in zip(state, grades, strict=True):
            if row_state is not None:
                _merge_select_best(row_state, select, passed, score, reason)
    best = next((a for a in asserts if a.get("type") == "max-score"), None)
    if best is not None:
        for row_state, grade in zip(state, max_score(best, state), strict=True):
            if row_state is not None:
                _merge_max_score(row_state, best, *grade)
    return [None if row_state is None else row_state.result() for row_state in state]


def _row(verdict: Result) -> Row:
    return Row(verdict.passed, verdict.score or 0.0, verdict.reason, dict(verdict.details))


async def select_best(
    assertion: dict[str, Any], options: dict[str, Any], outputs: list[str], llm: LLMClient | None
) -> list[tuple[bool, float, str]]:
    """promptfoo's ``matchesSelectBest``: the grader names the index of the best output."""
    criteria = assertion.get("value")
    if not isinstance(criteria, str):
        raise EvaluatorError("select-best must have a string value")
    if len(outputs) < 2:
        raise EvaluatorError("select-best assertion must have at least two outputs to compare between")
    model = grader(assertion, options)
    skipped = offline_skip("select-best", model)  # an offline run: no remote grader is asked
    if skipped is not None:
        raise EvaluatorError(skipped)
    if llm is None:
        raise EvaluatorError("promptfoo select-best: no LLM client in this run")
    if options.get("rubricPrompt"):
        raise EvaluatorError("promptfoo select-best: options.rubricPrompt is not supported by bench yet")
    texts = "".join(f'\n<Text index="{i}">\n{_shown(output)}\n</Text>\n' for i, output in enumerate(outputs))
    system = SELECT_BEST_SYSTEM.format(criteria=criteria, texts=texts)
    request = LLMRequest(model=model, messages=[{"role": "system", "content": system}], purpose="judge")
    reply = (await llm.complete(request)).text
    if not reply:
        return [(False, 0.0, "No output")] * len(outputs)
    found = re.search(r"\d+", reply.strip())
    verdict = int(found.group(0)) if found else None
    if verdict is None or verdict >= len(outputs):
        return [(False, 0.0, f"Invalid select-best verdict: {'NaN' if verdict is None else verdict}")] * len(
            outputs
        )
    return [
        (True, 1.0, f"Output selected as the best: {criteria}")
        if index == verdict
        else (False, 0.0, f"Output not selected: {criteria}")
        for index in range(len(outputs))
    ]


def _shown(output: str) -> str:
    """An output as the template shows it: ``tryParse``, objects as JSON, scalars as text."""
    value = parsed(output)
    return js_stringify(value) if isinstance(value, dict | list) else template_value(value)


def max_score(
    assertion: dict[str, Any], rows: list[Row | None]
) -> list[tuple[bool, float, str, dict[str, float]]]:
    """promptfoo's ``selectMaxScore``: the row whose other assertions score highest wins."""
    if len(rows) < 2:
        raise EvaluatorError("max-score assertion must have at least two outputs to compare between")
    given = assertion.get("value")
    value: dict[str, Any] = given if isinstance(given, dict) else {}
    method = value.get("method", "average")
    weights = value.get("weights") or {}
    threshold = value.get("threshold")
    scores = [_aggregate(row, method, weights) for row in rows]
    top = max(score for score, _, _ in scores)
    winner = next(index for index, (score, _, _) in enumerate(scores) if score == top)
    meets = threshold is None or top >= threshold
    out = []
    for index, (score, count, total_weight) in enumerate(scores):
        won = index == winner and meets
        if won:
            reason = f"Selected as highest scoring output (score: {to_fixed(score, 3)})"
        elif score == top and not meets:
            reason = f"Not selected - score {to_fixed(score, 3)} below threshold {js_string(threshold)}"
        else:
            reason = f"Not selected (score: {to_fixed(score, 3)}, max: {to_fixed(top, 3)})"
        named = {"maxScore": score, "assertionCount": float(count), "totalWeight": total_weight}
        out.append((won, 1.0 if won else 0.0, reason, named))
    return out


def _aggregate(row: Row | None, method: Any, weights: dict[str, Any]) -> tuple[float, int, float]:
    """(score, assertions counted, their total weight) of a row's other assertions."""
    components = [] if row is None else _components(row.details.get("assertions") or [])
    relevant = [c for c in components if c.get("type") not in COMPARING]
    if not relevant:
        raise EvaluatorError(
            "max-score requires at least one other assertion (besides max-score or select-best) "
            "to aggregate scores from"
        )
    total = weight_sum = 0.0
    for component in relevant:
        weight = weights.get(str(component.get("type")), 1)
        total += float(component.get("score") or 0) * weight
        weight_sum += weight
    if method == "sum":
        return total, len(relevant), weight_sum
    return (total / weight_sum if weight_sum > 0 else 0.0), len(relevant), weight_sum


def _components(assertions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The results max-score weighs: each assertion's, and an assert-set's children in its place
    (promptfoo's flattened ``componentResults`` keep the set's own result without an
    ``assertion``, which ``selectMaxScore`` leaves out). A check skipped offline has none."""
    out: list[dict[str, Any]] = []
    for entry in assertions:
        children = entry.get("assert")
        for result in children if isinstance(children, list) else [entry]:
            if result.get("pass") is not None:
                out.append(result)
    return out


def _merge_select_best(row: Row, assertion: dict[str, Any], passed: bool, score: float, reason: str) -> None:
    row.passed = row.passed and passed
    if not passed:
        row.reason, row.score = reason, score
    row.add_component(assertion, passed, score, reason)


def _merge_max_score(
    row: Row, assertion: dict[str, Any], passed: bool, score: float, reason: str, named: dict[str, float]
) -> None:
    if not passed and row.passed:
        row.reason = reason
    if not passed:
        row.score = score
    row.passed = row.passed and passed
    # promptfoo keeps these in the grading result only, not in the row's named scores
    row.add_component(assertion, passed, score, reason, named_scores=named)
