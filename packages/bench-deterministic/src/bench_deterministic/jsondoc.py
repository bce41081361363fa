"""JSON responses: ``is_json``, ``json_schema`` and ``json_path_match``."""

from __future__ import annotations

import functools
import re
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.vocabulary import dumps, loads_strict, quoted
from bench_deterministic.common import CompareConfig, verdict
from bench_deterministic.schemas import Schema, schema_from_text

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


def parse_document(text: str, strip_fences: bool) -> Any:
    """The response as JSON (strict: no NaN, bounded nesting); raise ValueError with the reason."""
    if strip_fences:
        fenced = _FENCE.match(text)
        text = fenced.group(1) if fenced else text
    return loads_strict(text)


class IsJsonConfig(EvaluatorConfig):
    """Settings of is_json."""

    strip_fences: bool = False
    """Accept a response wrapped in a Markdown code fence (```json ... ```)."""


class IsJson(Evaluator[IsJsonConfig]):
    """Passes when the whole response is one valid JSON document (strict: no NaN or Infinity)."""

    name = "is_json"
    aliases = ("is-json", "json_valid")
    Config = IsJsonConfig
    example = """
    name: is-json-example
    tasks:
      - id: object
        response: '{"name": "Ada", "age": 36}'
        evaluate: {type: is_json}
      - id: fenced
        response: "```json\\n[1, 2, 3]\\n```"
        evaluate: {type: is_json, strip_fences: true}
    """

    def evaluate(self, sample: Sample) -> Result:
        try:
            document = parse_document(sample.output, self.config.strip_fences)
        except ValueError as exc:
            return verdict(False, str(exc))
        return verdict(True, f"valid JSON ({type(document).__name__})")


class SchemaConfig(CompareConfig):
    """Settings of json_schema."""

    model_config = ConfigDict(populate_by_name=True)
    value_field = None

    json_schema: Any = Field(default=None, alias="schema")
    """The JSON Schema (any draft; its ``$schema`` picks it, Draft 2020-12 by default)."""
    strip_fences: bool = False
    """Accept a response wrapped in a Markdown code fence."""

    @field_validator("json_schema")
    @classmethod
    def _valid(cls, value: Any) -> Any:
        return None if value is None else Schema(value)

    @model_validator(mode="after")
    def _has_schema(self) -> SchemaConfig:
        if self.json_schema is None and self.expected_from is None:
            raise ValueError("set schema (or expected_from: an evidence reference to a schema)")
        return self


class JsonSchema(Evaluator[SchemaConfig]):
    """Passes when the response is JSON that validates against the schema; every violation is listed."""

    name = "json_schema"
    aliases = ("is-valid-json-schema",)
    expected_block = "schema"
    Config = SchemaConfig
    example = """
    name: json-schema-example
    tasks:
      - id: person
        response: '{"name": "Ada", "email": "ada@example.com"}'
        evaluate:
          type: json_schema
          schema:
            type: object
            required: [name, email]
            properties:
              name: {type: string}
              email: {type: string, format: email}
      - id: ai-eval-block
        response: '{"name": "Ada", "age": 36}'
        expected:
          json_schema: {type: object, required: [name, age], properties: {age: {type: integer}}}
    """

    def evaluate(self, sample: Sample) -> Result:
        schema = self.config.json_schema
        if schema is None:
            if sample.expected is None:
                raise EvaluatorError("no schema: set schema or expected_from")
            schema = schema_from_text(sample.expected)
        try:
            document = parse_document(sample.output, self.config.strip_fences)
        except ValueError as exc:
            return verdict(False, f"the response is not JSON: {exc}")
        errors = schema.errors(document)
        if errors:
            more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
            return verdict(False, "; ".join(errors[:3]) + more, errors=errors, draft=schema.draft)
        return verdict(True, f"valid against the schema ({schema.draft})", draft=schema.draft)


Comparator = Literal["equals", "contains", "greater_than", "less_than", "exists"]


def json_equal(left: Any, right: Any) -> bool:
    """Deep equality where numbers compare by value (1 == 1.0) and booleans are not numbers."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return bool(left == right)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def compare(actual: Any, comparator: str, expected: Any) -> tuple[bool, str]:
    """AgentClash's JSONPath comparators; raise EvaluatorError for a comparison that makes no sense."""
    if comparator == "equals":
        return json_equal(actual, expected), "did not equal the expected value"
    if comparator == "contains":
        if isinstance(actual, str):
            if not isinstance(expected, str):
                raise EvaluatorError("expected value must be a string for the contains comparator")
            return expected in actual, "did not contain the expected substring"
        if isinstance(actual, list):
            return any(
                json_equal(item, expected) for item in actual
            ), "array did not contain the expected value"
        return as_json(expected) in as_json(actual), "did not contain the expected value"
    a, b = _number(actual), _number(expected)
    if a is None:
        raise EvaluatorError(f"the value at the path is not numeric: {quoted(as_json(actual))}")
    if b is None:
        raise EvaluatorError("the expected value is not numeric")
    if comparator == "greater_than":
        return a > b, "was not greater than the expected value"
    return a < b, "was not less than the expected value"


def as_json(value: Any) -> str:
    return dumps(value)


class PathConfig(CompareConfig):
    """Settings of json_path_match."""

    value_field = None

    path: str | None = None
    """A JSONPath (RFC 9535) such as ``$.user.name`` or ``$.items[0].id``; as in AgentClash,
    ``$[name]`` is the property ``name`` and a negative index (``$[-1]``) selects nothing."""
    comparator: Comparator | None = None
    """How the value found compares with ``value`` (default: ``equals`` with a value, else ``exists``)."""
    value: Any = None
    """The expected value (any JSON)."""
    strip_fences: bool = False
    """Accept a response wrapped in a Markdown code fence."""

    @field_validator("path")
    @classmethod
    def _compiles(cls, path: str | None) -> str | None:
        if path is not None:
            compile_path(path)
        return path

    @model_validator(mode="after")
    def _has_path(self) -> PathConfig:
        if self.path is None and self.expected_from is None:
            raise ValueError("set path (or expected_from: an expectation {path, comparator, value})")
        return self


#: A bracket AgentClash's subset reads its own way: a bare name (``$[foo]``) or an integer.
_BRACKET = re.compile(r"\[\s*(-?\d+|[A-Za-z_][A-Za-z0-9_-]*)\s*\]")


def agentclash_path(path: str) -> str | None:
    """The path as RFC 9535 reads AgentClash's subset; None when it can select nothing.

    AgentClash reads ``$[foo]`` as the property ``foo`` and never selects a negative index
    (``$[-1]`` does not exist); everything else is RFC 9535 as python-jsonpath reads it.
    """
    negative = False

    def rewrite(match: re.Match[str]) -> str:
        nonlocal negative
        token = match.group(1)
        if token.lstrip("-").isdigit():
            negative = negative or token.startswith("-")
            return match.group(0)
        return f"['{token}']"

    rewritten = _BRACKET.sub(rewrite, path)
    return None if negative else rewritten


@functools.lru_cache(maxsize=1024)
def compile_path(path: str) -> Any:
    """Compile a JSONPath with python-jsonpath; raise ValueError with its reason."""
    import jsonpath

    try:
        return jsonpath.compile(agentclash_path(path.strip()) or path.strip())
    except jsonpath.JSONPathError as exc:
        raise ValueError(f"invalid JSONPath {path!r}: {exc}") from None


def _expectation(sample: Sample, config: PathConfig) -> tuple[str, str, Any]:
    if config.path is not None:
        comparator = config.comparator or ("exists" if config.value is None else "equals")
        return config.path, comparator, config.value
    raw = (sample.expected or "").strip()
    if raw.startswith("$"):
        return raw, "exists", None
    try:
        spec = loads_strict(raw)
    except ValueError as exc:
        raise EvaluatorError(f"the json_path_match expectation is not JSON: {exc}") from None
    if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
        raise EvaluatorError('the json_path_match expectation needs {"path": "$...", ...}')
    comparator = spec.get("comparator") or ("exists" if spec.get("value") is None else "equals")
    if comparator not in ("equals", "contains", "greater_than", "less_than", "exists"):
        raise EvaluatorError(f"unsupported comparator {comparator!r}")
    return spec["path"], comparator, spec.get("value")


class JsonPathMatch(Evaluator[PathConfig]):
    """Finds a value in the JSON response by JSONPath and compares it (AgentClash's comparators).

    Comparators: ``equals`` (numbers by value), ``contains`` (substring, array member, or within
    the value's JSON), ``greater_than``, ``less_than``, ``exists``. A path that can select several
    values (wildcards, filters, ``..``) compares the list of what it selected.
    """

    name = "json_path_match"
    aliases = ("jsonpath",)
    Config = PathConfig
    example = """
    name: json-path-match-example
    tasks:
      - id: nested
        response: '{"user": {"name": "Ada", "langs": ["en", "fr"], "age": 36}}'
        evaluate:
          - {type: json_path_match, path: "$.user.name", value: "Ada"}
          - {type: json_path_match, path: "$.user.langs", comparator: contains, value: "fr"}
          - {type: json_path_match, path: "$.user.age", comparator: greater_than, value: 18}
      - id: agentclash-form
        response: '{"status": "ok"}'
        evaluate:
          type: json_path_match
          expected_from: 'literal:{"path": "$.status", "comparator": "equals", "value": "ok"}'
    """

    def evaluate(self, sample: Sample) -> Result:
        path, comparator, expected = _expectation(sample, self.config)
        try:
            document = parse_document(sample.output, self.config.strip_fences)
        except ValueError as exc:
            return verdict(False, f"the response is not JSON: {exc}")
        try:
            query = compile_path(path)
        except ValueError as exc:
            raise EvaluatorError(str(exc)) from None
        found = query.findall(document) if agentclash_path(path.strip()) is not None else []
        details = {"path": path, "comparator": comparator, "expected": expected}
        if not found:
            passed = False
            return verdict(passed, f"{path} did not resolve to a value", **details)
        actual = found[0] if query.singular_query() else found
        details["actual"] = actual
        if comparator == "exists":
            return verdict(True, f"{path} exists", **details)
        passed, why = compare(actual, comparator, expected)
        if passed:
            return verdict(True, f"{path} {comparator} {quoted(as_json(expected))}", **details)
        return verdict(False, f"{path} = {quoted(as_json(actual))} {why}", **details)
