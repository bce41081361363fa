"""is-json and contains-json, with an optional JSON Schema (``src/assertions/json.ts``)."""

from __future__ import annotations

import json
from typing import Any

from bench import ConfigError
from bench_formats.promptfoo.checks.base import Call, Check, Grade, binary
from bench_formats.yaml12 import load_js_yaml


def _schema(call: Call) -> tuple[Any, Grade | None]:
    """The validator for the assertion's schema, or the failure promptfoo reports for a bad one."""
    import jsonschema

    schema = call.value
    try:
        if isinstance(schema, str):
            schema = load_js_yaml(schema)  # js-yaml's core schema, as promptfoo reads it
        if not isinstance(schema, (dict, bool)):
            raise ValueError(
                f"{call.assertion['type']} assertion must have a string, boolean, or object value"
            )
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        cls.check_schema(schema)
        return cls(schema), None
    except (ValueError, ConfigError, jsonschema.SchemaError) as exc:  # ConfigError: YAML bench refuses
        message = getattr(exc, "message", None) or str(exc)
        return None, Grade(False, 0.0, f"Invalid JSON schema: {message}")


def _has_schema(value: Any) -> bool:
    return value is not None and value != ""


def _errors(validator: Any, instance: Any) -> str:
    return ", ".join(
        f"data{''.join(f'/{p}' for p in e.absolute_path)} {e.message}"
        for e in validator.iter_errors(instance)
    )


def is_json(call: Call) -> Grade:
    try:
        parsed = json.loads(call.output)
        ok = True
    except ValueError:
        ok = False
    passed = ok != call.inverse
    if ok and _has_schema(call.value):
        validator, failure = _schema(call)
        if failure is not None:
            return failure
        valid = validator.is_valid(parsed)
        passed = valid != call.inverse
        if not passed:
            reason = (
                "Output is JSON that conforms to the provided schema"
                if call.inverse
                else f"JSON does not conform to the provided schema. Errors: {_errors(validator, parsed)}"
            )
            return Grade(False, 0.0, reason)
    return binary(passed, "Expected output to be valid JSON")


def extract_json(text: str) -> list[Any]:
    """Every JSON object or array in ``text``, scanning left to right (nested ones are inside the outer)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    i = 0
    while i < len(text):
        if text[i] in "{[":
            try:
                value, end = decoder.raw_decode(text, i)
            except ValueError:
                i += 1
                continue
            found.append(value)
            i = end
        else:
            i += 1
    return found


def contains_json(call: Call) -> Grade:
    values = extract_json(call.output)
    passed = (not values) if call.inverse else bool(values)
    reason = "Expected output to contain valid JSON"
    if values and _has_schema(call.value):
        validator, failure = _schema(call)
        if failure is not None:
            return failure
        for value in values:
            valid = validator.is_valid(value)
            passed = valid != call.inverse
            if valid:
                if call.inverse:
                    reason = "Output contains JSON conforming to the provided schema"
                break
            reason = f"JSON does not conform to the provided schema. Errors: {_errors(validator, value)}"
    return binary(passed, reason)


CHECKS: dict[str, Check] = {"is-json": is_json, "contains-json": contains_json}
