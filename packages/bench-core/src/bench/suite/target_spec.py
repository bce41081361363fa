"""``--target SPEC``: a target type name (``echo``) or an inline YAML mapping with ``type``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from bench.vocabulary.errors import ConfigError

USAGE = "give a target type name (echo) or a mapping with 'type' ('{type: recorded, file: answers.jsonl}')"


def parse_target(spec: str | Mapping[str, Any]) -> dict[str, Any]:
    """The target mapping ``spec`` stands for; a ConfigError that says what is wrong otherwise."""
    if isinstance(spec, Mapping):
        value: Any = dict(spec)
    else:
        try:
            value = yaml.safe_load(spec)
        except yaml.YAMLError as exc:
            problem = getattr(exc, "problem", None) or "not valid YAML"
            raise ConfigError(f"--target: {problem}: {USAGE}") from None
    if isinstance(value, str) and value.strip():
        return {"type": value.strip()}
    if isinstance(value, dict):
        kind = value.get("type")
        if not isinstance(kind, str) or not kind:
            raise ConfigError(f"--target: the mapping has no 'type': {USAGE}")
        return value
    raise ConfigError(f"--target: got {spec!r}: {USAGE}")
