"""What a suite file's top level holds, read cheaply: loaders decide from it whether a file is theirs.

Every registered loader asks before the native one, so this must not parse a large native suite:
YAML is scanned for unindented keys in its first ``HEAD_BYTES``; JSON is parsed only when small.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from bench import ConfigError, load_yaml

HEAD_BYTES = 256 * 1024
#: JSON files up to this size are parsed whole; larger ones have their top-level keys scanned.
PARSE_LIMIT = 4 * 1024 * 1024
YAML_SUFFIXES = {".yaml", ".yml"}
JSON_SUFFIXES = {".json"}
#: An unindented ``key:`` line, the key double-quoted, single-quoted or plain.
_KEY = re.compile(
    r"""^(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#'"\-?:,\[\]{}&*!|>%@`][^:#\n]*?))[ \t]*:(?:[ \t]|$)""", re.M
)


def top_keys(path: Path) -> frozenset[str]:
    """The keys of the file's top-level mapping (empty when it is not a readable mapping)."""
    try:
        stat = path.stat()
    except OSError:
        return frozenset()
    return _top_keys(str(path.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _top_keys(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    suffix = Path(path).suffix.lower()
    try:
        with open(path, "rb") as handle:
            head = handle.read(PARSE_LIMIT if suffix in JSON_SUFFIXES else HEAD_BYTES)
    except OSError:
        return frozenset()
    text = head.decode("utf-8", errors="replace")
    if suffix in JSON_SUFFIXES:
        if size <= PARSE_LIMIT:
            try:
                data = json.loads(text)
            except (ValueError, RecursionError):
                return frozenset()
            return frozenset(data) if isinstance(data, dict) else frozenset()
        return _json_keys(text)
    if suffix in YAML_SUFFIXES:
        keys = frozenset(next(k for k in m.groups() if k is not None).strip() for m in _KEY.finditer(text))
        if keys or size > PARSE_LIMIT:
            return keys
        try:  # a flow-style document: `{prompts: [...], tests: [...]}`, read under bench's limits
            data = load_yaml(Path(path), text=text).data
        except ConfigError:
            return frozenset()
        return frozenset(str(k) for k in data) if isinstance(data, dict) else frozenset()
    return frozenset()


def _json_keys(text: str) -> frozenset[str]:
    """The keys at depth 1 of a large JSON object, from its head."""
    keys: set[str] = set()
    depth = 0
    i = 0
    decoder = json.JSONDecoder()
    while i < len(text):
        char = text[i]
        if char == '"':
            try:
                value, end = decoder.raw_decode(text, i)
            except ValueError:
                break
            rest = text[end : end + 64].lstrip()
            if depth == 1 and rest.startswith(":"):
                keys.add(str(value))
            i = end
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        i += 1
    return frozenset(keys)
