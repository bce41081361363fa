"""String checks: exact, contains (all, any, case-insensitive), not_contains, starts_with, regex, boolean."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import field_validator

from bench import Evaluator, EvaluatorError, Result, Sample
from bench.vocabulary import excerpt, quoted
from bench_deterministic.calls_section import with_calls_section
from bench_deterministic.common import CompareConfig, as_list, expected_of, verdict
from bench_deterministic.patterns import PatternError, compile_pattern


class ExactConfig(CompareConfig):
    """Settings of exact_match."""

    value: str | int | float | None = None
    """The whole response must equal this (numbers are compared as their text)."""
    trim: bool = False
    """Ignore leading and trailing whitespace on both sides."""
    case_insensitive: bool = False
    """Compare with Unicode case folding."""


class ExactMatch(Evaluator[ExactConfig]):
    """Passes when the response equals the expected value exactly (AgentClash, AI Eval ``exact``)."""

    name = "exact_match"
    aliases = ("exact", "equals")
    expected_block = "value"
    Config = ExactConfig
    example = """
    name: exact-match-example
    tasks:
      - id: literal
        response: "Hello, world!"
        evaluate: {type: exact_match, value: "Hello, world!"}
      - id: from-the-case
        response: "4"
        expectations: {answer: "4"}
        evaluate: {type: exact_match, expected_from: case.expectations.answer}
      - id: ai-eval-block
        response: "Paris"
        expected: {exact_match: "Paris"}
    """

    def evaluate(self, sample: Sample) -> Result:
        expected = str(expected_of(sample, self.config.value))
        actual = sample.output
        if self.config.trim:
            actual, expected = actual.strip(), expected.strip()
        if self.config.case_insensitive:
            actual, expected = actual.casefold(), expected.casefold()
        if actual == expected:
            return verdict(True, f"equals {quoted(expected)}")
        return verdict(False, f"expected {quoted(expected)}, got {quoted(actual)}")


class ContainsConfig(CompareConfig):
    """Settings of contains, icontains and not_contains."""

    value: str | list[str] | None = None
    """A substring, or a list of substrings."""
    mode: Literal["all", "any"] = "all"
    """With a list: every substring must be found (``all``) or at least one (``any``)."""
    case_insensitive: bool = False
    """Compare with Unicode case folding."""
    tool_calls_section: bool = False
    """AI Eval: search the response followed by a "## Tool Calls Made" section listing its tool
    calls and their inputs (when it made any), as AI Eval's contains does (its not_contains
    searches the response text alone)."""

    @field_validator("value")
    @classmethod
    def _not_empty(cls, value: str | list[str] | None) -> str | list[str] | None:
        if isinstance(value, list) and not value:
            raise ValueError("an empty list: nothing would be checked")
        return value


class Contains(Evaluator[ContainsConfig]):
    """Passes when the response contains the substring(s); the score is the fraction found."""

    name = "contains"
    aliases: ClassVar[tuple[str, ...]] = ("contains_all", "contains-all")
    expected_block: ClassVar[str | None] = "value"
    Config = ContainsConfig
    example = """
    name: contains-example
    tasks:
      - id: all-of
        response: "hello, wide world"
        evaluate: {type: contains, value: ["hello", "world"]}
      - id: any-of
        response: "Bonjour"
        evaluate: {type: contains, value: ["Hello", "Bonjour"], mode: any}
      - id: ai-eval-block
        response: "hello world"
        expected: {contains: ["hello", "world"]}
    """

    def evaluate(self, sample: Sample) -> Result:
        needles = [str(v) for v in as_list(expected_of(sample, self.config.value))]
        haystack = (
            with_calls_section(sample.output, sample.response)
            if self.config.tool_calls_section
            else sample.output
        )
        if self.config.case_insensitive:
            haystack = haystack.casefold()
        found = [n for n in needles if (n.casefold() if self.config.case_insensitive else n) in haystack]
        missing = [n for n in needles if n not in found]
        score = len(found) / len(needles)
        passed = bool(found) if self.config.mode == "any" else not missing
        if passed:
            return Result(passed=True, score=score, reason=f"found {', '.join(map(quoted, found))}")
        reason = "none found of " if self.config.mode == "any" else "not found: "
        return Result(passed=False, score=score, reason=reason + ", ".join(map(quoted, missing)))


class IContainsConfig(ContainsConfig):
    """Settings of icontains (contains, ignoring case)."""

    case_insensitive: bool = True
    """On by default for icontains."""


class IContains(Contains):
    """``contains`` ignoring case (Unicode case folding)."""

    name = "icontains"
    aliases: ClassVar[tuple[str, ...]] = ()
    expected_block: ClassVar[str | None] = None  # AI Eval's block has no icontains entry
    Config = IContainsConfig
    example = """
    name: icontains-example
    tasks:
      - id: shouting
        response: "HELLO WORLD"
        evaluate: {type: icontains, value: "hello"}
    """


class NotContains(Evaluator[ContainsConfig]):
    """Passes when the response contains none of the substrings (AI Eval ``not_contains``)."""

    name = "not_contains"
    aliases = ("not-contains",)
    expected_block = "value"
    Config = ContainsConfig
    example = """
    name: not-contains-example
    tasks:
      - id: no-refusal
        response: "Sure, here it is."
        evaluate: {type: not_contains, value: ["I can't", "I won't"]}
      - id: ai-eval-block
        response: "Sure."
        expected: {not_contains: ["sorry"]}
    """

    def evaluate(self, sample: Sample) -> Result:
        needles = [str(v) for v in as_list(expected_of(sample, self.config.value))]
        fold = self.config.case_insensitive
        text = (
            with_calls_section(sample.output, sample.response)
            if self.config.tool_calls_section
            else sample.output
        )
        haystack = text.casefold() if fold else text
        present = [n for n in needles if (n.casefold() if fold else n) in haystack]
        if present:
            return Result(
                passed=False,
                score=1 - len(present) / len(needles),
                reason="found forbidden " + ", ".join(map(quoted, present)),
            )
        return Result(passed=True, score=1.0, reason=f"none of {len(needles)} forbidden strings found")


class StartsWithConfig(CompareConfig):
    """Settings of starts_with."""

    value: str | None = None
    """The prefix the response must start with."""
    trim: bool = True
    """Ignore leading whitespace of the response."""


class StartsWith(Evaluator[StartsWithConfig]):
    """Passes when the response starts with the prefix."""

    name = "starts_with"
    aliases = ("starts-with",)
    Config = StartsWithConfig
    example = """
    name: starts-with-example
    tasks:
      - id: greeting
        response: "  Dear customer, thank you."
        evaluate: {type: starts_with, value: "Dear customer"}
    """

    def evaluate(self, sample: Sample) -> Result:
        prefix = str(expected_of(sample, self.config.value))
        text = sample.output.lstrip() if self.config.trim else sample.output
        if text.startswith(prefix):
            return verdict(True, f"starts with {quoted(prefix)}")
        start = excerpt(text, len(prefix) + 20, ellipsis="")
        return verdict(False, f"does not start with {quoted(prefix)}; starts {quoted(start)}")


class RegexConfig(CompareConfig):
    """Settings of regex."""

    value: str | list[str] | None = None
    """A pattern (RE2 syntax, like Go's regexp), or a list that must all match."""
    tool_calls_section: bool = False
    """AI Eval: match against the response followed by a "## Tool Calls Made" section listing its
    tool calls and their inputs (when it made any), as AI Eval's regex does."""

    @field_validator("value")
    @classmethod
    def _compiles(cls, value: str | list[str] | None) -> str | list[str] | None:
        for pattern in as_list(value) if value is not None else []:
            try:
                compile_pattern(pattern)
            except PatternError as exc:
                raise ValueError(str(exc)) from None
        return value


class Regex(Evaluator[RegexConfig]):
    """Passes when every pattern matches somewhere in the response.

    Patterns run on RE2 in linear time; one RE2 cannot express (backreferences, lookaround) runs
    on the ``regex`` engine with a 1 s limit and times out as an evaluator error, never a hang.
    """

    name = "regex"
    aliases = ("regex_match", "regex-match")
    expected_block = "value"
    var_patterns = ("value",)
    Config = RegexConfig
    example = """
    name: regex-example
    tasks:
      - id: date
        response: "2024-01-31"
        evaluate: {type: regex, value: "^\\\\d{4}-\\\\d{2}-\\\\d{2}$"}
      - id: agentclash-form
        response: "order #123"
        evaluate: {type: regex_match, expected_from: "literal:#\\\\d+"}
    """

    def evaluate(self, sample: Sample) -> Result:
        patterns = [str(p) for p in as_list(expected_of(sample, self.config.value))]
        text = (
            with_calls_section(sample.output, sample.response)
            if self.config.tool_calls_section
            else sample.output
        )
        missing = []
        for source in patterns:
            try:
                pattern = compile_pattern(source)
            except PatternError as exc:
                raise EvaluatorError(str(exc)) from None
            if not pattern.search(text):
                missing.append(source)
        score = 1 - len(missing) / len(patterns)
        if missing:
            return Result(passed=False, score=score, reason="no match for " + ", ".join(map(repr, missing)))
        return Result(passed=True, score=1.0, reason=f"matches {', '.join(map(repr, patterns))}")


_TRUE = {"1", "t", "true", "yes", "y"}
_FALSE = {"0", "f", "false", "no", "n"}


def parse_bool(text: str, what: str) -> bool:
    """Go's strconv.ParseBool spellings (any case) plus yes/no; anything else is an error."""
    word = text.strip().strip(".").casefold()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise EvaluatorError(f"{what} {quoted(text)} is not a boolean (true/false, yes/no, 1/0)")


class BooleanConfig(CompareConfig):
    """Settings of boolean_assert."""

    value: bool | None = None
    """The boolean the response must state."""


class BooleanAssert(Evaluator[BooleanConfig]):
    """Passes when the response, read as a boolean, equals the expected boolean (AgentClash)."""

    name = "boolean_assert"
    Config = BooleanConfig
    example = """
    name: boolean-assert-example
    tasks:
      - id: is-prime
        prompt: "Is 7 prime? Answer true or false."
        response: "True"
        evaluate: {type: boolean_assert, value: true}
    """

    def evaluate(self, sample: Sample) -> Result:
        configured = self.config.value
        expected = configured if configured is not None else parse_bool(expected_of(sample, None), "expected")
        actual = parse_bool(sample.output, "the response")
        return verdict(actual == expected, f"response is {actual}, expected {expected}")
