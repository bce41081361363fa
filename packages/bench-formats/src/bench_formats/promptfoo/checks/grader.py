"""The grading model and how a grading prompt is filled and sent, as promptfoo does it."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from bench import EvaluatorError
from bench.llm import LLMRequest
from bench_formats.promptfoo.checks.base import Call, Grade, js_string, js_stringify
from bench_formats.promptfoo.providers import DEFAULT_EMBEDDING, DEFAULT_GRADER, model_name


def _provider_id(provider: Any, kind: str) -> str | None:
    if isinstance(provider, str):
        return provider
    if isinstance(provider, dict):
        if isinstance(provider.get(kind), (str, dict)):
            return _provider_id(provider[kind], kind)
        if isinstance(provider.get("id"), str):
            return str(provider["id"])
    return None


def provider_id(assertion: dict[str, Any], options: dict[str, Any], kind: str = "text") -> str:
    """promptfoo's id of the grader: the assertion's ``provider``, else ``options.provider``,
    else promptfoo's default."""
    chosen = _provider_id(assertion.get("provider"), kind) or _provider_id(options.get("provider"), kind)
    return chosen or (DEFAULT_EMBEDDING if kind == "embedding" else DEFAULT_GRADER)


def grader(assertion: dict[str, Any], options: dict[str, Any], kind: str = "text") -> str:
    """The litellm model: the assertion's ``provider``, else ``options.provider``, else the default."""
    provider = provider_id(assertion, options, kind)
    model = model_name(provider)
    if model is None:  # an id litellm does not know: give it as written (a model name, a route)
        return provider
    return model


def parsed(text: str) -> Any:
    """promptfoo's ``tryParse``: the JSON value of ``text``, else ``text``."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def template_value(value: Any) -> str:
    """How promptfoo's grading template shows a value: objects as JSON, arrays as JavaScript
    joins them (object items as JSON), ``null`` as nothing."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return js_stringify(value)
    if isinstance(value, list):
        return ",".join(js_stringify(v) if isinstance(v, dict | list) else template_value(v) for v in value)
    return js_string(value)


def render(template: str, values: dict[str, str]) -> str:
    """Fill ``{{name}}`` fields in one pass (a value's own braces stay as they are)."""
    return re.sub(r"\{\{(\w+)\}\}", lambda m: values.get(m.group(1), ""), template)


def to_fixed(number: float, digits: int = 2) -> str:
    """JavaScript's ``number.toFixed(digits)``: a tie rounds away from zero."""
    return str(Decimal(number).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))


async def ask(call: Call, options: dict[str, Any], prompt: str, kind: str, index: int = 0) -> str | None:
    """Send a rendered grading prompt as promptfoo's chat providers do (one user message);
    the reply's text, or ``None`` when it has none."""
    if call.sample.llm is None:
        raise EvaluatorError(f"promptfoo {kind}: no LLM client in this run")
    if options.get("rubricPrompt"):
        # A custom grading prompt asks something else: grading with promptfoo's default would not
        # be the same check, so there is no verdict rather than a different one.
        raise EvaluatorError(f"promptfoo {kind}: options.rubricPrompt is not supported by bench yet")
    request = LLMRequest(
        model=grader(call.assertion, options),
        messages=[{"role": "user", "content": prompt}],
        purpose="judge",
        index=index,
    )
    result = await call.sample.llm.complete(request)
    return result.text or None


#: A model-graded check: the assertion, the test's ``options`` and the row's vars.
Graded = Callable[[Call, dict[str, Any], dict[str, Any]], Awaitable[Grade]]
