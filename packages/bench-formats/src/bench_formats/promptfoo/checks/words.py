"""word-count (``src/assertions/wordCount.ts``): an exact count or a ``{min, max}`` range."""

from __future__ import annotations

import re

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, binary, js_string


def count_words(text: str) -> int:
    """Whitespace-separated words, as promptfoo's ``countWords``."""
    return len([w for w in re.split(r"\s+", text.strip()) if w])


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip() or "0")  # Number(" ") is 0 in JavaScript
        except ValueError:
            return None
    return None


def word_count(call: Call) -> Grade:
    value, inv = call.value, call.inverse
    if value is None:
        raise AssertionInvalid('"word-count" assertion must have a value')
    count = count_words(call.output)
    if isinstance(value, dict):
        low, high = value.get("min"), value.get("max")
        if low is None and high is None:
            raise AssertionInvalid('"word-count" assertion object must have "min" and/or "max" properties')
        lo, hi = js_string(low), js_string(high)
        if low is not None and high is not None:
            if low > high:
                raise AssertionInvalid(
                    f'"word-count" assertion: min ({lo}) must be less than or equal to max ({hi})'
                )
            ok = low <= count <= high
            failure = (
                f"Expected word count to not be between {lo} and {hi}, but got {count}"
                if inv
                else f"Word count {count} is not between {lo} and {hi}"
            )
        elif low is None:
            ok = high is not None and count <= high
            failure = (
                f"Expected word count to be greater than {hi}, but got {count}"
                if inv
                else f"Word count {count} is greater than maximum {hi}"
            )
        else:
            ok = count >= low
            failure = (
                f"Expected word count to be less than {lo}, but got {count}"
                if inv
                else f"Word count {count} is less than minimum {lo}"
            )
        return binary(ok != inv, failure)
    expected = _number(value)
    if expected is None or isinstance(value, list):
        raise AssertionInvalid(
            '"word-count" assertion value must be a number or an object with min/max properties'
        )
    shown = js_string(expected)
    failure = (
        f"Expected word count to not equal {shown}, but got {count}"
        if inv
        else f"Word count {count} does not equal expected {shown}"
    )
    return binary((count == expected) != inv, failure)


CHECKS: dict[str, Check] = {"word-count": word_count}
