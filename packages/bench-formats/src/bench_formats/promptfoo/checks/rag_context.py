"""The context a RAG check reads: the ``context`` var (a string or a list of strings), as
promptfoo's ``resolveContext`` (``src/assertions/contextUtils.ts``) finds it."""

from __future__ import annotations

from typing import Any

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Skipped

_REQUIRED = (
    'Context is required for context-based assertions. Provide either a "context" variable '
    '(string or array of strings) in your test case or use "contextTransform" to extract '
    "context from the provider response."
)


def _js_typeof(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else "object"


def context_of(call: Call, vars_: dict[str, Any], fallback: str | None) -> str | list[str]:
    """The ``context`` var, else ``fallback``; a ``contextTransform`` (JavaScript) is skipped."""
    if call.assertion.get("contextTransform") is not None:
        raise Skipped("its contextTransform is JavaScript, which bench does not run")
    value: Any = None
    given = vars_.get("context")
    if given is not None and given is not False and given != "" and given != 0:  # JavaScript truthy
        if isinstance(given, str):
            value = given
        elif isinstance(given, list):
            for index, item in enumerate(given):
                if not isinstance(item, str):
                    found = f"found {_js_typeof(item)} at index {index}"
                    raise AssertionInvalid(f"Invalid context: expected an array of strings, but {found}")
            value = given
    elif fallback:
        value = fallback
    if isinstance(value, str) and value:
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return value
    raise AssertionInvalid(_REQUIRED)


def serialize(context: str | list[str]) -> str:
    """promptfoo's ``serializeContext``: chunks joined by a blank line."""
    return "\n\n".join(context) if isinstance(context, list) else context
