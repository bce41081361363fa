"""The one JSON writer every report and store line goes through: strict and always valid UTF-8."""

from __future__ import annotations

import json
from typing import Any


def dumps(value: Any) -> str:
    """Serialize to strict JSON (no NaN/Infinity); lone surrogates are escaped, never written raw."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text


MAX_DEPTH = 256


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """Parse one JSON document from an untrusted source; raise ValueError with a plain reason.

    ``NaN``/``Infinity`` are rejected, integers longer than Python allows say "number too long",
    and nesting deeper than ``max_depth`` is refused (RELIABILITY J1, J2, D09, D10).
    """
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError(f"nesting deeper than {max_depth} levels") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    except ValueError as exc:
        if "digits" in str(exc):
            raise ValueError("number too long (more than 4,300 digits)") from None
        raise
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            raise ValueError(f"nesting deeper than {max_depth} levels")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return value
