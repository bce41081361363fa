"""bench's ``expected`` matcher (seed 000): strings, numbers, lists of both, and regexes."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from bench import Evaluator, EvaluatorConfig, Result, Sample
from bench_deterministic.patterns import Pattern, PatternError, compile_pattern

# A number standing on its own: not part of a word or of a longer number ("420", "1.42", "x42").
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")


class RegexItem(BaseModel):
    """``{regex: PATTERN}``: matches anywhere in the response."""

    model_config = ConfigDict(extra="forbid")

    regex: str

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            compile_pattern(value)
        except PatternError as exc:
            raise ValueError(str(exc)) from None
        return value


Item = str | int | float | RegexItem


def _no_booleans(value: Any) -> Any:
    items = value if isinstance(value, list) else [value]
    if any(isinstance(item, bool) for item in items):
        raise ValueError("a boolean is neither text nor a number; quote it ('true') to match the text")
    return value


class ExpectedConfig(EvaluatorConfig):
    """Settings of the expected matcher."""

    expected: Item | list[Item] | None = None
    """Text or a number to find, ``{regex: ...}``, or a list of these (all must be found)."""
    expect_error: bool = False
    """The task must fail (for example time out); its error text is then checked instead of a response."""

    @field_validator("expected", mode="before")
    @classmethod
    def _check_booleans(cls, value: Any) -> Any:
        return _no_booleans(value)

    @model_validator(mode="after")
    def _something_to_check(self) -> ExpectedConfig:
        if self.expected is None and not self.expect_error:
            raise ValueError("set expected (or expect_error: true)")
        if isinstance(self.expected, list) and not self.expected:
            raise ValueError("expected is an empty list: nothing would be checked")
        return self


def _numbers_in(text: str) -> list[Decimal]:
    found = []
    for token in _NUMBER.findall(text):
        try:
            found.append(Decimal(token.replace(",", "")))
        except InvalidOperation:
            continue
    return found


def _describe(item: Item) -> str:
    if isinstance(item, RegexItem):
        return f"regex {item.regex!r}"
    return repr(item)


class ExpectedMatcher(Evaluator[ExpectedConfig]):
    """Passes when the response contains what is expected.

    A string must appear verbatim (case-sensitive). A number must appear as a number of its own:
    42 is found in "The answer is 42." and in "42.0", not in "420" or "1422"; thousands
    separators ("1,000") are understood. A list passes when all of its items are found;
    ``{regex: PATTERN}`` matches anywhere (RE2 syntax). The score is the fraction found.
    With ``expect_error: true`` the task must fail, and its error text is what is checked.
    """

    name = "expected"
    infer_from = ("expected", "expect_error")
    Config = ExpectedConfig
    example = """
    name: expected-example
    tasks:
      - id: capital
        response: "The capital of France is Paris."
        evaluate: {expected: "Paris"}
      - id: number
        response: "The answer is 42."
        evaluate: {expected: 42}
      - id: all-of
        response: "Paris, then Berlin, then Rome."
        evaluate: {expected: ["Paris", "Rome", {regex: "Ber+lin"}]}
    """

    def __init__(self, config: ExpectedConfig) -> None:
        super().__init__(config)
        value = config.expected
        self.items: list[Item] = [] if value is None else value if isinstance(value, list) else [value]
        self.patterns: dict[int, Pattern] = {
            i: compile_pattern(item.regex) for i, item in enumerate(self.items) if isinstance(item, RegexItem)
        }
        self.needs_numbers = any(isinstance(i, (int, float)) for i in self.items)

    def evaluate(self, sample: Sample) -> Result:
        if not self.items:
            return Result(passed=True, score=1.0, reason="the task failed as expected")
        text = sample.output
        numbers = _numbers_in(text) if self.needs_numbers else []
        missing = []
        for i, item in enumerate(self.items):
            if isinstance(item, RegexItem):
                found = self.patterns[i].search(text)
            elif isinstance(item, str):
                found = item in text
            else:
                found = Decimal(str(item)) in numbers
            if not found:
                missing.append(item)
        score = 1 - len(missing) / len(self.items)
        if missing:
            return Result(
                passed=False, score=score, reason="not found: " + ", ".join(map(_describe, missing))
            )
        if len(self.items) == 1:
            return Result(passed=True, score=1.0, reason=f"found {_describe(self.items[0])}")
        return Result(passed=True, score=1.0, reason=f"found all {len(self.items)} expected values")
