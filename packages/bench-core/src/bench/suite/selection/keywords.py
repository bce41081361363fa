"""``-k EXPR``: a pytest-style expression over a task's id and tags, parsed without ``eval``.

A name matches a task when it is a substring of the task's id or equal to one of its tags
(both case-sensitive); names combine with ``and``, ``or``, ``not`` and parentheses, ``not``
binding tightest and ``or`` loosest, as in pytest. A name is any run of characters other than
whitespace and parentheses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

from bench.vocabulary.errors import ConfigError

#: A compiled expression: ``matches(task_id, tags)``.
Matcher = Callable[[str, Collection[str]], bool]

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")
_OPERATORS = ("and", "or", "not")


@dataclass(frozen=True)
class _Token:
    text: str
    column: int  # 1-based, for messages


def compile_keyword(expression: str) -> Matcher:
    """Compile ``expression``; an invalid one is a ConfigError naming the column of the problem."""
    return _Parser(expression).parse()


class _Parser:
    def __init__(self, expression: str) -> None:
        self.expression = expression
        self.tokens = [_Token(m.group(1), m.start(1) + 1) for m in _TOKEN.finditer(expression)]
        self.at = 0

    def error(self, problem: str) -> ConfigError:
        return ConfigError(f"-k {self.expression!r}: {problem}")

    def peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def parse(self) -> Matcher:
        if not self.tokens:
            raise self.error("the expression is empty")
        matcher = self.parse_or()
        extra = self.peek()
        if extra is not None:
            if extra.text == ")":
                raise self.error(f"unmatched ')' at column {extra.column}")
            raise self.error(f"expected 'and' or 'or' before {extra.text!r} at column {extra.column}")
        return matcher

    def parse_or(self) -> Matcher:
        parts = [self.parse_and()]
        while (token := self.peek()) is not None and token.text == "or":
            self.at += 1
            parts.append(self.parse_and())
        if len(parts) == 1:
            return parts[0]
        return lambda task_id, tags: any(part(task_id, tags) for part in parts)

    def parse_and(self) -> Matcher:
        parts = [self.parse_not()]
        while (token := self.peek()) is not None and token.text == "and":
            self.at += 1
            parts.append(self.parse_not())
        if len(parts) == 1:
            return parts[0]
        return lambda task_id, tags: all(part(task_id, tags) for part in parts)

    def parse_not(self) -> Matcher:
        token = self.peek()
        if token is not None and token.text == "not":
            self.at += 1
            inner = self.parse_not()
            return lambda task_id, tags: not inner(task_id, tags)
        return self.parse_atom()

    def parse_atom(self) -> Matcher:
        token = self.peek()
        if token is None:
            after = f" after {self.tokens[-1].text!r}" if self.tokens else ""
            raise self.error(f"expected a name or '('{after} at the end")
        if token.text == "(":
            self.at += 1
            inner = self.parse_or()
            closing = self.peek()
            if closing is None or closing.text != ")":
                raise self.error(f"'(' at column {token.column} is never closed")
            self.at += 1
            return inner
        if token.text == ")" or token.text in _OPERATORS:
            raise self.error(f"expected a name or '(' at column {token.column}, found {token.text!r}")
        self.at += 1
        name = token.text
        return lambda task_id, tags: name in task_id or name in tags
