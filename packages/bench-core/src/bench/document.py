"""Safe YAML loading that keeps positions, reads scalars the YAML 1.2 way and refuses hostile input.

PyYAML's defaults surprise users (docs/reliability.md, section A): duplicate keys are silently merged,
``NO`` becomes ``False``, ``010`` becomes 8, deep nesting raises ``RecursionError`` and an alias
bomb expands to millions of nodes. This module fixes each of those and keeps the composed node
tree so that any later error can name the line and column of the field it is about.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bench.vocabulary.errors import ConfigError, FieldPath

# ``${NAME}`` environment-variable interpolation in trusted YAML (suite and definition files).
# Only files the suite author wrote are interpolated; data (JSONL task files, recorded responses,
# model output) never is, so a row cannot pull a secret into a prompt. A task's ``response:`` is
# data too, even inside the suite: it holds what a system produced. Substitution works on the
# composed node tree, before values are built, so an error can name the line, the column and the
# field path of the string that refers to an unset variable.

_STR_TAG = "tag:yaml.org,2002:str"
#: ``$${`` (an escaped literal ``${``), or ``${`` with what follows up to the closing brace.
_REFERENCE = re.compile(r"\$\$\{|\$\{([^}]*)(\}?)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class InterpolationError(Exception):
    """A string refers to an unset variable, or holds a malformed ``${...}``."""

    def __init__(self, message: str, node: Node, field: FieldPath) -> None:
        super().__init__(message)
        self.node = node
        self.field = tuple(field)


def substitute(text: str, environ: Mapping[str, str]) -> str:
    """Replace each ``${NAME}`` with the variable's value and ``$${`` with ``${``.

    Raises ``LookupError`` (message ready for the user) for an unset variable or a malformed
    reference.
    """

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        name, closed = match.group(1), match.group(2)
        if not closed or not _NAME.fullmatch(name):
            raise LookupError(
                f"'{match.group(0)}' is not an environment variable reference: write ${{NAME}} "
                "(letters, digits, _) or $${ for a literal ${"
            )
        value = environ.get(name)
        if value is None:
            raise LookupError(f"environment variable {name} is not set (write $${{{name}}} for a literal)")
        return value

    return _REFERENCE.sub(replace, text)


def is_data(field: FieldPath) -> bool:
    """Whether a suite field holds data that is never interpolated: a task's recorded response."""
    return len(field) == 3 and field[0] == "tasks" and isinstance(field[1], int) and field[2] == "response"


def interpolate_variables(root: Node, environ: Mapping[str, str] | None = None, at: FieldPath = ()) -> None:
    """Substitute variables in every string value under ``root``, except keys and ``is_data``.

    ``at`` is the field path of ``root`` in its document.
    """
    env = os.environ if environ is None else environ
    done: set[int] = set()  # aliases share nodes: substitute each once
    stack: list[tuple[Node, FieldPath]] = [(root, tuple(at))]
    while stack:
        node, field = stack.pop()
        if id(node) in done or is_data(field):
            continue
        done.add(id(node))
        if isinstance(node, ScalarNode):
            if node.tag == _STR_TAG and "${" in node.value:
                try:
                    node.value = substitute(node.value, env)
                except LookupError as exc:
                    raise InterpolationError(str(exc), node, field) from None
        elif isinstance(node, SequenceNode):
            children = [(child, (*field, i)) for i, child in enumerate(node.value)]
            stack.extend(reversed(children))  # reversed: report the first problem in the file
        elif isinstance(node, MappingNode):
            entries = [
                (value, (*field, key.value if isinstance(key, ScalarNode) else "?"))
                for key, value in node.value
            ]
            stack.extend(reversed(entries))


MAX_DEPTH = 64
MAX_ALIAS_EXPANSION = 1_000_000
MIB = 1024 * 1024

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class UnreadableFile(Exception):
    """A file that cannot be read as text; the message says why in a few words."""


class Problem(Exception):
    """Refused YAML content, with the node it is about."""

    def __init__(self, message: str, node: Node) -> None:
        super().__init__(message)
        self.node = node


class Loader(_BaseLoader):  # type: ignore[misc]
    """Safe loader with YAML 1.2 core-schema scalars and duplicate-key detection."""

    def construct_mapping(self, node: Node, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            first_seen: dict[str, Node] = {}
            for key_node, _ in node.value:
                if isinstance(key_node, ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                    earlier = first_seen.setdefault(key_node.value, key_node)
                    if earlier is not key_node:
                        line = earlier.start_mark.line + 1
                        raise Problem(f"duplicate key '{key_node.value}' (first at line {line})", key_node)
        result: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return result

    def construct_yaml_int(self, node: ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        sign = -1 if text.startswith("-") else 1
        digits = text.lstrip("+-")
        if digits.startswith("0o"):
            return sign * int(digits[2:], 8)
        if digits.startswith("0x"):
            return sign * int(digits[2:], 16)
        return sign * int(digits, 10)

    def construct_undefined(self, node: Node) -> Any:
        tag = node.tag.replace("tag:yaml.org,2002:", "!!")
        raise Problem(f"unknown tag '{tag}'", node)


Loader.add_constructor("tag:yaml.org,2002:int", Loader.construct_yaml_int)
Loader.add_constructor(None, Loader.construct_undefined)
# Replace YAML 1.1 implicit typing (yes/no/on/off booleans, octal 010, sexagesimal numbers,
# timestamps) with the YAML 1.2 core schema.
Loader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    (
        "tag:yaml.org,2002:int",
        r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$",
        list("-+0123456789"),
    ),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", ["<"]),
]:
    Loader.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _refuse_unless_small_regular(info: os.stat_result, max_bytes: int) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise UnreadableFile("is a directory")
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableFile("is not a regular file")
    if info.st_size > max_bytes:
        raise UnreadableFile(f"larger than {max_bytes // MIB} MiB")


def check_regular_file(path: Path, *, max_bytes: int) -> None:
    """Refuse what is not a readable regular file of at most ``max_bytes`` (without opening it)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise UnreadableFile("no such file") from None
    except OSError as exc:
        raise UnreadableFile(exc.strerror or str(exc)) from None
    _refuse_unless_small_regular(info, max_bytes)
    if not os.access(path, os.R_OK):
        raise UnreadableFile("permission denied")


def read_text(path: Path, *, max_bytes: int = 10 * MIB) -> str:
    """Read a UTF-8 text file (a BOM is allowed) without ever blocking or reading a huge file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UnreadableFile("no such file") from None
    except PermissionError:
        raise UnreadableFile("permission denied") from None
    except OSError as exc:
        raise UnreadableFile(exc.strerror or str(exc)) from None
    try:
        _refuse_unless_small_regular(os.fstat(fd), max_bytes)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"not UTF-8 text (invalid byte at offset {exc.start})") from None


def _children(node: Node) -> Iterator[Node]:
    if isinstance(node, SequenceNode):
        yield from node.value
    elif isinstance(node, MappingNode):
        for key, value in node.value:
            yield key
            yield value


def check_shape(root: Node, text: str, depth: int = 1) -> None:
    """Refuse nesting deeper than MAX_DEPTH and alias expansion beyond MAX_ALIAS_EXPANSION.

    ``depth`` is the nesting level of ``root`` itself (1 for a document's root).
    """
    sizes: dict[int, int] = {}
    stack: list[tuple[Node, int, bool]] = [(root, depth, False)]
    aliases = "*" in text
    while stack:
        node, depth, done = stack.pop()
        if done:
            if aliases:
                sizes[id(node)] = 1 + sum(sizes.get(id(c), 1) for c in _children(node))
            continue
        if isinstance(node, ScalarNode):
            if aliases:
                sizes[id(node)] = 1
            continue
        if aliases and id(node) in sizes:
            continue
        if depth > MAX_DEPTH:
            raise Problem(f"nested deeper than {MAX_DEPTH} levels", node)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in _children(node))
    if aliases and sizes[id(root)] - len(sizes) > MAX_ALIAS_EXPANSION:
        raise Problem(f"expands to more than {MAX_ALIAS_EXPANSION:,} nodes through aliases", root)


@dataclass
class YamlDocument:
    """Loaded YAML data plus the node tree that says where each value was written."""

    path: Path
    data: Any
    root: Node | None

    def mark(self, field: FieldPath) -> tuple[int, int] | None:
        """1-based (line, column) of the deepest node the field path reaches."""
        node = self.root
        found: Node | None = node
        for i, part in enumerate(field):
            if isinstance(node, MappingNode):
                for key_node, value_node in node.value:
                    if isinstance(key_node, ScalarNode) and key_node.value == str(part):
                        found = key_node if i == len(field) - 1 else value_node
                        node = value_node
                        break
                else:
                    break
            elif isinstance(node, SequenceNode) and isinstance(part, int) and part < len(node.value):
                node = node.value[part]
                found = node
            else:
                break
        if found is None:
            return None
        return found.start_mark.line + 1, found.start_mark.column + 1

    def line(self, field: FieldPath) -> int | None:
        """The 1-based line of ``mark(field)`` (what an evaluator's origin names)."""
        where = self.mark(field)
        return where[0] if where else None

    def error(self, message: str, field: FieldPath = ()) -> ConfigError:
        """A ConfigError naming this file, the field and where it was written."""
        where = self.mark(field)
        line, column = where if where else (None, None)
        return ConfigError(message, file=self.path, line=line, column=column, field=field)


def load_yaml(
    path: Path,
    *,
    max_bytes: int = 256 * MIB,
    text: str | None = None,
    interpolate: bool = False,
    loader: type[Any] | None = None,
) -> YamlDocument:
    """Load one YAML document safely; every problem is a ConfigError with file, line and column.

    ``interpolate`` substitutes ``${NAME}`` environment variables in string values: only for
    trusted files (the suite, its definition files), never for data. ``loader`` (a subclass of
    PyYAML's ``SafeLoader`` or ``CSafeLoader``) reads scalars as another tool does; nesting deeper
    than MAX_DEPTH and alias bombs are refused whichever reads them.
    """
    if text is None:
        try:
            text = read_text(path, max_bytes=max_bytes)
        except UnreadableFile as exc:
            raise ConfigError(str(exc), file=path) from None
    reader = (loader or Loader)(text)
    try:
        with reported(path, text):
            root = reader.get_single_node()
            if root is None:
                return YamlDocument(path, None, None)
            check_shape(root, text)
            if interpolate and "${" in text:
                interpolate_variables(root)
            data = reader.construct_document(root)
    finally:
        reader.dispose()
    return YamlDocument(path, data, root)


#: How much text before a LibYAML error the Python parser reads again to place a nesting error.
_RESCAN_LIMIT = MIB


def _first_too_deep(text: str) -> Any:
    """Where (a yaml Mark) the first collection deeper than MAX_DEPTH starts, read from the
    pure-Python parser's events (LibYAML scans a flow collection ahead and fails at its own limit
    before giving any); None if there is none."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return event.start_mark
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None
    return None


@contextmanager
def reported(path: Path, text: str | None = None) -> Iterator[None]:
    """Turn every problem met while reading YAML into a ConfigError naming file, line and column.

    With the ``text`` that was read, nesting beyond MAX_DEPTH that LibYAML refuses on its own
    (near 1,000 levels, with its own message), or that exhausts the pure-Python composer's
    recursion, is reported where it passes MAX_DEPTH.
    """
    try:
        yield
    except InterpolationError as exc:
        mark = exc.node.start_mark
        raise ConfigError(
            str(exc), file=path, line=mark.line + 1, column=mark.column + 1, field=exc.field
        ) from None
    except Problem as exc:
        mark = exc.node.start_mark
        raise ConfigError(str(exc), file=path, line=mark.line + 1, column=mark.column + 1) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        too_deep = (
            _first_too_deep(text[: mark.index + 1]) if text and mark and mark.index < _RESCAN_LIMIT else None
        )
        if too_deep is not None:
            raise ConfigError(
                f"nested deeper than {MAX_DEPTH} levels",
                file=path,
                line=too_deep.line + 1,
                column=too_deep.column + 1,
            ) from None
        message = exc.problem or "invalid YAML"
        if exc.context:
            ctx = exc.context_mark
            at = f" (line {ctx.line + 1}, column {ctx.column + 1})" if ctx else ""
            message = f"{exc.context}{at}: {message}"
        line = mark.line + 1 if mark else None
        column = mark.column + 1 if mark else None
        raise ConfigError(message, file=path, line=line, column=column) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML: {exc}", file=path) from None
    except RecursionError:  # the pure-Python composer of a SafeLoader recurses once a level
        too_deep = _first_too_deep(text[:_RESCAN_LIMIT]) if text else None
        line, column = (too_deep.line + 1, too_deep.column + 1) if too_deep is not None else (None, None)
        raise ConfigError(
            f"nested deeper than {MAX_DEPTH} levels", file=path, line=line, column=column
        ) from None
