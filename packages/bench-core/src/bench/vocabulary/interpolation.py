"""``${NAME}`` environment-variable interpolation in trusted YAML (suite and definition files).

Only files the suite author wrote are interpolated; data (JSONL task files, recorded responses,
model output) never is, so a row cannot pull a secret into a prompt. A task's ``response:`` is
data too, even inside the suite: it holds what a system produced (often pasted model output,
where ``${x}`` is shell or JavaScript, not a request for a secret). Substitution
works on the composed node tree, before values are built, so an error can name the line, the
column and the field path of the string that refers to an unset variable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bench.vocabulary.errors import FieldPath

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


def interpolate(root: Node, environ: Mapping[str, str] | None = None, at: FieldPath = ()) -> None:
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
