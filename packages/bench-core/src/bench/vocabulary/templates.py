"""The one template renderer: ``{name}`` placeholders, substituted in a single pass.

Only ``{identifier}`` (or a dotted ``{a.b}``) is a placeholder, so JSON and code in a prompt
are left alone; ``{{name}}`` writes a literal ``{name}``. Values are inserted verbatim and never
re-scanned, so a response containing ``{expected}`` cannot pull other values in.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

_TOKEN = re.compile(r"\{\{([A-Za-z_][\w.]*)\}\}|\{([A-Za-z_][\w]*(?:\.\w+)*)\}")


class MissingPlaceholder(KeyError):
    """A placeholder names a value that was not given."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def placeholders(template: str) -> list[str]:
    """The placeholder names in a template, in order of first appearance."""
    names: dict[str, None] = {}
    for match in _TOKEN.finditer(template):
        if match.group(2):
            names.setdefault(match.group(2))
    return list(names)


def _lookup(values: Mapping[str, Any], name: str) -> Any:
    head, _, rest = name.partition(".")
    if head not in values:
        raise MissingPlaceholder(name)
    value = values[head]
    for part in rest.split(".") if rest else ():
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        else:
            raise MissingPlaceholder(name)
    return value


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        import json

        return json.dumps(value, ensure_ascii=False)
    return str(value)


def fill(
    template: str, values: Mapping[str, Any], quote: Callable[[str], str] | None = None
) -> tuple[str, list[str]]:
    """Like ``render``, but what names no value is left as written, ``{{name}}`` included (it
    becomes ``{name}`` only where ``name`` is a value): the text, and the names left (for a
    warning rather than an error). ``quote`` is applied to each value inserted (``re.escape``
    for a pattern)."""
    left: list[str] = []

    def substitute(match: re.Match[str]) -> str:
        if match.group(1):
            known = match.group(1).partition(".")[0] in values
            return "{" + match.group(1) + "}" if known else match.group(0)
        try:
            text = _text(_lookup(values, match.group(2)))
        except MissingPlaceholder:
            left.append(match.group(2))
            return match.group(0)
        return quote(text) if quote else text

    return (_TOKEN.sub(substitute, template) if "{" in template else template), left


def render(template: str, values: Mapping[str, Any]) -> str:
    """Substitute every placeholder; raise ``MissingPlaceholder`` for a name not in ``values``."""
    if "{" not in template:
        return template

    def substitute(match: re.Match[str]) -> str:
        if match.group(1):
            return "{" + match.group(1) + "}"
        return _text(_lookup(values, match.group(2)))

    return _TOKEN.sub(substitute, template)


def render_repeated(template: str, values: Mapping[str, Any]) -> str:
    """``render`` for a template filled again and again (a judge's prompt, once per call): the
    template is split into its text and placeholders once, then each call only joins. A template
    filled once is faster through ``render``."""
    if "{" not in template:
        return template
    texts, names = _split(template)
    out = [texts[0]]
    for name, text in zip(names, texts[1:], strict=True):
        out.append(_text(_lookup(values, name)))
        out.append(text)
    return "".join(out)


@functools.lru_cache(maxsize=64)
def _split(template: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The template's text between placeholders (``{{name}}`` already written as ``{name}``) and
    the placeholders' names: one more text than names."""
    texts: list[str] = []
    names: list[str] = []
    text, last = "", 0
    for match in _TOKEN.finditer(template):
        text += template[last : match.start()]
        last = match.end()
        if match.group(1):
            text += "{" + match.group(1) + "}"
        else:
            texts.append(text)
            names.append(match.group(2))
            text = ""
    texts.append(text + template[last:])
    return tuple(texts), tuple(names)
