"""Plugin discovery: every entry point in the ``bench`` group, loaded one by one.

Built-in plugins (bench-core's own targets and reporters, bench-deterministic, ...) are found
the same way as third-party ones. A plugin that fails to import is recorded with its
distribution name and the rest of bench keeps working. Two distributions registering the same
name is an error naming both.

Environment switches (handy in tests): ``BENCH_PLUGINS`` loads only the named distributions or
entry points (comma-separated); ``BENCH_DISABLE_PLUGINS`` skips the named ones.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Any, Generic, TypeVar

import pluggy

from bench import hookspecs
from bench.errors import PluginError, did_you_mean
from bench.evaluator import Evaluator
from bench.reporter import Reporter
from bench.suite_loader import SuiteLoader
from bench.target import Target

GROUP = "bench"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")
_HOOKS = {
    "bench_register_evaluators": ("evaluator", Evaluator),
    "bench_register_targets": ("target", Target),
    "bench_register_reporters": ("reporter", Reporter),
    "bench_register_suite_loaders": ("suite loader", SuiteLoader),
}

T = TypeVar("T")


@dataclass(frozen=True)
class Provided(Generic[T]):
    """A registered class, the name it answers to and the distribution that provides it."""

    name: str
    cls: T
    distribution: str


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that could not be loaded or registered, and why."""

    distribution: str
    entry_point: str
    error: str

    def __str__(self) -> str:
        return f"plugin {self.entry_point!r} from {self.distribution} failed to load: {self.error}"


@dataclass
class Registry:
    """Everything the installed plugins provide."""

    evaluators: dict[str, Provided[type[Evaluator[Any]]]] = field(default_factory=dict)
    targets: dict[str, Provided[type[Target]]] = field(default_factory=dict)
    reporters: dict[str, Provided[type[Reporter]]] = field(default_factory=dict)
    suite_loaders: dict[str, Provided[type[SuiteLoader]]] = field(default_factory=dict)
    failures: list[PluginFailure] = field(default_factory=list)
    plugins: dict[str, list[str]] = field(default_factory=dict)

    def evaluator_types(self) -> list[Provided[type[Evaluator[Any]]]]:
        """One entry per evaluator class (aliases folded), sorted by name."""
        seen: dict[type[Any], Provided[type[Evaluator[Any]]]] = {}
        for provided in self.evaluators.values():
            if provided.cls.name == provided.name:
                seen[provided.cls] = provided
        return sorted(seen.values(), key=lambda p: p.name)


def _entry_point_selected(ep: EntryPoint, dist: str) -> bool:
    def names(var: str) -> set[str]:
        return {n.strip() for n in os.environ.get(var, "").split(",") if n.strip()}

    only, disabled = names("BENCH_PLUGINS"), names("BENCH_DISABLE_PLUGINS")
    if only and not ({dist, ep.name} & only):
        return False
    return not ({dist, ep.name} & disabled)


def _distribution(ep: EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return str(dist.name) if dist is not None else ep.value.split(":")[0]


class _Builder:
    def __init__(self) -> None:
        self.registry = Registry()
        self.pm = pluggy.PluginManager("bench")
        self.pm.add_hookspecs(hookspecs)
        self.dist_of: dict[str, str] = {}

    def load(self, eps: Iterable[EntryPoint]) -> None:
        seen: set[tuple[str, str]] = set()
        for ep in eps:
            dist = _distribution(ep)
            if (dist, ep.name) in seen or not _entry_point_selected(ep, dist):
                continue
            seen.add((dist, ep.name))
            try:
                module = ep.load()
            except Exception as exc:  # a broken plugin must not break bench
                self._fail(dist, ep.name, f"{type(exc).__name__}: {exc}")
                continue
            self.add(module, dist, ep.name)

    def add(self, plugin: ModuleType | object, dist: str, name: str) -> None:
        """Register one plugin object (a module or an instance with hook methods)."""
        # A function marked @hookimpl whose name is no hook is a typo (pluggy would ignore it).
        unknown = [
            attr
            for attr in dir(plugin)
            if attr.startswith("bench_")
            and attr not in _HOOKS
            and getattr(getattr(plugin, attr), "bench_impl", None) is not None
        ]
        if unknown:
            hint = did_you_mean(unknown[0], _HOOKS)
            self._fail(dist, name, f"unknown hook '{unknown[0]}'{hint}")
            return
        key = f"{dist}:{name}"
        try:
            self.pm.register(plugin, name=key)
        except (pluggy.PluginValidationError, ValueError) as exc:
            self._fail(dist, name, str(exc))
            return
        self.dist_of[key] = dist
        self.registry.plugins[key] = [h for h in _HOOKS if hasattr(plugin, h)]

    def _fail(self, dist: str, name: str, error: str) -> None:
        self.registry.failures.append(PluginFailure(dist, name, error))

    def collect(self) -> Registry:
        tables: dict[str, dict[str, Provided[Any]]] = {
            "bench_register_evaluators": self.registry.evaluators,
            "bench_register_targets": self.registry.targets,
            "bench_register_reporters": self.registry.reporters,
            "bench_register_suite_loaders": self.registry.suite_loaders,
        }
        for hook_name, table in tables.items():
            kind, base = _HOOKS[hook_name]
            for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                dist = self.dist_of[impl.plugin_name]
                register = self._registrar(kind, base, table, dist)
                try:
                    impl.function(register=register)
                except PluginError:
                    raise
                except Exception as exc:
                    entry = impl.plugin_name.split(":", 1)[1]
                    self._fail(dist, entry, f"{hook_name} raised {type(exc).__name__}: {exc}")
        return self.registry

    @staticmethod
    def _registrar(
        kind: str, base: type[Any], table: dict[str, Provided[Any]], dist: str
    ) -> Callable[[Any], None]:
        def register(cls: Any) -> None:
            if not (isinstance(cls, type) and issubclass(cls, base)):
                raise PluginError(
                    f"{dist} registered {cls!r} as a {kind}, "
                    f"but it is not a subclass of {base.__module__}.{base.__qualname__}",
                    distribution=dist,
                )
            names = [getattr(cls, "name", None), *getattr(cls, "aliases", ())]
            for name in names:
                if not isinstance(name, str) or not _NAME.match(name):
                    raise PluginError(
                        f"{dist} registered a {kind} with an invalid name {name!r}",
                        distribution=dist,
                    )
                other = table.get(name)
                if other is not None and other.cls is not cls:
                    raise PluginError(
                        f"{kind} type '{name}' is registered by two distributions: "
                        f"{other.distribution} and {dist}; uninstall one of them",
                        distribution=dist,
                    )
                table[name] = Provided(name, cls, dist)

        return register


def build_registry(plugins: Iterable[tuple[str, str, object]] = ()) -> Registry:
    """Load every ``bench`` entry point, plus extra ``(distribution, name, plugin)`` objects."""
    builder = _Builder()
    builder.load(entry_points(group=GROUP))
    for dist, name, plugin in plugins:
        builder.add(plugin, dist, name)
    return builder.collect()


@functools.lru_cache(maxsize=1)
def get_registry() -> Registry:
    """The registry of installed plugins, built once per process on first use."""
    return build_registry()
