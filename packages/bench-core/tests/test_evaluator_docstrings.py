"""Evaluator settings get their attribute docstrings as descriptions when their schema is first
built, not when the class is created: start-up loads every installed type and uses a few."""

from __future__ import annotations

import sys

from pydantic import BaseModel, ConfigDict, Field

from bench.evaluator import EvaluatorConfig
from bench.vocabulary.documented import describe_fields


class _EagerBase(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    kept: int = 1
    """Inherited as it is."""
    redeclared: int = 2
    """The base's words."""


class _Eager(_EagerBase):
    redeclared: int = 3
    added: str = "x"
    """Two lines,
    dedented."""
    explicit: int = Field(0, description="Field() wins.")
    """Not this."""
    plain: int = 0

    def method(self) -> int:
        inner: int = 0
        """A docstring in a function is no field's."""
        return inner


class _LazyBase(EvaluatorConfig):
    kept: int = 1
    """Inherited as it is."""
    redeclared: int = 2
    """The base's words."""


class _Lazy(_LazyBase):
    redeclared: int = 3
    added: str = "x"
    """Two lines,
    dedented."""
    explicit: int = Field(0, description="Field() wins.")
    """Not this."""
    plain: int = 0

    def method(self) -> int:
        inner: int = 0
        """A docstring in a function is no field's."""
        return inner


def _descriptions(model: type[BaseModel]) -> dict[str, str | None]:
    return {name: info.description for name, info in model.model_fields.items()}


def test_descriptions_are_read_when_the_schema_is_built_and_match_use_attribute_docstrings():
    assert set(_descriptions(_Lazy).values()) == {None, "Field() wins."}  # nothing read yet
    assert _Lazy.model_json_schema()["properties"] == {
        **_Eager.model_json_schema()["properties"],
    }
    assert (
        _descriptions(_Lazy)
        == _descriptions(_Eager)
        == {
            "kept": "Inherited as it is.",
            "redeclared": None,
            "added": "Two lines,\ndedented.",
            "explicit": "Field() wins.",
            "plain": None,
        }
    )


def test_describe_fields_fills_a_model_whose_schema_is_not_built():
    class Nested(EvaluatorConfig):
        def build(self) -> None:
            pass

        class Inner(EvaluatorConfig):
            level: int = 0
            """Read from a class nested in a class
in a function, the string less indented than the class."""

    assert Nested.Inner.model_fields["level"].description is None
    describe_fields(Nested.Inner)
    assert Nested.Inner.model_fields["level"].description == (
        "Read from a class nested in a class\nin a function, the string less indented than the class."
    )


def test_fields_declared_outside_the_evaluator_config_tree_are_left_alone():
    class Plain(BaseModel):
        shared: int = 0
        """A plain model's docstring (it never asked for them)."""

    class Mixed(EvaluatorConfig, Plain):
        own: int = 0
        """Its own."""

    describe_fields(Mixed)
    assert _descriptions(Mixed) == {"shared": None, "own": "Its own."}


def test_a_settings_class_defined_in_main_without_a_file_has_no_descriptions_and_no_error(monkeypatch):
    # python -c, a REPL or a notebook: inspect raises OSError ("source code not available"), which
    # pydantic's use_attribute_docstrings took as no docstrings; the schema must still build.
    monkeypatch.delattr(sys.modules["__main__"], "__file__", raising=False)
    namespace: dict[str, object] = {"__name__": "__main__", "EvaluatorConfig": EvaluatorConfig}
    exec('class Cell(EvaluatorConfig):\n    level: int = 0\n    """Unreadable."""\n', namespace)
    cell = namespace["Cell"]
    assert isinstance(cell, type)
    assert issubclass(cell, EvaluatorConfig)
    assert cell.model_json_schema()["properties"] == {
        "level": {"default": 0, "title": "Level", "type": "integer"}
    }
    assert cell(level=2).level == 2
