"""The names plugins register, and what happens when two distributions register the same one.

A clash must not stop bench: only what uses the clashing name fails (conda reports a clash the
same way, with both distributions). So a ``NameTable`` records the clash and raises it when the
name is looked up; ``name in table`` stays true so callers reach that lookup.

A name registered with an import path (``register("bleu", "pkg.metrics:Bleu")``) is a
``Deferred``: its class is imported and checked on the first lookup of the name, or when the
table's ``values()``/``items()`` are read (listing commands read them all). One that cannot be
imported, or is not what it claims, is dropped then, as a class that fails the checks at
registration is; looking it up raises the plugin's failure.
"""

from __future__ import annotations

from collections.abc import Callable
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


class Deferred(Provided[T]):
    """A name registered with an import path (``"module:Class"``); ``cls`` imports and checks it.

    ``resolve`` returns the class, or raises ``PluginError`` with the plugin's failure (which it
    has recorded); each is done once. ``infer_from`` is the class's ``infer_from`` as the plugin
    declared it (checked on import), or None when it did not: then reading it imports the class.
    """

    path: str
    infer_from: tuple[str, ...] | None
    _resolve: Callable[[Deferred[T]], T]

    def __init__(
        self,
        name: str,
        path: str,
        distribution: str,
        resolve: Callable[[Deferred[T]], T],
        infer_from: tuple[str, ...] | None = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "distribution", distribution)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "infer_from", infer_from)
        object.__setattr__(self, "_resolve", resolve)

    @property
    def cls(self) -> T:
        """The registered class, imported on first use."""
        return self._resolve(self)

    def __repr__(self) -> str:
        return f"Deferred({self.name!r}, {self.path!r}, {self.distribution!r})"


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
    clashing name up (``table[name]``, ``table.get(name)``) raises its ``PluginError``, as does
    looking up a deferred name that fails to load. ``providers(name)`` gives every provider of a
    name, the clashing ones too.
    """

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.clashes: dict[str, Clash] = {}
        self._others: dict[str, list[Provided[T]]] = {}
        #: Deferred names whose import or checks failed: their lookup raises this.
        self._failed: dict[str, PluginError] = {}

    def add(self, provided: Provided[T]) -> None:
        """Register a name; a second distribution's class under it becomes a clash."""
        other = super().get(provided.name)
        if other is None:
            self[provided.name] = provided
        elif not _same(other, provided):
            known = self.clashes.get(provided.name)
            dists = known.distributions if known else (other.distribution,)
            self.clashes[provided.name] = Clash(self.kind, provided.name, (*dists, provided.distribution))
            self._others.setdefault(provided.name, []).append(provided)

    def providers(self, name: str) -> list[Provided[T]]:
        """Every class registered under ``name``, in registration order (none when unknown); a
        deferred one that fails to load is left out."""
        first = super().get(name)
        found = [first, *self._others.get(name, [])] if first is not None else []
        return [loaded for p in found if (loaded := self._loaded(p)) is not None]

    def values(self) -> Any:
        """Every provider, deferred ones imported (those that fail to load are dropped)."""
        self.load_all()
        return super().values()

    def items(self) -> Any:
        """Every name and provider, deferred ones imported (those that fail are dropped)."""
        self.load_all()
        return super().items()

    def loaded(self) -> list[Provided[T]]:
        """The providers whose classes are imported (every one registered as a class), importing none."""
        return [p for p in super().values() if not isinstance(p, Deferred)]

    def registered(self) -> list[Provided[T]]:
        """Every provider as registered, in registration order, importing none (deferred ones
        stay ``Deferred``; a clashing name gives its first provider)."""
        return list(super().values())

    def load(self, provided: Provided[T]) -> Provided[T] | None:
        """``provided`` with its class imported, or None when it is deferred and fails to load."""
        return self._loaded(provided)

    def load_all(self) -> None:
        """Import every deferred name now (listing commands, and whatever reads every type)."""
        for name in list(self):
            provided = super().get(name)
            if provided is not None:
                self._loaded(provided)

    def _loaded(self, provided: Provided[T]) -> Provided[T] | None:
        """``provided`` with its class imported (it replaces a deferred entry), or None when a
        deferred one fails to load: its name is dropped, and a lookup raises the failure."""
        if not isinstance(provided, Deferred):
            return provided
        try:
            loaded = Provided(provided.name, provided.cls, provided.distribution)
        except PluginError as exc:
            if super().get(provided.name) is provided:
                del self[provided.name]
                self._failed[provided.name] = exc
            return None
        if super().get(provided.name) is provided:
            self[provided.name] = loaded
        return loaded

    def _lookup(self, name: str) -> Provided[T] | None:
        """The provider of ``name`` with its class imported; one that failed to load raises."""
        self.check(name)
        provided = super().get(name)
        if provided is not None and self._loaded(provided) is None:
            provided = None
        failed = self._failed.get(name)
        if failed is not None:
            raise failed
        return None if provided is None else super().get(name)

    def check(self, name: str) -> None:
        """Raise the clash's ``PluginError`` when two distributions registered ``name``."""
        clash = self.clashes.get(name)
        if clash is not None:
            raise clash.error()

    def __contains__(self, name: object) -> bool:
        # a deferred name that failed to load stays known, so its lookup says why it failed
        return super().__contains__(name) or name in self._failed

    def __getitem__(self, name: str) -> Provided[T]:
        provided = self._lookup(name)
        if provided is None:
            raise KeyError(name)
        return provided

    def get(self, name: str, default: Any = None) -> Any:
        """The provider of ``name``, or ``default`` when nobody registered it."""
        provided = self._lookup(name)
        return default if provided is None else provided


def _same(one: Provided[Any], other: Provided[Any]) -> bool:
    """Whether two registrations of a name are the same class (no clash); a deferred one is the
    same as another of its import path from its distribution, without importing either."""
    if isinstance(one, Deferred) or isinstance(other, Deferred):
        return one.distribution == other.distribution and getattr(one, "path", None) == getattr(
            other, "path", None
        )
    return one.cls is other.cls
