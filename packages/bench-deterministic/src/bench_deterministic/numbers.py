"""Numeric answers: ``numeric_match`` (tolerances, AgentClash) and ``math_equivalence`` (math-verify)."""

from __future__ import annotations

import math
import re
import threading
from typing import Any, Literal

from pydantic import Field, model_validator

from bench import Evaluator, EvaluatorError, Result, Sample
from bench.vocabulary import quoted
from bench_deterministic.common import CompareConfig, expected_of, verdict
from bench_deterministic.normalize import strip_currency

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?")


def parse_number(text: str, extract: bool) -> tuple[float, str]:
    """The number in ``text`` and the token read; ``extract`` takes the first number found
    after removing currency symbols, thousands separators and percent signs."""
    if extract:
        cleaned = strip_currency(text).replace(",", "").replace("%", "").strip()
        match = _NUMBER.search(cleaned)
        if match is None:
            raise EvaluatorError(f"no numeric value found in {quoted(text)}")
        token = match.group()
    else:
        token = text.strip()
    try:
        value = float(token)
    except ValueError:
        hint = "" if extract else " (set extract_number: true to find a number inside text)"
        raise EvaluatorError(f"{quoted(token)} is not a number{hint}") from None
    if math.isnan(value):
        raise EvaluatorError("NaN is not a comparable number")
    return value, token


def round_significant(value: float, digits: int) -> float:
    if value == 0 or math.isinf(value):
        return value
    magnitude = math.floor(math.log10(abs(value))) + 1
    return round(value, digits - magnitude)


class NumericConfig(CompareConfig):
    """Settings of numeric_match (AgentClash's keys)."""

    value: float | int | str | None = None
    """The expected number."""
    absolute_tolerance: float | None = Field(default=None, ge=0)
    """Passes when ``|actual - expected| <= absolute_tolerance``."""
    relative_tolerance: float | None = Field(default=None, ge=0)
    """Passes when ``|actual - expected| / |expected| <= relative_tolerance``."""
    extract_number: bool = False
    """Read the first number in the text (currency, commas and % removed) instead of the whole text."""
    significant_digits: int | None = Field(default=None, gt=0)
    """Round both numbers to this many significant digits first."""
    tolerance_mode: Literal["absolute", "relative"] | None = None
    """Older form: which kind ``tolerance`` is (default relative)."""
    tolerance: float | None = Field(default=None, ge=0)
    """Older form, with ``tolerance_mode`` (default 0.001)."""

    @model_validator(mode="after")
    def _migrate_tolerance(self) -> NumericConfig:
        legacy = self.tolerance is not None or self.tolerance_mode is not None
        current = self.absolute_tolerance is not None or self.relative_tolerance is not None
        if legacy and current:
            raise ValueError("cannot mix tolerance_mode/tolerance with absolute_tolerance/relative_tolerance")
        if legacy:
            amount = self.tolerance if self.tolerance is not None else 0.001
            if self.tolerance_mode == "absolute":
                self.absolute_tolerance = amount
            else:
                self.relative_tolerance = amount
        return self


class NumericMatch(Evaluator[NumericConfig]):
    """Passes when the response's number equals the expected one, within a tolerance if given.

    With both tolerances, either one suffices. Without any, the numbers must be equal.
    """

    name = "numeric_match"
    aliases = ("numeric",)
    Config = NumericConfig
    example = """
    name: numeric-match-example
    tasks:
      - id: float-sum
        response: "0.30000000000000004"
        evaluate: {type: numeric_match, value: 0.3, absolute_tolerance: 1.0e-9}
      - id: price
        response: "It costs $1,234.50 in total."
        evaluate: {type: numeric_match, value: 1234.5, extract_number: true}
      - id: estimate
        response: "about 98"
        evaluate: {type: numeric_match, value: 100, relative_tolerance: 0.05, extract_number: true}
    """

    def evaluate(self, sample: Sample) -> Result:
        config = self.config
        expected_raw = expected_of(sample, config.value)
        if isinstance(expected_raw, (int, float)) and not isinstance(expected_raw, bool):
            expected, expected_token = float(expected_raw), str(expected_raw)
        else:
            expected, expected_token = parse_number(str(expected_raw), config.extract_number)
        actual, actual_token = parse_number(sample.output, config.extract_number)
        if config.significant_digits:
            actual = round_significant(actual, config.significant_digits)
            expected = round_significant(expected, config.significant_digits)
        difference = abs(actual - expected)
        relative = difference / abs(expected) if expected else (0.0 if difference == 0 else math.inf)
        details: dict[str, Any] = {
            "actual": actual,
            "expected": expected,
            "actual_parsed": actual_token,
            "expected_parsed": expected_token,
            "absolute_difference": difference,
            "relative_difference": relative if math.isfinite(relative) else None,
        }
        if config.absolute_tolerance is None and config.relative_tolerance is None:
            passed = actual == expected
        else:
            passed = (config.absolute_tolerance is not None and difference <= config.absolute_tolerance) or (
                config.relative_tolerance is not None and relative <= config.relative_tolerance
            )
        tolerant = config.absolute_tolerance is not None or config.relative_tolerance is not None
        if passed:
            how = " within tolerance" if tolerant else ""
            return verdict(True, f"{actual!r} matches {expected!r}{how}", **details)
        how = "within tolerance of" if tolerant else "equal to"
        return verdict(False, f"actual {actual!r} is not {how} expected {expected!r}", **details)


# -- math_equivalence -------------------------------------------------------------------------

_DELIMITED = re.compile(r"\$|\\\(|\\\[|\\boxed")
PARSE_TIMEOUT_S = 5
_MATH_WORDS = {"sin", "cos", "tan", "log", "ln", "exp", "pi", "sqrt", "infty", "mod"}


class MathConfig(CompareConfig):
    """Settings of math_equivalence (AgentClash's keys)."""

    value: str | float | int | None = None
    """The expected answer: a number, an expression or LaTeX (``\\frac{1}{2}``)."""
    extract_answer: bool = False
    """Take the text after the last ``answer_delimiter`` (GSM8K's ``####``)."""
    answer_delimiter: str = "####"
    """Used with ``extract_answer``."""
    comparison_mode: Literal["symbolic", "numeric"] = "symbolic"
    """``symbolic``: equal as expressions (then numerically when ``numeric_fallback``);
    ``numeric``: equal as numbers within ``tolerance``."""
    numeric_fallback: bool = True
    """In symbolic mode, also accept numerically equal values."""
    tolerance: float = Field(default=1e-6, ge=0)
    """Largest absolute difference accepted by numeric comparison."""


#: ``√2``, ``√(x+1)``, ``√x``: AgentClash reads the number, group or name after the sign.
_ROOT = re.compile(r"√\s*(\d+(?:\.\d+)?|\([^()]*\)|[A-Za-z]\w*)")
#: ``5e-1``: scientific notation, which LaTeX would read as ``5 e - 1`` (Euler's number).
_SCIENTIFIC = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w.])")


def _forms(text: str) -> str:
    """AgentClash's forms that LaTeX reads otherwise: ``√`` and scientific notation."""
    text = _ROOT.sub(lambda m: "\\sqrt{" + m.group(1).removeprefix("(").removesuffix(")") + "}", text)
    return _SCIENTIFIC.sub(lambda m: f"({m.group(1)}\\cdot 10^{{{int(m.group(2))}}})", text)


def _prepare(text: str, config: MathConfig) -> str:
    text = text.strip()
    if config.extract_answer:
        _, found, after = text.rpartition(config.answer_delimiter)
        text = after.strip() if found else text
    text = _forms(text)
    # A bare expression ("x^2+2x+1", "\frac{1}{2}") is read as LaTeX; prose is left to
    # math-verify's own extraction, so "I do not know" is not read as a product of symbols.
    return f"${text}$" if not _DELIMITED.search(text) and _looks_like_math(text) else text


def _looks_like_math(text: str) -> bool:
    words = re.findall(r"(?<![\\A-Za-z])[A-Za-z]{2,}", text)
    return len(text) <= 500 and all(word in _MATH_WORDS for word in words)


class MathEquivalence(Evaluator[MathConfig]):
    """Passes when the response and the expected answer are mathematically equal.

    Parsing and comparison are math-verify's (LaTeX and plain expressions through sympy):
    ``\\frac{1}{2}`` equals ``0.5``, ``(x+1)^2`` equals ``x^2+2x+1``, ``\\boxed{42}`` equals ``42``.
    """

    name = "math_equivalence"
    aliases = ("math",)
    Config = MathConfig
    example = """
    name: math-equivalence-example
    tasks:
      - id: fraction
        response: "The answer is $\\\\frac{1}{2}$"
        evaluate: {type: math_equivalence, value: "0.5"}
      - id: gsm8k
        response: "3 apples plus 4 apples makes 7.\\n#### 7"
        evaluate: {type: math_equivalence, value: 7, extract_answer: true}
    """

    def evaluate(self, sample: Sample) -> Result:
        from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

        config = self.config
        expected_text = _prepare(str(expected_of(sample, config.value)), config)
        actual_text = _prepare(sample.output, config)
        # math-verify bounds sympy with SIGALRM, which only works on the main thread.
        timeout = PARSE_TIMEOUT_S if threading.current_thread() is threading.main_thread() else None
        extraction = [LatexExtractionConfig(), ExprExtractionConfig()]
        gold = parse(expected_text, extraction_config=extraction, parsing_timeout=timeout)
        answer = parse(actual_text, extraction_config=extraction, parsing_timeout=timeout)
        if not gold:
            raise EvaluatorError(f"cannot read the expected answer {quoted(expected_text)} as math")
        if not answer:
            return verdict(False, f"no mathematical answer found in {quoted(sample.output)}")
        details: dict[str, Any] = {"expected_parsed": str(gold[0]), "actual_parsed": str(answer[0])}
        symbolic = config.comparison_mode == "symbolic"
        if symbolic and verify(_exact(gold), _exact(answer), timeout_seconds=timeout):
            return verdict(True, f"{answer[0]} is equivalent to {gold[0]}", mode="symbolic", **details)
        if not symbolic or config.numeric_fallback:
            a, b = _as_float(answer[0]), _as_float(gold[0])
            if a is not None and b is not None:
                difference = abs(a - b)
                # AgentClash's mode_used: "numeric_fallback" when a symbolic comparison fell back
                mode = "numeric_fallback" if symbolic else "numeric"
                details.update(mode=mode, absolute_difference=difference)
                if difference <= config.tolerance:
                    return verdict(True, f"{a:.10g} equals {b:.10g} within {config.tolerance:g}", **details)
                return verdict(
                    False,
                    f"numeric values differ by {difference:.10g}, above the tolerance {config.tolerance:g}",
                    **details,
                )
        return verdict(False, f"{answer[0]} is not equivalent to {gold[0]}", **details)


def _exact(parsed: list[Any]) -> list[Any]:
    """math-verify's parse with every decimal as the exact fraction it writes (``0.3333334`` is
    3333334/10^7), as AgentClash's symbolic comparison reads numbers (``big.Rat``): math-verify
    alone rounds floats to 6 places, which would make 0.3333334 equal 1/3 with no tolerance."""
    from sympy import Basic, Float, Rational

    exact: list[Any] = []
    for item in parsed:
        floats = item.atoms(Float) if isinstance(item, Basic) else set()
        exact.append(item.xreplace({f: Rational(str(f)) for f in floats}) if floats else item)
    return exact


def _as_float(expr: Any) -> float | None:
    try:
        value = complex(expr.evalf()) if hasattr(expr, "evalf") else complex(expr)
    except (TypeError, ValueError, AttributeError):
        return None
    if value.imag or not math.isfinite(value.real):
        return None
    return value.real
