"""Comparisons after normalisation: ``normalized_match`` (a pipeline of steps) and ``fuzzy_match``.

Both follow AgentClash's ``string_validators.go``: the same step names, the default pipeline
``trim, lowercase, collapse_whitespace``, fuzzy similarity ``(len(a)+len(b)-d)/(len(a)+len(b))``
with ``d`` the Levenshtein distance (computed by rapidfuzz) and a default threshold of 0.8.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Literal

from pydantic import Field, model_validator

from bench import Evaluator, EvaluatorError, Result, Sample
from bench.vocabulary import quoted
from bench_deterministic.common import CompareConfig, expected_of, verdict

_WHITESPACE = re.compile(r"\s+")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_CURRENCY = ("$", "€", "£", "¥", "₹", "USD", "EUR", "GBP", "JPY", "INR")
_FORMATTING = str.maketrans("", "", ",()[]")


def collapse_whitespace(text: str) -> str:
    return _WHITESPACE.sub(" ", text)


def strip_punctuation(text: str) -> str:
    """Drop every Unicode punctuation (P*) and symbol (S*) character."""
    return "".join(c for c in text if unicodedata.category(c)[0] not in "PS")


def strip_currency(text: str) -> str:
    for symbol in _CURRENCY:
        text = text.replace(symbol, "")
    return text


def _sort_lines(text: str) -> str:
    return "\n".join(sorted(text.replace("\r\n", "\n").split("\n")))


STEPS: dict[str, Callable[[str], str]] = {
    "trim": str.strip,
    "lowercase": str.casefold,
    "collapse_whitespace": collapse_whitespace,
    "strip_punctuation": strip_punctuation,
    "strip_currency": strip_currency,
    "strip_formatting": lambda s: s.translate(_FORMATTING),
    "normalize_unicode": lambda s: unicodedata.normalize("NFKC", s),
    "remove_articles": lambda s: _ARTICLES.sub(" ", s),
    "sort_words": lambda s: " ".join(sorted(s.split())),
    "sort_lines": _sort_lines,
}
Step = Literal[
    "trim",
    "lowercase",
    "collapse_whitespace",
    "strip_punctuation",
    "strip_currency",
    "strip_formatting",
    "normalize_unicode",
    "remove_articles",
    "sort_words",
    "sort_lines",
]
DEFAULT_PIPELINE: list[Step] = ["trim", "lowercase", "collapse_whitespace"]


def normalize(text: str, pipeline: list[Step]) -> str:
    for step in pipeline:
        text = STEPS[step](text)
    return text


class NormalizedConfig(CompareConfig):
    """Settings of normalized_match."""

    value: str | None = None
    """The expected text."""
    pipeline: list[Step] | None = None
    """Steps applied in order to both sides (default: trim, lowercase, collapse_whitespace)."""
    normalizations: list[Step] | None = None
    """AgentClash's older name for ``pipeline``."""

    @model_validator(mode="after")
    def _one_pipeline(self) -> NormalizedConfig:
        if self.pipeline and self.normalizations:
            raise ValueError("cannot mix pipeline with normalizations")
        return self

    @property
    def steps(self) -> list[Step]:
        return self.pipeline or self.normalizations or DEFAULT_PIPELINE


class NormalizedMatch(Evaluator[NormalizedConfig]):
    """Passes when both sides are equal after the normalisation pipeline.

    Steps: trim, lowercase (Unicode case folding), collapse_whitespace, strip_punctuation
    (Unicode punctuation and symbols), strip_currency, strip_formatting (``,()[]``),
    normalize_unicode (NFKC), remove_articles (a/an/the), sort_words, sort_lines.
    """

    name = "normalized_match"
    Config = NormalizedConfig
    example = """
    name: normalized-match-example
    tasks:
      - id: loose
        response: "  The   Eiffel Tower!  "
        evaluate:
          type: normalized_match
          value: "eiffel tower"
          pipeline: [trim, lowercase, strip_punctuation, remove_articles, collapse_whitespace, trim]
    """

    def evaluate(self, sample: Sample) -> Result:
        steps = self.config.steps
        actual = normalize(sample.output, steps)
        expected = normalize(str(expected_of(sample, self.config.value)), steps)
        details = {"normalized_actual": actual, "normalized_expected": expected, "pipeline": steps}
        if actual == expected:
            return verdict(True, f"equal after {', '.join(steps)}", **details)
        return verdict(False, f"normalized values differ: {quoted(actual)} vs {quoted(expected)}", **details)


MAX_FUZZY_CHARS = 100_000


class FuzzyConfig(CompareConfig):
    """Settings of fuzzy_match."""

    value: str | None = None
    """The expected text."""
    threshold: float = Field(default=0.8, ge=0, le=1)
    """Lowest passing similarity (0..1)."""
    case_insensitive: bool = False
    """Compare with Unicode case folding."""
    normalize: bool = False
    """Trim and collapse whitespace first."""


class FuzzyMatch(Evaluator[FuzzyConfig]):
    """Similarity of the response to the expected text: ``(|a|+|b|-lev(a,b)) / (|a|+|b|)``.

    The score is the similarity; it passes at ``threshold`` (default 0.8). Inputs over 100,000
    characters are an evaluator error (the distance is quadratic).
    """

    name = "fuzzy_match"
    aliases = ("fuzzy",)
    Config = FuzzyConfig
    example = """
    name: fuzzy-match-example
    tasks:
      - id: typo
        response: "Pariss"
        evaluate: {type: fuzzy_match, value: "Paris", threshold: 0.8}
    """

    def evaluate(self, sample: Sample) -> Result:
        from rapidfuzz.distance import Levenshtein

        a, b = sample.output, str(expected_of(sample, self.config.value))
        if self.config.normalize:
            a, b = collapse_whitespace(a.strip()), collapse_whitespace(b.strip())
        if self.config.case_insensitive:
            a, b = a.casefold(), b.casefold()
        if len(a) > MAX_FUZZY_CHARS or len(b) > MAX_FUZZY_CHARS:
            raise EvaluatorError(f"fuzzy_match input too large: more than {MAX_FUZZY_CHARS:,} characters")
        total = len(a) + len(b)
        distance = Levenshtein.distance(a, b)
        similarity = 1.0 if total == 0 else (total - distance) / total
        details = {"similarity": similarity, "distance": distance, "threshold": self.config.threshold}
        passed = similarity >= self.config.threshold
        comparison = "at least" if passed else "below"
        reason = f"similarity {similarity:.4f} {comparison} threshold {self.config.threshold:g}"
        return Result(passed=passed, score=similarity, reason=reason, details=details)
