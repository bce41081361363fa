"""Mocked tools: canned answers to a model's tool calls, chosen by tool name and arguments.

The ``litellm`` target hands a ``MockToolbox`` to the tool loop when a suite or task gives
``tool_mocks``. The first mock whose name is the call's and whose ``match`` the arguments
contain answers: its ``error`` text when set, else its ``template`` filled with the arguments,
else its ``response``. A call no mock answers gets ``no tool mock for "NAME"``, so the model can
read it and go on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, quote_plus

from bench.vocabulary.models import ToolMock
from bench.vocabulary.tool_calls import decode_arguments
from bench.workspace.tools import ToolResult


def matches(match: Any, actual: Any) -> bool:
    """Whether ``actual`` has what ``match`` asks: a mapping's keys (a subset), a list's items in
    order (same length), a number's value (``1`` matches ``1.0``), anything else equal."""
    if match is None:
        return actual is None
    if _number(match):
        return _number(actual) and float(match) == float(actual)
    if isinstance(match, dict):
        return isinstance(actual, dict) and all(
            k in actual and matches(v, actual[k]) for k, v in match.items()
        )
    if isinstance(match, list):
        return (
            isinstance(actual, list)
            and len(match) == len(actual)
            and all(matches(m, a) for m, a in zip(match, actual, strict=True))
        )
    return type(match) is type(actual) and match == actual


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def response_text(response: Any) -> str:
    """A mock's response as the tool's result: text as it is, anything else as compact JSON."""
    if isinstance(response, str):
        return response
    return json.dumps(response, ensure_ascii=False, separators=(",", ":"))


_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")
_ENCODINGS = {
    "json": lambda value: _compact(value),
    "query": lambda value: quote_plus(_text(value), safe=""),
    "path": lambda value: quote(_text(value), safe="$&+:=@"),
}


def fill_template(template: Any, arguments: dict[str, Any]) -> Any:
    """``template`` with each string's ``${REF}`` filled from the call's ``arguments``.

    A string that is exactly ``${parameters}`` becomes all the arguments; elsewhere ``REF`` is
    ``parameters`` or a dotted path whose first name is an argument, written as text (a string
    as it is, anything else as JSON), or ``json:REF`` as JSON, ``query:REF`` / ``path:REF``
    URL-escaped. A reference that names nothing stays as written; a ``${`` never closed leaves
    the whole template unfilled.
    """
    if any("${" in _PLACEHOLDER.sub("", s) for s in _strings(template)):
        return template
    return _fill(template, arguments)


def _fill(value: Any, arguments: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        return {key: _fill(item, arguments) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, arguments) for item in value]
    if not isinstance(value, str):
        return value
    if value == "${parameters}":
        return arguments
    return _PLACEHOLDER.sub(lambda m: _reference(m.group(1), arguments, m.group(0)), value)


def _reference(expression: str, arguments: dict[str, Any], written: str) -> str:
    encoding, _, reference = expression.partition(":")
    if encoding not in _ENCODINGS:
        encoding, reference = "", expression
    found, value = _lookup(reference, arguments)
    if not found:
        return written
    return _ENCODINGS[encoding](value) if encoding else _text(value)


def _lookup(reference: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    if reference == "parameters":
        return True, arguments
    if reference.startswith("secrets."):  # a mock has no secrets to give
        return False, None
    current: Any = arguments
    for name in reference.split("."):
        if not isinstance(current, dict) or name not in current:
            return False, None
        current = current[name]
    return True, current


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else _compact(value)


def _compact(value: Any) -> str:
    """JSON without spaces, keys sorted."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class MockToolbox:
    """The tool calls' answers from a list of mocks (the tool loop's ``workbench``)."""

    def __init__(self, mocks: Sequence[ToolMock]) -> None:
        self.mocks = list(mocks)

    async def call(self, name: str, arguments: Any) -> ToolResult:
        """The first matching mock's answer; never raises."""
        if isinstance(arguments, str):
            arguments = decode_arguments(arguments)
        for mock in self.mocks:
            if mock.name.strip() != name:
                continue
            if mock.match and not matches(mock.match, arguments):
                continue
            if mock.error is not None and mock.error.strip():
                return ToolResult(mock.error, True)
            if mock.template is not None:
                filled = fill_template(mock.template, arguments if isinstance(arguments, dict) else {})
                return ToolResult(_compact(filled), False)
            return ToolResult(response_text(mock.response), False)
        return ToolResult(f"no tool mock for {json.dumps(name)}", True)


__all__ = ["MockToolbox", "fill_template", "matches", "response_text"]
