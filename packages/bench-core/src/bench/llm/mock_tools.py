"""Mocked tools: canned answers to a model's tool calls, chosen by tool name and arguments.

The ``litellm`` target hands a ``MockToolbox`` to the tool loop when a suite or task gives
``tool_mocks``. The first mock whose name is the call's and whose ``match`` the arguments
contain answers: its ``error`` text when set, else its ``response``. A call no mock answers
gets ``no tool mock for "NAME"``, so the model can read it and go on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

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
            return ToolResult(response_text(mock.response), False)
        return ToolResult(f"no tool mock for {json.dumps(name)}", True)


__all__ = ["MockToolbox", "matches", "response_text"]
