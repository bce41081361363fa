"""Settings models whose fields are described by their attribute docstrings, read on demand.

pydantic's ``use_attribute_docstrings`` reads each class's source as the class is created; bench
defines dozens of settings types (evaluators, targets, ``llm:``) of which a run uses a few, so
reading them all at import cost about 60 ms a start. ``Documented`` reads them when a model's
schema is first built, parsing each source file once.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import linecache
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, GetCoreSchemaHandler
from pydantic_core import CoreSchema


def describe_fields(model: type[Documented]) -> None:
    """Set each field's unset ``description`` to its attribute docstring in the ``Documented``
    class that declared it, as ``use_attribute_docstrings`` would. Cheap after the first call."""
    for name, info in model.__pydantic_fields__.items():
        if info.description is None:
            owner = next((c for c in model.__mro__ if name in inspect.get_annotations(c)), None)
            if owner is not None and issubclass(owner, Documented):
                info.description = _docstrings(owner).get(name)


def _docstrings(cls: type[Any]) -> dict[str, str]:
    """``{attribute: docstring}`` of one class body (not its nested classes or functions)."""
    try:
        filename = inspect.getsourcefile(cls)
    except (TypeError, OSError):  # built in; or made in a __main__ without a file (a REPL, a notebook)
        return {}
    if filename is None:  # a class made at runtime
        return {}
    return _classes_in(filename).get(cls.__qualname__, {})


@functools.cache
def _classes_in(filename: str) -> dict[str, dict[str, str]]:
    """``{qualified class name: its attribute docstrings}`` for every class in a source file,
    parsed once (``inspect.getsource`` parses the whole module again for each class)."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except SyntaxError:  # pragma: no cover - a module that imported but cannot be parsed
        return {}
    found: dict[str, dict[str, str]] = {}

    def visit(nodes: Iterable[ast.AST], prefix: str) -> None:
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                found.setdefault(prefix + node.name, _attribute_docstrings(node.body))
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(node.body, f"{prefix}{node.name}.<locals>.")
            elif isinstance(node, ast.stmt | ast.excepthandler):  # if/try/with blocks: same names
                visit(ast.iter_child_nodes(node), prefix)

    visit(tree.body, "")
    return found


def _attribute_docstrings(body: list[ast.stmt]) -> dict[str, str]:
    found: dict[str, str] = {}
    for before, stmt in itertools.pairwise(body):
        if (
            isinstance(before, ast.AnnAssign)
            and isinstance(before.target, ast.Name)
            and isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str)
        ):
            found[before.target.id] = inspect.cleandoc(stmt.value.value)
    return found


class Documented(BaseModel):
    """A model whose fields' attribute docstrings (the string right after ``name: type``) are
    their descriptions, as with pydantic's ``use_attribute_docstrings``, but read when the
    model's schema is first built: on Python < 3.13 pydantic reads each class's source as the
    class is created (about 0.8 ms a class, 50 ms at every start for the installed evaluator
    types, of which a run uses a few)."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[BaseModel], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        describe_fields(cls)  # first: the JSON Schema carries the descriptions
        return handler(source)
