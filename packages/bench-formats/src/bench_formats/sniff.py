"""What a suite file's top level holds, read cheaply: loaders decide from it whether a file is theirs.

Every registered loader asks before the native one, so this must not parse a large native suite:
YAML is scanned line by line for unindented keys in its first ``HEAD_BYTES`` of content (comment
and blank lines are not counted, and any line ending is read); JSON is parsed only when small.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from bench import ConfigError, load_yaml

HEAD_BYTES = 256 * 1024
#: JSON files up to this size are parsed whole; larger ones have their top-level keys scanned.
PARSE_LIMIT = 4 * 1024 * 1024
#: A YAML line is read in pieces of at most this many characters.
_PIECE = 64 * 1024
YAML_SUFFIXES = {".yaml", ".yml"}
JSON_SUFFIXES = {".json"}
#: An unindented ``key:`` line, the key double-quoted, single-quoted or plain.
_KEY = re.compile(
    r"""^(?:"([^"\n]*)"|'([^'\n]*)'|([^\s#'"\-?:,\[\]{}&*!|>%@`][^:#\n]*?))[ \t]*:(?:[ \t]|$)"""
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
        if suffix in JSON_SUFFIXES:
            return _json_top_keys(path, size)
        if suffix in YAML_SUFFIXES:
            return _yaml_top_keys(path, size)
    except OSError:
        pass
    return frozenset()


def _json_top_keys(path: str, size: int) -> frozenset[str]:
    with open(path, "rb") as handle:
        text = handle.read(PARSE_LIMIT).decode("utf-8-sig", errors="replace")
    if size > PARSE_LIMIT:
        return _json_keys(text)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return frozenset()
    return frozenset(data) if isinstance(data, dict) else frozenset()


def _yaml_top_keys(path: str, size: int) -> frozenset[str]:
    keys = _yaml_keys(path)
    if keys or size > PARSE_LIMIT:
        return keys
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        text = handle.read()
    try:  # a flow-style document: `{prompts: [...], tests: [...]}`, read under bench's limits
        data = load_yaml(Path(path), text=text).data
    except ConfigError:
        return frozenset()
    return frozenset(str(k) for k in data) if isinstance(data, dict) else frozenset()


def _yaml_keys(path: str) -> frozenset[str]:
    """The unindented ``key:`` lines of a YAML file, up to ``HEAD_BYTES`` of content.

    Universal newlines make ``\r\n`` and ``\r`` line ends read as ``\n``; a line is read in
    pieces, and only the first piece of a line can hold a key.
    """
    keys: set[str] = set()
    budget = HEAD_BYTES
    at_line_start = True
    skipped = False  # the line being read is a comment or blank: it costs nothing
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        while budget > 0:
            piece = handle.readline(_PIECE)
            if not piece:
                break
            if at_line_start:
                stripped = piece.lstrip()
                skipped = not stripped or stripped.startswith("#")
                match = None if skipped else _KEY.match(piece)
                if match is not None:
                    keys.add(next(k for k in match.groups() if k is not None).strip())
            at_line_start = piece.endswith("\n")
            if not skipped:
                budget -= len(piece)
    return frozenset(keys)


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


def near_miss(keys: frozenset[str], needed: Sequence[str], what: str) -> tuple[float, str] | None:
    """For a loader's ``declines``: how near a file with top-level ``keys`` is to ``what``, a
    format whose files have every key in ``needed``, and what it lacks (None: none of them)."""
    missing = [key for key in needed if key not in keys]
    if len(missing) == len(needed) or not missing:
        return None
    nearness = 1 - len(missing) / len(needed)
    return nearness, f"{what} has top-level {listed(needed)}; this file lacks {listed(missing)}"


def listed(keys: Sequence[str]) -> str:
    """``'a', 'b' and 'c'``."""
    quoted = [f"'{key}'" for key in keys]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
