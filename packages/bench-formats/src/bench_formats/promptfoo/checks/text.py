"""Text checks: equals, contains and its list forms, starts-with, regex, levenshtein
(``src/assertions/equals.ts``, ``contains.ts``, ``startsWith.ts``, ``regex.ts``, ``levenshtein.ts``)."""

from __future__ import annotations

import json
import re
from typing import Any

from bench_formats.promptfoo.checks.base import (
    AssertionInvalid,
    Call,
    Check,
    Grade,
    binary,
    js_string,
    js_stringify,
)
from bench_formats.promptfoo.checks.jsregex import compile_js


def equals(call: Call) -> Grade:
    value, out, inv = call.value, call.output, call.inverse
    if isinstance(value, (dict, list)):
        try:
            equal = _deep_equal(value, json.loads(out))
        except ValueError:
            equal = False
        shown = js_stringify(value)
    else:
        equal = js_string(value) == out
        shown = js_string(value)
    passed = equal != inv
    return binary(passed, f'Expected output "{out}" to {"not " if inv else ""}equal "{shown}"')


def _deep_equal(a: Any, b: Any) -> bool:
    # util.isDeepStrictEqual: 1 and 1.0 are the same number in JavaScript, True is not 1.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b and _same_shape(a, b)


def _same_shape(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and all(_deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and all(_deep_equal(x, y) for x, y in zip(a, b, strict=True))
    return True


def _needle(call: Call, name: str) -> str:
    value = call.value
    ok = (isinstance(value, str) and value != "") or (
        isinstance(value, (int, float)) and not isinstance(value, bool)
    )
    if not ok:
        raise AssertionInvalid(f'"{name}" assertion type must have a string or number value')
    return js_string(value)


def _contains(name: str, fold: bool) -> Check:
    def check(call: Call) -> Grade:
        needle = _needle(call, name)
        out = call.output
        found = needle.lower() in out.lower() if fold else needle in out
        passed = found != call.inverse
        return binary(passed, f'Expected output to {"not " if call.inverse else ""}contain "{needle}"')

    return check


def split_quoted(value: str) -> list[str]:
    """promptfoo's ``parseCommaSeparatedValues``: commas split, ``"quoted, items"`` stay whole."""
    items: list[str] = []
    i, n = 0, len(value)
    while i < n:
        while i < n and (value[i].isspace() or value[i] == ","):
            i += 1
        if i >= n:
            break
        if value[i] == '"':
            i, field, closed = i + 1, "", False
            while i < n:
                if value[i] == "\\" and i + 1 < n and value[i + 1] in '"\\':
                    field, i = field + value[i + 1], i + 2
                elif value[i] == '"' and i + 1 < n and value[i + 1] == '"':
                    field, i = field + '"', i + 2
                elif value[i] == '"':
                    i, closed = i + 1, True
                    break
                else:
                    field, i = field + value[i], i + 1
            if not closed:
                raise AssertionInvalid("Unterminated quoted field in contains assertion value")
            items.append(field)
            while i < n and value[i].isspace():
                i += 1
            if i < n and value[i] != ",":
                raise AssertionInvalid("Expected comma after quoted field in contains assertion value")
        else:
            end = value.find(",", i)
            end = n if end < 0 else end
            items.append(value[i:end].strip())
            i = end
    return items


def _items(call: Call, name: str, quoted: bool) -> list[Any]:
    value = call.value
    if not value and value != 0:
        raise AssertionInvalid(f'"{name}" assertion type must have a value')
    if isinstance(value, str):
        value = split_quoted(value) if quoted else [part.strip() for part in value.split(",")]
    if not isinstance(value, list):
        raise AssertionInvalid(f'"{name}" assertion type must have an array value')
    return value


def _contains_any(name: str, fold: bool) -> Check:
    def check(call: Call) -> Grade:
        items = _items(call, name, quoted=name == "contains-any")
        out = call.output.lower() if fold else call.output
        found = any((js_string(v).lower() if fold else js_string(v)) in out for v in items)
        passed = found != call.inverse
        shown = ", ".join(js_string(v) for v in items)
        not_ = "not " if call.inverse else ""
        return binary(passed, f'Expected output to {not_}contain one of "{shown}"')

    return check


def _contains_all(name: str, fold: bool) -> Check:
    def check(call: Call) -> Grade:
        items = _items(call, name, quoted=False)
        out = call.output.lower() if fold else call.output
        missing = [js_string(v) for v in items if (js_string(v).lower() if fold else js_string(v)) not in out]
        passed = (not missing) != call.inverse
        shown = ", ".join(js_string(v) for v in items)
        not_ = "not " if call.inverse else ""
        return binary(
            passed, f"Expected output to {not_}contain all of [{shown}]. Missing: [{', '.join(missing)}]"
        )

    return check


def starts_with(call: Call) -> Grade:
    if not isinstance(call.value, str) or not call.value:
        raise AssertionInvalid('"starts-with" assertion type must have a string value')
    passed = call.output.startswith(call.value) != call.inverse
    return binary(passed, f'Expected output to {"not " if call.inverse else ""}start with "{call.value}"')


def regex(call: Call) -> Grade:
    if not isinstance(call.value, str) or not call.value:
        raise AssertionInvalid('"regex" assertion type must have a string value')
    try:
        pattern = compile_js(call.value)
    except re.error as exc:
        return Grade(False, 0.0, f"Invalid regex pattern: {exc}")
    passed = (pattern.search(call.output) is not None) != call.inverse
    return binary(passed, f'Expected output to {"not " if call.inverse else ""}match regex "{call.value}"')


def levenshtein(call: Call) -> Grade:
    if not isinstance(call.value, str):
        raise AssertionInvalid('"levenshtein" assertion type must have a string value')
    threshold = call.assertion.get("threshold")
    limit = 5 if threshold is None else threshold  # ``?? 5``: a threshold of 0 stays 0
    distance = edit_distance(call.output, call.value)
    relation = "less than or equal to" if call.inverse else "greater than"
    return binary(
        (distance <= limit) != call.inverse,
        f"Levenshtein distance {distance} is {relation} threshold {js_string(limit)}",
    )


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance over UTF-16 code units, as ``fastest-levenshtein`` counts them."""
    from rapidfuzz.distance import Levenshtein

    return int(Levenshtein.distance(_utf16(a), _utf16(b)))


def _utf16(text: str) -> str | list[int]:
    """The text's UTF-16 code units: the text itself when each character is one unit (a lone
    surrogate, which JSON can carry, is one unit as in JavaScript)."""
    encoded = text.encode("utf-16-le", errors="surrogatepass")
    if len(encoded) == 2 * len(text):
        return text
    return list(memoryview(encoded).cast("H"))


CHECKS: dict[str, Check] = {
    "equals": equals,
    "contains": _contains("contains", fold=False),
    "icontains": _contains("icontains", fold=True),
    "contains-any": _contains_any("contains-any", fold=False),
    "icontains-any": _contains_any("icontains-any", fold=True),
    "contains-all": _contains_all("contains-all", fold=False),
    "icontains-all": _contains_all("icontains-all", fold=True),
    "starts-with": starts_with,
    "regex": regex,
    "levenshtein": levenshtein,
}
