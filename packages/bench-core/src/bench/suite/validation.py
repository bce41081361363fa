"""Turn pydantic validation errors into messages a suite author can act on."""

from __future__ import annotations

import typing
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

from bench.vocabulary.errors import did_you_mean
from bench.vocabulary.redact import excerpt


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _models_in(arg)


def _field_names(model: type[BaseModel]) -> list[str]:
    names = []
    for name, info in model.model_fields.items():
        names.append(info.alias or name)
    return names


def _models_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[type[BaseModel]]:
    candidates = [model]
    for part in loc:
        if not isinstance(part, str):
            continue
        nested = [
            inner
            for m in candidates
            for name, info in m.model_fields.items()
            if part in (name, info.alias)
            for inner in _models_in(info.annotation)
        ]
        if nested:
            candidates = nested
    return candidates


def _model_names(model: type[BaseModel]) -> set[str]:
    """Class names of every model reachable from ``model`` (pydantic puts them in union paths)."""
    names: set[str] = set()
    todo = [model]
    while todo:
        current = todo.pop()
        if current.__name__ in names:
            continue
        names.add(current.__name__)
        todo += [m for info in current.model_fields.values() for m in _models_in(info.annotation)]
    return names


def _short(value: Any) -> str:
    return excerpt(repr(value), 60, ellipsis="...")


def describe(
    exc: ValidationError, model: type[BaseModel], also_valid: Iterable[str] = ()
) -> list[tuple[tuple[Any, ...], str]]:
    """(field path, message) for each error; union-member names are dropped from the path.

    ``also_valid`` names fields accepted next to the model's own (for "did you mean").
    """
    out: list[tuple[tuple[Any, ...], str]] = []
    tags = _TYPE_TAGS | _model_names(model)
    for err in exc.errors(include_url=False):
        loc = tuple(
            p for p in err["loc"] if isinstance(p, int) or (not any(c in p for c in "[]()") and p not in tags)
        )
        kind = err["type"]
        if kind == "extra_forbidden":
            choices = [n for m in _models_at(model, loc[:-1]) for n in _field_names(m)]
            if len(loc) == 1:
                choices += also_valid
            message = f"unknown field{did_you_mean(str(loc[-1]), choices)}"
        elif kind == "missing":
            message = "required field missing"
        else:
            message = f"{err['msg']} (got {_short(err.get('input'))})"
            if kind == "string_type" and isinstance(err.get("input"), (int, float)):
                message += "; quote it to keep the text as written"
            elif kind in _NUMBER_ERRORS and loc and (allowed := _allowed_range(model, loc, kind)):
                message += f"; allowed: {allowed}"
        out.append((loc, message))
    return _dedupe(out)


_NUMBER_ERRORS = {"finite_number", "greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def _bounds(annotation: Any, found: dict[str, float]) -> None:
    """Collect ge/gt/le/lt from ``Annotated[...]`` metadata anywhere inside a type."""
    for part in typing.get_args(annotation):
        for bound in ("ge", "gt", "le", "lt"):
            value = getattr(part, bound, None)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                found.setdefault(bound, value)
        _bounds(part, found)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _allowed_range(model: type[BaseModel], loc: tuple[Any, ...], kind: str) -> str:
    """The range a numeric field accepts, in words (``0 to 1``, ``more than 0``), or ``""``.

    A bound error already names its one bound: the range is added only when it has two.
    """
    name = loc[-1]
    found: dict[str, float] = {}
    for candidate in _models_at(model, loc[:-1]):
        info = candidate.model_fields.get(name) if isinstance(name, str) else None
        if info is not None:
            for item in info.metadata:
                _bounds(typing.Annotated[Any, item], found)
            _bounds(info.annotation, found)
            break
    low = f"{_number(found['ge'])}" if "ge" in found else None
    above = f"more than {_number(found['gt'])}" if "gt" in found else None
    high = _number(found["le"]) if "le" in found else None
    below = f"less than {_number(found['lt'])}" if "lt" in found else None
    if low is not None and high is not None:
        return f"{low} to {high}"
    lower = above or (f"{low} or more" if low is not None else None)
    upper = below or (f"at most {high}" if high is not None else None)
    if kind != "finite_number" and not (lower and upper):
        return ""
    return ", ".join(part for part in (lower, upper) if part)


_TYPE_TAGS = {"str", "int", "float", "bool", "list", "dict", "none", "function-after"}


def _dedupe(items: list[tuple[tuple[Any, ...], str]]) -> list[tuple[tuple[Any, ...], str]]:
    # A value that fails every member of a union gives one error per member. The member that got
    # deepest is most likely the one the user meant: drop errors at a prefix of a deeper one's path.
    seen: dict[tuple[Any, ...], str] = {}
    for loc, message in items:
        seen.setdefault(loc, message)
    return [
        (loc, message)
        for loc, message in seen.items()
        if not any(len(other) > len(loc) and other[: len(loc)] == loc for other in seen)
    ]
