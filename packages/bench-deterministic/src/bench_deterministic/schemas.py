"""JSON Schema validation with ``jsonschema``: every draft, formats, local ``$ref``, safe patterns.

The draft comes from the schema's ``$schema`` (Draft 2020-12 when absent). Schemas are checked
when the suite is loaded (RELIABILITY D08). ``pattern``, ``patternProperties`` and
``additionalProperties`` match with bench's RE2 matcher instead of backtracking ``re``, so a
user's pattern cannot hang a run (J6, D07). Remote ``$ref`` is refused: bench never fetches.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

from bench import EvaluatorError
from bench_deterministic.patterns import PatternError, compile_pattern


def _search(pattern: str, text: str) -> bool:
    try:
        return compile_pattern(pattern).search(text)
    except PatternError as exc:
        raise EvaluatorError(str(exc)) from None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [k for k in instance if k not in known and not any(_search(p, k) for p in patterns)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(e) for e in sorted(extras))
        yield ValidationError(f"additional properties are not allowed ({listed} unexpected)")


@functools.lru_cache(maxsize=64)
def _validator_class(base: type[Any]) -> type[Any]:
    from jsonschema import validators

    extended: type[Any] = validators.extend(
        base,
        {
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )
    return extended


def _remote_refs(schema: Any) -> Iterator[str]:
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#") and "://" in ref:
                yield ref
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


class Schema:
    """A checked JSON Schema, ready to validate documents."""

    def __init__(self, schema: Any) -> None:
        from jsonschema import SchemaError, validators

        if isinstance(schema, str):
            try:
                schema = json.loads(schema)
            except json.JSONDecodeError as exc:
                raise ValueError(f"the schema is not valid JSON: {exc}") from None
        if not isinstance(schema, (dict, bool)):
            raise ValueError("a JSON Schema is a mapping (or true/false)")
        for ref in _remote_refs(schema):
            raise ValueError(f"remote $ref {ref!r} is refused: bench never fetches schemas")
        base = validators.validator_for(schema, default=validators.Draft202012Validator)
        try:
            base.check_schema(schema)
        except SchemaError as exc:
            where = "/".join(str(p) for p in exc.path) or "the top level"
            raise ValueError(f"invalid JSON Schema at {where}: {exc.message}") from None
        self.schema = schema
        self.draft = base.__name__.replace("Validator", "")
        self._validator = _validator_class(base)(schema, format_checker=base.FORMAT_CHECKER)

    def errors(self, document: Any) -> list[str]:
        """Every violation as ``path: message`` (empty when the document is valid)."""
        from referencing.exceptions import Unresolvable

        try:
            found = sorted(self._validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        except Unresolvable as exc:
            raise EvaluatorError(f"unresolvable $ref in the schema: {exc}") from None
        except RecursionError:
            raise EvaluatorError("the document or schema nests too deeply to validate") from None
        return [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in found]


@functools.lru_cache(maxsize=256)
def _cached(text: str) -> Schema:
    return Schema(json.loads(text))


def schema_from_text(text: str) -> Schema:
    """A schema given as JSON text at run time (``expected_from``); errors are evaluator errors."""
    try:
        return _cached(text)
    except (ValueError, json.JSONDecodeError) as exc:
        raise EvaluatorError(str(exc)) from None
