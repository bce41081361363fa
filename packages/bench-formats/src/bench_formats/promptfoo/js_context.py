"""What promptfoo hands a config's JavaScript: file references, the output, the ``context`` object.

Kept apart from ``javascript_checks`` (which talks to Node.js) so the evaluator can tell whether a
check is JavaScript without starting anything.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from bench import Sample

FILE = "file://"
_JS_SUFFIXES = (".js", ".cjs", ".mjs", ".ts")


def split_file(value: str) -> tuple[str, str | None]:
    """``file://x.js:fn`` as (``x.js``, ``fn``); the function name is None when absent."""
    reference = value[len(FILE) :] if value.startswith(FILE) else value
    path, colon, name = reference.rpartition(":")
    if colon and len(path) > 1 and name and not name.startswith(("/", "\\")):
        return path, name
    return reference, None


def is_js_file(value: Any) -> TypeGuard[str]:
    """Whether ``value`` is a ``file://`` reference to a JavaScript file (with ``:fn`` or not)."""
    if not isinstance(value, str) or not value.startswith(FILE):
        return False
    return split_file(value)[0].lower().endswith(_JS_SUFFIXES)


def coerce_string(value: Any) -> str:
    """promptfoo's ``coerceString``: a string as is, anything else as ``JSON.stringify``."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _provider(sample: Sample) -> dict[str, Any]:
    metadata = sample.task.metadata
    return {"id": str(metadata.get("provider") or "")}


def _response(sample: Sample) -> dict[str, Any]:
    usage = sample.response.usage
    return {
        "output": sample.output,
        "raw": sample.output,
        "cost": getattr(usage, "cost", None) or 0,
        "cached": False,
        "metadata": dict(sample.response.metadata),
    }


def test_case(sample: Sample, config: Any) -> dict[str, Any]:
    """The row's test as promptfoo's ``context.test`` shows it (defaultTest merged)."""
    metadata = sample.task.metadata
    test: dict[str, Any] = {"vars": config.vars, "assert": config.assert_, "options": config.options}
    if metadata.get("description"):
        test["description"] = metadata["description"]
    test["metadata"] = metadata.get("test") or {}
    if config.test_threshold is not None:
        test["threshold"] = config.test_threshold
    return test


def assertion_context(sample: Sample, assertion: dict[str, Any], config: Any) -> dict[str, Any]:
    """``context`` of a ``javascript`` check (``runAssertion``): prompt, vars, test, provider (whose
    ``id()`` the worker makes a function), providerResponse, the assertion's ``config``, metadata."""
    context: dict[str, Any] = {
        "prompt": sample.task.text,
        "vars": config.vars,
        "test": test_case(sample, config),
        "provider": _provider(sample),
        "providerResponse": _response(sample),
        "metadata": dict(sample.response.metadata),
    }
    if assertion.get("config") is not None:
        context["config"] = assertion["config"]
    return context


def transform_context(
    sample: Sample, variables: dict[str, Any], whole_prompt: bool = False
) -> dict[str, Any]:
    """``context`` of a transform: the vars, the prompt (a test's ``options.transform`` gets the
    prompt's label and text; an assertion's ``transform`` gets ``{label: <rendered prompt>}``, as
    promptfoo passes it) and the response's metadata."""
    if whole_prompt:
        prompt = {"raw": sample.task.text, "label": str(sample.task.metadata.get("prompt") or "")}
    else:
        prompt = {"label": sample.task.text}
    return {"vars": variables, "prompt": prompt, "metadata": dict(sample.response.metadata)}
