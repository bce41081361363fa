"""Nunjucks' ``{% for %}`` on Jinja2: what a loop iterates, given how many names it binds.

Nunjucks (``compileFor``) iterates a mapping only when the loop binds several names, as its keys
and values (``{% for k, v in obj %}``; a third name is undefined); a loop with one name over a
mapping runs its ``else`` branch. Over a list, several names take each row's items by position
(missing ones undefined). A null value, or a number, iterates nothing. Jinja2 iterates a mapping's keys and
unpacks each key, so every ``for`` of a parsed template is rewritten to pass its iterable through
``nunjucks_iterable`` first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from jinja2 import Environment, Undefined, nodes, pass_environment

#: The filter's name: no template can write it (a hyphen), so it never clashes with a user's.
FILTER = "nunjucks-for"


def install(env: Environment) -> None:
    """Make ``env`` able to compile templates that ``rewrite`` returns."""
    env.filters[FILTER] = nunjucks_iterable


def rewrite(template: nodes.Template) -> nodes.Template:
    """``template`` with each ``for`` loop's iterable passed through ``nunjucks_iterable``."""
    for loop in template.find_all(nodes.For):
        names = len(loop.target.items) if isinstance(loop.target, nodes.Tuple) else 1
        loop.iter = nodes.Filter(loop.iter, FILTER, [nodes.Const(names)], [], None, None, lineno=loop.lineno)
    return template


@pass_environment
def nunjucks_iterable(env: Environment, value: Any, names: int) -> Iterable[Any]:
    """What Nunjucks iterates for ``value`` in a loop that binds ``names`` names."""
    if isinstance(value, str) and names > 1:  # not an array to Nunjucks: its indices and characters
        value = {str(index): char for index, char in enumerate(value)}
    if isinstance(value, Mapping):
        if names == 1:
            return ()
        extra = tuple(env.undefined() for _ in range(names - 2))
        return [(key, item, *extra) for key, item in value.items()]
    if isinstance(value, Undefined) or not isinstance(value, Iterable):
        return ()  # null, a number: nothing to iterate
    if names == 1:
        return value
    return [tuple(_at(row, position, env) for position in range(names)) for row in value]


def _at(row: Any, position: int, env: Environment) -> Any:
    """``row[position]`` as JavaScript reads it: undefined past the end or on a non-list."""
    if isinstance(row, (list, tuple, str)) and position < len(row):
        return row[position]
    return env.undefined()
