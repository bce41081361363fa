"""is-valid-openai-tools-call and is-valid-openai-function-call (``src/assertions/openai.ts``,
``functionToolCall.ts``): the output's tool calls validated against the provider's ``tools`` or
``functions`` (their JSON Schema ``parameters``). promptfoo ignores ``not-`` on both.

The output is the response's tool calls when the target recorded some, else the output parsed
as JSON (a list of calls, or an object with ``tool_calls`` / ``function_call``). The provider's
config reaches the evaluator as ``options.provider_config`` (``id``, ``tools``, ``functions``),
which the promptfoo loader writes for rows with these checks.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, binary, js_stringify

#: promptfoo providers without ``validateFunctionToolCall`` (the ones bench maps).
_NO_FUNCTION_CHECK = ("echo", "exec:", "file://")


def _config(call: Call) -> dict[str, Any]:
    config = call.options.get("provider_config")
    if not isinstance(config, dict):
        raise AssertionInvalid(
            "bench does not know the provider's tools and functions (options.provider_config), "
            "so it cannot validate the call"
        )
    return config


def _output(call: Call) -> Any:
    calls = call.sample.response.tool_calls
    if calls:
        return [
            {
                "type": "function",
                "function": {
                    "name": c.name,
                    "arguments": c.arguments if isinstance(c.arguments, str) else js_stringify(c.arguments),
                },
            }
            for c in calls
        ]
    try:
        parsed = json.loads(call.output)
    except ValueError:
        return call.output
    return parsed if isinstance(parsed, (list, dict)) else call.output


def _validate(function: dict[str, Any], functions: Any) -> None:
    """promptfoo's ``validateFunctionCall``; raises ``ValueError`` with its message."""
    import jsonschema

    if isinstance(function, dict) and "function_call" in function:
        function = function["function_call"]
    if (
        not isinstance(function, dict)
        or not isinstance(function.get("name"), str)
        or not isinstance(function.get("arguments"), str)
    ):
        raise ValueError(f"OpenAI did not return a valid-looking function call: {js_stringify(function)}")
    name = function["name"]
    try:
        arguments = json.loads(function["arguments"])
    except ValueError as exc:
        raise ValueError(f"Unexpected token in JSON: {exc}") from None
    schema = next(
        (f.get("parameters") for f in functions or [] if isinstance(f, dict) and f.get("name") == name),
        None,
    )
    if not schema:
        raise ValueError(f'Called "{name}", but there is no function with that name')
    validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)(schema)
    errors = [
        {"instancePath": "".join(f"/{p}" for p in e.absolute_path), "message": e.message}
        for e in validator.iter_errors(arguments)
    ]
    if errors:
        raise ValueError(f'Call to "{name}" does not match schema: {js_stringify(errors)}')


def tools_call(call: Call) -> Grade:
    config = _config(call)
    if "MCP Tool Result" in call.output or "MCP Tool Error" in call.output:
        if "MCP Tool Error" in call.output:
            found = re.search(r"MCP Tool Error \(([^)]+)\): (.+)", call.output)
            name, error = (found.group(1), found.group(2)) if found else ("unknown", "unknown error")
            return Grade(False, 0.0, f"MCP tool call failed for {name}: {error}")
        found = re.search(r"MCP Tool Result \(([^)]+)\):", call.output)
        return Grade(True, 1.0, f"MCP tool call succeeded for {found.group(1) if found else 'unknown'}")
    output = _output(call)
    if isinstance(output, dict) and "tool_calls" in output:
        output = output["tool_calls"]
    looks_valid = (
        isinstance(output, list)
        and output
        and all(
            isinstance(c, dict)
            and isinstance(c.get("function"), dict)
            and isinstance(c["function"].get("name"), str)
            and isinstance(c["function"].get("arguments"), str)
            for c in output
        )
    )
    if not looks_valid:
        return binary(False, f"OpenAI did not return a valid-looking tools response: {js_stringify(output)}")
    tools = config.get("tools")
    if not tools:
        return binary(False, "No tools configured in provider, but output contains tool calls")
    functions = [
        t["function"]
        for t in tools
        if isinstance(t, dict) and t.get("type") == "function" and "function" in t
    ]
    try:
        for tool_call in output:
            _validate(tool_call["function"], functions)
    except ValueError as exc:
        return binary(False, str(exc))
    return binary(True, "")


def function_call(call: Call) -> Grade:
    config = _config(call)
    if str(config.get("id", "")).startswith(_NO_FUNCTION_CHECK):
        return binary(False, "Provider does not have functionality for checking function call.")
    output = _output(call)
    if isinstance(output, list) and output and isinstance(output[0], dict) and "function" in output[0]:
        output = output[0]["function"]  # a recorded tool call stands for the function call
    try:
        _validate(output, config.get("functions"))
    except ValueError as exc:
        return binary(False, str(exc))
    return binary(True, "")


CHECKS: dict[str, Check] = {
    "is-valid-openai-tools-call": tools_call,
    "is-valid-openai-function-call": function_call,
}
