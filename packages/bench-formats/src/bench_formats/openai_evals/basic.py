"""The ``openai_evals`` evaluator type: the verdicts of ``evals``' basic classes on one sample."""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench_formats.openai_evals import text

BasicClass = Literal["Match", "Includes", "FuzzyMatch", "JsonMatch"]


class OpenAIEvalsConfig(EvaluatorConfig):
    """Settings of openai_evals (what the OpenAI evals loader writes for one sample)."""

    eval_class: BasicClass | None = None
    """The registry class: ``Match``, ``Includes``, ``FuzzyMatch`` or ``JsonMatch``
    (``evals.elsuite.basic.*``)."""
    ideal: str | list[str] = ""
    """The sample's ``ideal``: one answer or a list of them."""
    ignore_case: bool = False
    """``Includes``' ``ignore_case`` argument."""
    unsupported: str | None = None
    """Why bench cannot judge this sample as ``evals`` does: the row is an error with this reason."""


class OpenAIEvals(Evaluator[OpenAIEvalsConfig]):
    """A sample of an OpenAI evals registry eval judged as ``evals`` judges it (docs/formats/openai.md).

    ``Match``: the answer starts with an ideal; ``Includes``: it contains one (``ignore_case``);
    ``FuzzyMatch``: after ``normalize`` (lower case, no punctuation or articles), either text
    contains the other (``details.f1_score`` too); ``JsonMatch``: the answer's JSON equals an
    ideal's, key by key. Score 1 when it passes, else 0.
    """

    name = "openai_evals"
    Config = OpenAIEvalsConfig
    var_settings: ClassVar[tuple[str, ...]] = ()
    example = """
    name: openai-evals-example
    tasks:
      - id: capital.dev.0
        response: "Paris, of course."
        evaluate: {type: openai_evals, eval_class: Match, ideal: [Paris, Lyon]}
      - id: capital.dev.1
        response: "It is PARIS."
        evaluate: {type: openai_evals, eval_class: Includes, ideal: paris, ignore_case: true}
      - id: json.dev.0
        response: '{"b": [1, 2], "a": 1.0}'
        evaluate: {type: openai_evals, eval_class: JsonMatch, ideal: '{"a": 1, "b": [1, 2]}'}
    """

    def evaluate(self, sample: Sample) -> Result:
        config = self.config
        if config.unsupported is not None:
            raise EvaluatorError(config.unsupported)
        if config.eval_class is None:
            raise EvaluatorError("openai_evals: eval_class is required")
        ideals = config.ideal if isinstance(config.ideal, list) else [config.ideal]
        sampled = sample.output
        details: dict[str, Any] = {"eval_class": config.eval_class, "expected": config.ideal}
        if config.eval_class == "Match":
            picked = text.picked_option(sampled, ideals)
            passed = picked is not None
            details["picked"] = picked
        elif config.eval_class == "Includes":
            passed = any(text.includes(sampled, ideal, config.ignore_case) for ideal in ideals)
        elif config.eval_class == "FuzzyMatch":
            if not ideals:
                raise EvaluatorError("FuzzyMatch: ideal is an empty list (evals fails on it too)")
            passed = any(text.fuzzy_match(sampled, ideal) for ideal in ideals)
            details["f1_score"] = text.f1_score(sampled, ideals)
        else:
            passed = _json_matches(sampled, ideals)
        reason = f"{config.eval_class}: {'a match' if passed else 'no match'} for {_shown(config.ideal)}"
        return Result(passed=passed, score=float(passed), reason=reason, details=details)


def _json_matches(sampled: str, ideals: list[str]) -> bool:
    try:
        answer = json.loads(sampled)
    except ValueError:
        answer = None  # evals: a sample that is not JSON never matches
    try:
        correct = [json.loads(ideal) for ideal in ideals]
    except ValueError as exc:  # the loader refuses these; kept for hand-written suites
        raise EvaluatorError(f"JsonMatch: an ideal answer is not JSON: {exc}") from None
    return any(text.json_match(answer, value) for value in correct)


def _shown(ideal: str | list[str]) -> str:
    return json.dumps(ideal, ensure_ascii=False)
