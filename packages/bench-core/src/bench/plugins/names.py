"""The names plugins register, and what happens when two distributions register the same one.

A clash must not stop bench: only what uses the clashing name fails (conda reports a clash the
same way, with both distributions). So a ``NameTable`` records the clash and raises it when the
name is looked up; ``name in table`` stays true so callers reach that lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from bench.vocabulary.errors import PluginError

T = TypeVar("T")


@dataclass(frozen=True)
class Provided(Generic[T]):
    """A registered class, the name it answers to and the distribution that provides it."""

    name: str
    cls: T
    distribution: str


@dataclass(frozen=True)
class Clash:
    """One name that two (or more) distributions registered as the same kind of thing."""

    kind: str
    name: str
    distributions: tuple[str, ...]

    def error(self) -> PluginError:
        """The error a lookup of the name raises."""
        return PluginError(
            f"{self.kind} type '{self.name}' is registered by two distributions: "
            f"{' and '.join(self.distributions)}; uninstall one of them",
            distribution=self.distributions[-1],
        )


class NameTable(dict[str, Provided[T]]):
    """Names of one kind (evaluator, target, ...) to what provides them.

    Iterating gives every name, a clashing one included (with its first provider); looking a
    clashing name up (``table[name]``, ``table.get(name)``) raises its ``PluginError``.
    ``providers(name)`` gives every provider of a name, the clashing ones too.
    """

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.clashes: dict[str, Clash] = {}
        self._others: dict[str, list[Provided[T]]] = {}

    def add(self, provided: Provided[T]) -> None:
        """Register a name; a second distribution's class under it becomes a clash."""
        other = super().get(provided.name)
        if other is None:
            self[provided.name] = provided
        elif other.cls is not provided.cls:
            known = self.clashes.get(provided.name)
            dists = known.distributions if known else (other.distribution,)
            self.clashes[provided.name] = Clash(self.kind, provided.name, (*dists, provided.distribution))
            self._others.setdefault(provided.name, []).append(provided)

    def providers(self, name: str) -> list[Provided[T]]:
        """Every class registered under ``name``, in registration order (none when unknown)."""
        first = super().get(name)
        return [first, *self._others.get(name, [])] if first is not None else []

    def check(self, name: str) -> None:
        """Raise the clash's ``PluginError`` when two distributions registered ``name``."""
        clash = self.clashes.get(name)
        if clash is not None:
            raise clash.error()

    def __getitem__(self, name: str) -> Provided[T]:
        self.check(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:
        """The provider of ``name``, or ``default`` when nobody registered it."""
        self.check(name)
        return super().get(name, default)
