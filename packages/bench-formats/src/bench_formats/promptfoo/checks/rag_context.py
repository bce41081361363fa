"""The context a RAG check reads: the ``context`` var (a string or a list of strings), as
promptfoo's ``resolveContext`` (``src/assertions/contextUtils.ts``) finds it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import Sample
from bench_formats.promptfoo.checks.base import AssertionInvalid, Call

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
    """The ``context`` var, else ``fallback`` (the evaluator puts a ``contextTransform``'s result
    into the ``context`` var: ``transformed_context``)."""
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


async def transformed_context(
    what: str, assertion: dict[str, Any], sample: Sample, vars_: dict[str, Any], folder: Path | None
) -> str | list[str]:
    """The context a ``contextTransform`` gives (``resolveContext``): JavaScript run in Node.js over
    the response's output, ``{vars, prompt: {label}, metadata}``; a string or a list of strings,
    else promptfoo's error."""
    from bench import EvaluatorError
    from bench_formats.promptfoo import javascript_checks, js_context
    from bench_formats.promptfoo.node_worker import JsError

    code = assertion["contextTransform"]
    if not isinstance(code, str):
        raise AssertionInvalid(f"{what}: a transform is JavaScript text or a file:// path")
    context = js_context.transform_context(sample, vars_)
    label = javascript_checks.transform_label(code)
    failed = f"Failed to transform context using expression '{label}': "
    try:
        request = javascript_checks.transform_request(code, sample.output, context, "output", folder)
        value = javascript_checks.transform_result(code, await javascript_checks.send(what, request))
    except JsError as exc:
        raise AssertionInvalid(failed + exc.message) from None
    except EvaluatorError as exc:  # a null result: promptfoo's error inside the same try
        if not str(exc).startswith("Transform function"):
            raise
        raise AssertionInvalid(failed + str(exc)) from None
    if not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
        raise AssertionInvalid(
            f"{failed}Invariant failed: contextTransform must return a string or array of strings. "
            f"Got {_js_typeof(value)}. Check your transform expression: {label}"
        )
    if not value or (isinstance(value, list) and not all(value)):
        raise AssertionInvalid(_REQUIRED)
    return value
