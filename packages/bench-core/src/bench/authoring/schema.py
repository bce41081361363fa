"""The JSON Schema of the suite file, for editors: the suite's pydantic models plus every
installed evaluator type's ``Config``.

An evaluator entry is accepted in every form the binder reads: a name, ``{file: PATH}``, a
mapping whose ``type:`` is a registered type (checked against that type's settings), and any
other mapping (a type inferred from its keys, ``not-TYPE``, youBencha's ``{name:, config:}``),
which the schema leaves for ``bench validate`` to judge rather than refuse a valid suite.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from bench.plugins.registry import Registry
from bench.suite.file_model import EvaluatorCommon, SuiteFile, TaskSpec

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_ENTRY = "#/$defs/EvaluatorEntry"


def suite_schema(registry: Registry) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a suite file with ``registry``'s evaluator types."""
    types = {provided.name: provided.cls.Config for provided in registry.evaluators.values()}
    configs = sorted(set(types.values()), key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
    models: list[type[BaseModel]] = [SuiteFile, TaskSpec, EvaluatorCommon, *configs]
    refs, schema = models_json_schema([(model, "validation") for model in models])
    defs: dict[str, Any] = schema["$defs"]

    def definition(model: type[BaseModel]) -> dict[str, Any]:
        found: dict[str, Any] = defs[refs[(model, "validation")]["$ref"].rsplit("/", 1)[1]]
        return found

    common = definition(EvaluatorCommon)["properties"]
    branches = [
        _typed_entry(name, config, definition(config), common) for name, config in sorted(types.items())
    ]
    defs["EvaluatorEntry"] = {
        "description": "An evaluator: a name, {file: PATH}, or a mapping of settings.",
        "anyOf": [
            {"type": "string", "description": "A named evaluator or a registered type."},
            {
                "type": "object",
                "properties": {"file": {"type": "string", "description": "An evaluator definition file."}},
                "required": ["file"],
                "additionalProperties": False,
            },
            *branches,
            {
                "type": "object",
                "not": {
                    "anyOf": [
                        {"required": ["file"]},
                        {"required": ["type"], "properties": {"type": {"enum": sorted(types)}}},
                    ]
                },
                "description": "A type inferred from the settings, 'not-TYPE', or a youBencha form.",
            },
        ],
    }
    task = definition(TaskSpec)["properties"]
    entry = {"$ref": _ENTRY}
    task["evaluate"] = {"anyOf": [entry, {"type": "array", "items": entry}, {"type": "null"}]}
    task["evaluators"] = {"anyOf": [{"type": "array", "items": entry}, {"type": "null"}]}
    top = dict(definition(SuiteFile))
    del defs[refs[(SuiteFile, "validation")]["$ref"].rsplit("/", 1)[1]]
    top["properties"]["evaluators"] = {"type": "object", "additionalProperties": {"$ref": _ENTRY}}
    top["properties"]["tasks"] = {
        "anyOf": [
            {"type": "array", "items": refs[(TaskSpec, "validation")]},
            {"type": "string", "description": "A JSON Lines or YAML file of tasks."},
        ]
    }
    return {"$schema": SCHEMA_DIALECT, **top, "title": "bench suite", "$defs": defs}


def _typed_entry(
    name: str, model: type[BaseModel], config: dict[str, Any], common: dict[str, Any]
) -> dict[str, Any]:
    """The entry of one registered type: its settings flat, or anything under ``config:``.

    No setting is required here: a task's ``expected:`` block or ``expected_from:`` may fill it.
    A setting a validator converts before checking (a name for ``{name: ...}``) takes any value.
    """
    loose = _converted_fields(model)
    own = {
        key: ({"description": value["description"]} if "description" in value else {})
        if key in loose or "*" in loose
        else value
        for key, value in config.get("properties", {}).items()
    }
    flat: dict[str, Any] = {"properties": {**common, **own, "type": {"const": name}}}
    if config.get("additionalProperties") is False:
        flat["additionalProperties"] = False
    nested = {"required": ["config"], "properties": {"config": {"type": "object"}}}
    return {
        "type": "object",
        "title": name,
        "description": config.get("description", ""),
        "properties": {"type": {"const": name}},
        "required": ["type"],
        "anyOf": [nested, flat],
    }


def _converted_fields(model: type[BaseModel]) -> set[str]:
    """Fields a before, wrap or plain validator sees raw (``*``: a model validator sees all)."""
    decorators = model.__pydantic_decorators__
    fields = {
        field
        for validator in decorators.field_validators.values()
        if validator.info.mode != "after"
        for field in validator.info.fields
    }
    if any(v.info.mode != "after" for v in decorators.model_validators.values()):
        fields.add("*")
    return fields
