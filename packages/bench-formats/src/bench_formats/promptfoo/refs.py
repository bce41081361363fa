"""``$ref: '#/...'`` pointers inside a config (``assertionTemplates``), replaced by what they name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import ConfigError

MAX_DEPTH = 32


def dereference(config: dict[str, Any], path: Path) -> dict[str, Any]:
    """The config with every local ``$ref`` replaced by the value its JSON pointer names."""
    result = _walk(config, config, path, 0)
    assert isinstance(result, dict)
    return result


def _walk(value: Any, root: dict[str, Any], path: Path, depth: int) -> Any:
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str):
            if depth > MAX_DEPTH:
                raise ConfigError(f"'$ref: {ref}' refers to itself", file=path)
            return _walk(_resolve(ref, root, path), root, path, depth + 1)
        return {key: _walk(item, root, path, depth) for key, item in value.items()}
    if isinstance(value, list):
        return [_walk(item, root, path, depth) for item in value]
    return value


def _resolve(ref: str, root: dict[str, Any], path: Path) -> Any:
    if not ref.startswith("#/"):
        raise ConfigError(
            f"'$ref: {ref}': bench follows only references inside the config ('#/...')", file=path
        )
    node: Any = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise ConfigError(f"'$ref: {ref}' names nothing in the config", file=path)
    return node


def dereference_value(value: Any, root: dict[str, Any], path: Path) -> Any:
    """One value (a test read from a file) with its ``$ref`` pointers resolved against the config."""
    return _walk(value, root, path, 0)
