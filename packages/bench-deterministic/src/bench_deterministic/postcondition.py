"""``postcondition`` (AgentClash): a condition on any piece of evidence after the run."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.evidence import EvidenceUnavailable
from bench.vocabulary import loads_strict, quoted
from bench_deterministic.common import verdict
from bench_deterministic.jsondoc import compare, compile_path, json_equal
from bench_deterministic.patterns import PatternError, compile_pattern

Condition = Literal[
    "exists", "not_exists", "contains", "not_contains", "regex_match", "json_path_match", "equals"
]
_NEEDS_STRING = ("contains", "not_contains", "regex_match")


class PostconditionConfig(EvaluatorConfig):
    """Settings of postcondition (AgentClash's keys)."""

    condition: Condition
    """What must hold of the target evidence."""
    value: Any = None
    """The text (contains, regex_match) or JSON value (equals, json_path_match) to compare with."""
    json_path: str | None = None
    """For ``json_path_match``: the JSONPath whose value must equal ``value``."""

    @model_validator(mode="after")
    def _fits_condition(self) -> PostconditionConfig:
        condition = self.condition
        if condition in ("exists", "not_exists") and self.value is not None:
            raise ValueError(f"value must be omitted for {condition}")
        if condition in _NEEDS_STRING and not isinstance(self.value, str):
            raise ValueError(f"value must be a string for {condition}")
        if condition in ("equals", "json_path_match") and self.value is None:
            raise ValueError(f"value is required for {condition}")
        if condition == "json_path_match":
            if not self.json_path:
                raise ValueError("json_path is required for json_path_match")
            compile_path(self.json_path)
        elif self.json_path is not None:
            raise ValueError(f"json_path must be omitted for {condition}")
        if condition == "regex_match":
            try:
                compile_pattern(str(self.value))
            except PatternError as exc:
                raise ValueError(str(exc)) from None
        return self


class Postcondition(Evaluator[PostconditionConfig]):
    """Checks a condition on the ``target`` evidence (default: the final output).

    Conditions: ``exists``/``not_exists`` (is the evidence there at all, e.g. ``file:out.txt`` or
    ``artifact.report``), ``contains``, ``not_contains``, ``regex_match``, ``equals`` (a string
    compares as text, anything else as JSON) and ``json_path_match``.
    """

    name = "postcondition"
    resolves_target = True
    Config = PostconditionConfig
    example = """
    name: postcondition-example
    tasks:
      - id: report
        response:
          output: "Report written."
          artifacts: {report: {status: "complete", pages: 3}}
        evaluate:
          - {type: postcondition, target: artifact.report, condition: exists}
          - type: postcondition
            target: artifact.report
            condition: json_path_match
            json_path: "$.status"
            value: complete
          - {type: postcondition, target: artifact.draft, condition: not_exists}
          - {type: postcondition, condition: contains, value: "written"}
    """

    def evaluate(self, sample: Sample) -> Result:
        config = self.config
        ref = sample.target or "final_output"
        try:
            actual: str | None = sample.evidence.resolve(ref)
        except EvidenceUnavailable as exc:
            if config.condition not in ("exists", "not_exists"):
                raise
            actual, missing = None, str(exc)
        condition = config.condition
        if condition == "exists":
            return verdict(actual is not None, f"{ref} exists" if actual is not None else missing)
        if condition == "not_exists":
            return verdict(actual is None, f"{ref} does not exist" if actual is None else f"{ref} exists")
        assert actual is not None
        if condition == "contains":
            found = str(config.value) in actual
            return verdict(
                found, f"{ref} {'contains' if found else 'does not contain'} {quoted(str(config.value))}"
            )
        if condition == "not_contains":
            found = str(config.value) in actual
            return verdict(
                not found,
                f"{ref} {'contains forbidden' if found else 'does not contain'} {quoted(str(config.value))}",
            )
        if condition == "regex_match":
            matched = compile_pattern(str(config.value)).search(actual)
            return verdict(matched, f"{ref} {'matches' if matched else 'does not match'} {config.value!r}")
        if condition == "equals":
            if isinstance(config.value, str):
                return verdict(
                    actual == config.value,
                    f"{ref} {'equals' if actual == config.value else 'differs from'} {quoted(config.value)}",
                )
            document = _json(actual, ref)
            equal = json_equal(document, config.value)
            return verdict(equal, f"{ref} {'equals' if equal else 'does not equal'} the expected JSON")
        document = _json(actual, ref)
        query = compile_path(str(config.json_path))
        found = query.findall(document)
        if not found:
            return verdict(False, f"{config.json_path} did not resolve to a value in {ref}")
        value = found[0] if query.singular_query() else found
        passed, why = compare(value, "equals", config.value)
        return verdict(passed, f"{ref} {config.json_path} {'equals the expected value' if passed else why}")


def _json(text: str, ref: str) -> Any:
    try:
        return loads_strict(text)
    except ValueError as exc:
        raise EvaluatorError(f"{ref} is not JSON: {exc}") from None
