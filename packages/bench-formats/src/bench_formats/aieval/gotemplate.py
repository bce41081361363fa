"""The part of Go's ``text/template`` AI Eval prompts use, with ``missingkey=error``.

Supported: text, ``{{.Name}}`` / ``{{.a.b}}`` / ``{{.}}``, ``{{if X}}…{{else}}…{{end}}``,
``{{range X}}…{{else}}…{{end}}``, comments and the ``{{-``/``-}}`` trim markers. Values print as
Go's ``fmt.Print`` does. Any other action (pipelines, functions, variables) raises ``Unsupported``;
errors Go reports (``map has no entry for key``, an unclosed ``{{if}}``) raise ``TemplateError``
with Go's message.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

_ACTION = re.compile(r"\{\{(.*?)\}\}", re.S)
_FIELD = re.compile(r"^\.(?:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?$")


class TemplateError(ValueError):
    """An error Go's text/template reports, worded as Go words it."""


class Unsupported(ValueError):
    """A construct beyond the supported subset: the action as written."""


@dataclass
class _Field:
    path: tuple[str, ...]
    source: str
    pos: int


@dataclass
class _Block:
    kind: str  # "if" | "range" | "root"
    expr: _Field | None
    body: list[Any] = field(default_factory=list)
    otherwise: list[Any] | None = None


def _line_col(text: str, pos: int) -> tuple[int, int]:
    """Go's ErrorContext: the 1-based line and the byte offset in that line."""
    before = text[:pos]
    return before.count("\n") + 1, len(before.rpartition("\n")[2].encode())


def parse(name: str, text: str) -> _Block:
    """The template's tree; raises TemplateError (Go's parse errors) or Unsupported."""
    root = _Block("root", None)
    stack = [root]
    pieces: list[Any] = []  # text and (action, pos) in order, trim markers applied
    last = 0
    for match in _ACTION.finditer(text):
        inner, pos = match.group(1), match.start(1)
        pieces.append(text[last : match.start()])
        if inner[:1] == "-" and inner[1:2].isspace():
            pieces[-1] = pieces[-1].rstrip(" \t\r\n")
            pos += 1
            inner = inner[1:]
        trim_after = inner[-1:] == "-" and inner[-2:-1].isspace()
        if trim_after:
            inner = inner[:-1]
        pieces.append((inner, pos, match.start()))
        last = match.end()
        if trim_after:
            rest = text[last:]
            last += len(rest) - len(rest.lstrip(" \t\r\n"))
    pieces.append(text[last:])
    for piece in pieces:
        if isinstance(piece, str):
            if piece:
                _current(stack).append(piece)
            continue
        inner, pos, start = piece
        lead = len(inner) - len(inner.lstrip())
        words = inner.strip()
        pos += lead
        line = text[:start].count("\n") + 1
        if words.startswith("/*") and words.endswith("*/"):
            continue
        head, _, rest = words.partition(" ")
        if head in ("if", "range"):
            block = _Block(
                head, _field(rest.strip(), inner, pos + len(head) + 1 + (len(rest) - len(rest.lstrip())))
            )
            _current(stack).append(block)
            stack.append(block)
        elif words == "else":
            if len(stack) == 1 or stack[-1].otherwise is not None:
                raise TemplateError(f"template: {name}:{line}: unexpected {{{{else}}}}")
            stack[-1].otherwise = []
        elif words == "end":
            if len(stack) == 1:
                raise TemplateError(f"template: {name}:{line}: unexpected {{{{end}}}}")
            stack.pop()
        else:
            _current(stack).append(_field(words, inner, pos))
    if len(stack) > 1:
        raise TemplateError(f"template: {name}:{text.count(chr(10)) + 1}: unexpected EOF")
    return root


def _current(stack: list[_Block]) -> list[Any]:
    block = stack[-1]
    return block.otherwise if block.otherwise is not None else block.body


def _field(words: str, inner: str, pos: int) -> _Field:
    if not _FIELD.match(words):
        raise Unsupported("{{" + inner + "}}")
    path = tuple(p for p in words.split(".") if p)
    return _Field(path, words, pos)


def execute(name: str, text: str, data: dict[str, Any]) -> str:
    """Parse and run the template on ``data`` (Go's ``Option("missingkey=error")``)."""
    tree = parse(name, text)
    out: list[str] = []
    _run(tree.body, data, out, name, text)
    return "".join(out)


def _run(nodes: list[Any], dot: Any, out: list[str], name: str, text: str) -> None:
    for node in nodes:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, _Field):
            value = _eval(node, dot, name, text)
            out.append("<no value>" if value is None else go_format(value))
        elif node.kind == "if":
            assert node.expr is not None
            branch = node.body if _truth(_eval(node.expr, dot, name, text)) else node.otherwise
            _run(branch or [], dot, out, name, text)
        else:
            assert node.expr is not None
            value = _eval(node.expr, dot, name, text)
            if isinstance(value, dict):
                items = [value[k] for k in sorted(value, key=str)]
            elif isinstance(value, list):
                items = value
            elif value is None:
                items = []
            else:
                raise _exec_error(name, text, node.expr, f"range can't iterate over {go_format(value)}")
            for item in items:
                _run(node.body, item, out, name, text)
            if not items and node.otherwise is not None:
                _run(node.otherwise, dot, out, name, text)


def _eval(node: _Field, dot: Any, name: str, text: str) -> Any:
    value = dot
    for part in node.path:
        if isinstance(value, dict):
            if part not in value:
                raise _exec_error(name, text, node, f'map has no entry for key "{part}"')
            value = value[part]
        elif value is None:
            raise _exec_error(name, text, node, f"nil pointer evaluating interface {{}}.{part}")
        else:
            raise _exec_error(name, text, node, f"can't evaluate field {part} in type {_go_type(value)}")
    return value


def _exec_error(name: str, text: str, node: _Field, message: str) -> TemplateError:
    line, col = _line_col(text, node.pos)
    return TemplateError(f'template: {name}:{line}:{col}: executing "{name}" at <{node.source}>: {message}')


def _truth(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, (bool, int, float, str, list, dict)):
        return bool(value)
    return True


def _go_type(value: Any) -> str:
    return {bool: "bool", int: "int", float: "float64", str: "string", list: "[]interface {}"}.get(
        type(value), "interface {}"
    )


def go_format(value: Any) -> str:
    """``fmt.Sprint(value)`` for values decoded from YAML."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, list):
        return "[" + " ".join(go_format(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "map[" + " ".join(f"{go_format(k)}:{go_format(value[k])}" for k in sorted(value, key=str)) + "]"
        )
    return str(value)


def _go_float(value: float) -> str:
    """Go's ``%v`` for a float64: shortest digits, ``%e`` form when the exponent is < -4 or >= 6."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    mantissa = "".join(map(str, digits))
    exp = len(mantissa) + exponent - 1
    prefix = "-" if sign else ""
    if exp < -4 or exp >= 6:
        tail = f".{mantissa[1:]}" if len(mantissa) > 1 else ""
        return f"{prefix}{mantissa[0]}{tail}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return prefix + format(Decimal(repr(abs(value))).normalize(), "f")
