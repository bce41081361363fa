"""AI Eval's YAML decoding: ``yaml.v3`` into Go structs, unknown keys dropped (with a warning here).

AI Eval decodes with ``yaml.Unmarshal`` (not strict), so a key its structs do not name is silently
ignored. bench keeps that, and says which keys were dropped. YAML is read with YAML 1.2's booleans
(``yes``/``no``/``on``/``off`` stay strings), as ``yaml.v3`` reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import ConfigError
from bench_formats.reading import yaml_data
from bench_formats.yaml12 import Yaml12BoolLoader

#: "str", "bool", "int", "float", "map", "any", "strlist", or ("list" | "struct" | "mapof", Schema).
Kind = Any
Schema = dict[str, Kind]

VARIABLE: Schema = {"name": "str", "required": "bool", "default": "str"}
TOOL: Schema = {"name": "str", "description": "str", "input_schema": "map"}
PROMPT: Schema = {
    "name": "str",
    "version": "str",
    "description": "str",
    "template": "str",
    "variables": ("list", VARIABLE),
    "tools": ("list", TOOL),
    "metadata": "map",
    "is_system_prompt": "bool",
}
TOOL_CALL: Schema = {"name": "str", "args_match": "map", "order": "int", "required": "bool"}
EXPECTED: Schema = {
    "exact_match": "str",
    "contains": "strlist",
    "not_contains": "strlist",
    "regex": "strlist",
    "json_schema": "map",
    "tool_calls": ("list", TOOL_CALL),
}
EVALUATOR: Schema = {
    "type": "str",
    "criteria": "str",
    "rubric": "strlist",
    "score_scale": "int",
    "reference": "str",
    "ground_truth": "str",
    "score_threshold": "float",
    "context": "str",
    "question": "str",
    "task": "str",
    "criteria_list": "strlist",
    "expected_tools": "strlist",
    "max_steps": "int",
    "max_tokens": "int",
    "categories": "strlist",
}
TOOL_MOCK: Schema = {"name": "str", "response": "str", "error": "str", "match": "map"}
CASE: Schema = {
    "id": "str",
    "description": "str",
    "input": "map",
    "expected": ("struct", EXPECTED),
    "evaluators": ("list", EVALUATOR),
    "trials": "int",
    "tool_mocks": ("list", TOOL_MOCK),
    "max_steps": "int",
}
SUITE: Schema = {
    "suite": "str",
    "prompt": "str",
    "description": "str",
    "is_system_prompt": "bool",
    "cases": ("list", CASE),
}
PROVIDER: Schema = {"api_key": "str", "base_url": "str", "model": "str"}
CONFIG: Schema = {
    "llm": ("struct", {"default_provider": "str", "providers": ("mapof", PROVIDER)}),
    "evaluation": (
        "struct",
        {
            "trials": "int",
            "threshold": "float",
            "output_format": "str",
            "concurrency": "int",
            "timeout": "any",
        },
    ),
    "storage": ("struct", {"type": "str", "path": "str"}),
}


def read_yaml(path: Path, what: str) -> Any:
    """The file's YAML data; ``what`` (``testcase``, ``prompt``, ``config``) prefixes a read error as
    AI Eval does; YAML errors and bench's limits (nesting, aliases) are bench's, with line and column."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f'{what}: read "{path}": {exc.strerror or exc}', file=path) from None
    return yaml_data(path, text, Yaml12BoolLoader)  # bench's YAML errors and limits


_GO_TAG = {str: "!!str", bool: "!!bool", int: "!!int", float: "!!float", list: "!!seq", dict: "!!map"}


class Decoder:
    """Decodes YAML data into plain dicts shaped like AI Eval's structs (every field present)."""

    def __init__(self, path: Path, what: str, warn: Callable[[str], None]) -> None:
        self.path = path
        self.what = what
        self.warn = warn

    def struct(self, value: Any, schema: Schema, where: str) -> dict[str, Any]:
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise self._mismatch(value, "struct", where)
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = str(key)
            if name not in schema:
                self.warn(
                    f"{self.path}: {where or 'top level'}: unknown key '{name}' dropped (AI Eval ignores it)"
                )
                continue
            out[name] = self.value(item, schema[name], f"{where}.{name}" if where else name)
        for name, kind in schema.items():
            out.setdefault(name, self.zero(kind))
        return out

    def value(self, value: Any, kind: Kind, where: str) -> Any:
        if isinstance(kind, tuple):
            shape, inner = kind
            if shape == "struct":
                return self.struct(value, inner, where)
            if value is None:
                return [] if shape == "list" else {}
            if shape == "list":
                if not isinstance(value, list):
                    raise self._mismatch(value, "list", where)
                return [
                    self.struct(item, inner, _label(item, inner, f"{where}[{i}]"))
                    for i, item in enumerate(value)
                ]
            if not isinstance(value, dict):
                raise self._mismatch(value, "map", where)
            return {str(k): self.struct(v, inner, f"{where}.{k}") for k, v in value.items()}
        if value is None or kind == "any":
            return self.zero(kind) if value is None else value
        if kind == "str":
            if isinstance(value, (dict, list)):
                raise self._mismatch(value, "string", where)
            return _scalar_text(value)
        if kind == "bool":
            if not isinstance(value, bool):
                raise self._mismatch(value, "bool", where)
            return value
        if kind == "int":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
                raise self._mismatch(value, "int", where)
            return int(value)
        if kind == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise self._mismatch(value, "float64", where)
            return float(value)
        if kind == "map":
            if not isinstance(value, dict):
                raise self._mismatch(value, "map[string]interface {}", where)
            return {str(k): v for k, v in value.items()}
        # strlist
        if not isinstance(value, list):
            raise self._mismatch(value, "[]string", where)
        return [self.value(item, "str", f"{where}[{i}]") for i, item in enumerate(value)]

    @staticmethod
    def zero(kind: Kind) -> Any:
        """Go's zero value of a field (None for maps: AI Eval tells a missing ``input`` from ``{}``)."""
        if isinstance(kind, tuple):
            shape, inner = kind
            if shape == "struct":
                return {name: Decoder.zero(sub) for name, sub in inner.items()}
            return [] if shape == "list" else {}
        return {"str": "", "bool": False, "int": 0, "float": 0.0, "strlist": []}.get(kind)

    def _mismatch(self, value: Any, into: str, where: str) -> ConfigError:
        tag = _GO_TAG.get(type(value), "!!str")
        return ConfigError(
            f'{self.what}: parse "{self.path}": {where}: cannot unmarshal {tag} into {into}', file=self.path
        )


def _label(item: Any, schema: Schema, where: str) -> str:
    """``cases[0] (its-id)``, ``evaluators[1] (contains)``: a list item, named as AI Eval names it."""
    for key in ("id", "type"):
        value = item.get(key) if isinstance(item, dict) else None
        if key in schema and isinstance(value, (str, int, float)) and value != "":
            return f"{where} ({_scalar_text(item[key])})"
    return where


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
