"""Plugin discovery: every entry point in the ``bench`` group, loaded one by one.

Built-in plugins (bench-core's own targets and reporters, bench-deterministic, ...) are found
the same way as third-party ones. A plugin that fails to import, or registers a class that is
not of the hook's kind or is badly named, is recorded with its distribution name (only that class
is skipped) and the rest of bench keeps working. A name two distributions register is
recorded as a clash: looking it up raises an error naming both (``bench.plugins.names``).

Environment switches (handy in tests): ``BENCH_PLUGINS`` loads only the named distributions or
entry points (comma-separated); ``BENCH_DISABLE_PLUGINS`` skips the named ones.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, PackageNotFoundError, entry_points, version
from types import ModuleType
from typing import Any

import pluggy

import bench.hookspecs as hookspecs
from bench.evaluator import Evaluator
from bench.executor import Executor
from bench.importer import Importer
from bench.plugins.names import Clash, Deferred, NameTable, Provided
from bench.reporter import Reporter
from bench.suite_loader import SuiteLoader
from bench.target import Target
from bench.vocabulary.errors import PluginError, did_you_mean
from bench.workspace.sandboxes import Sandbox

__all__ = ["Clash", "PluginFailure", "PluginInfo", "Provided", "Registry", "build_registry", "get_registry"]

GROUP = "bench"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.:-]*$")
#: ``register(name, path)``'s path: ``package.module:Class`` (or ``:Outer.Inner``)
_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
#: hook name -> (the kind of thing it registers, the base class each registered class extends)
HOOKS: dict[str, tuple[str, type[Any]]] = {
    "bench_register_evaluators": ("evaluator", Evaluator),
    "bench_register_targets": ("target", Target),
    "bench_register_reporters": ("reporter", Reporter),
    "bench_register_suite_loaders": ("suite loader", SuiteLoader),
    "bench_register_executors": ("executor", Executor),
    "bench_register_importers": ("importer", Importer),
    "bench_register_sandboxes": ("sandbox", Sandbox),
}


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that could not be loaded or registered, and why."""

    distribution: str
    entry_point: str
    error: str

    def __str__(self) -> str:
        return f"plugin {self.entry_point!r} from {self.distribution} failed to load: {self.error}"


@dataclass
class PluginInfo:
    """One loaded plugin: its distribution, the hooks it implements and what it registered."""

    distribution: str
    version: str | None
    entry_point: str
    hooks: list[str]
    #: kind ("evaluator", "target", ...) -> the classes registered, in registration order (a
    #: deferred one when it is first looked up: ``Registry.load_all`` before listing them)
    registered: dict[str, list[type[Any]]] = field(default_factory=dict)


@dataclass
class Registry:
    """Everything the installed plugins provide."""

    evaluators: NameTable[type[Evaluator[Any]]] = field(default_factory=lambda: NameTable("evaluator"))
    targets: NameTable[type[Target[Any]]] = field(default_factory=lambda: NameTable("target"))
    reporters: NameTable[type[Reporter]] = field(default_factory=lambda: NameTable("reporter"))
    suite_loaders: NameTable[type[SuiteLoader]] = field(default_factory=lambda: NameTable("suite loader"))
    executors: NameTable[type[Executor]] = field(default_factory=lambda: NameTable("executor"))
    importers: NameTable[type[Importer]] = field(default_factory=lambda: NameTable("importer"))
    sandboxes: NameTable[type[Sandbox]] = field(default_factory=lambda: NameTable("sandbox"))
    failures: list[PluginFailure] = field(default_factory=list)
    #: "distribution:entry point" -> the plugin, in load order
    plugins: dict[str, PluginInfo] = field(default_factory=dict)

    def evaluator_types(self) -> list[Provided[type[Evaluator[Any]]]]:
        """One entry per evaluator class (aliases folded), sorted by name."""
        seen: dict[type[Any], Provided[type[Evaluator[Any]]]] = {}
        for provided in self.evaluators.values():
            if provided.cls.name == provided.name:
                seen[provided.cls] = provided
        return sorted(seen.values(), key=lambda p: p.name)

    def evaluator_claims(self) -> dict[str, list[Provided[type[Evaluator[Any]]]]]:
        """Setting -> the evaluator types that claim it for a mapping without ``type:``
        (``infer_from``). A type registered by import path with its ``infer_from`` declared
        (``register(name, path, infer_from=...)``) stays unimported; any other is imported to ask."""
        claims: dict[str, list[Provided[type[Evaluator[Any]]]]] = {}
        seen: set[Any] = set()
        for provided in self.evaluators.registered():
            if isinstance(provided, Deferred) and provided.infer_from is not None:
                identity: Any = (provided.distribution, provided.path)
                keys = provided.infer_from
            else:
                loaded = self.evaluators.load(provided)
                if loaded is None or loaded.cls.name != loaded.name:
                    continue  # failed to load, or an alias (its class counts once, by its name)
                provided, identity, keys = loaded, loaded.cls, loaded.cls.infer_from
            if identity not in seen:
                seen.add(identity)
                for key in keys:
                    claims.setdefault(key, []).append(provided)
        return claims

    def table(self, hook_name: str) -> NameTable[Any]:
        """The names a hook fills."""
        tables: dict[str, NameTable[Any]] = {
            "bench_register_evaluators": self.evaluators,
            "bench_register_targets": self.targets,
            "bench_register_reporters": self.reporters,
            "bench_register_suite_loaders": self.suite_loaders,
            "bench_register_executors": self.executors,
            "bench_register_importers": self.importers,
            "bench_register_sandboxes": self.sandboxes,
        }
        return tables[hook_name]

    def load_all(self) -> Registry:
        """Import every class registered by import path (listing commands show them all)."""
        for hook in HOOKS:
            self.table(hook).load_all()
        return self

    @property
    def clashes(self) -> list[Clash]:
        """Every name registered by more than one distribution, in hook order."""
        return [clash for hook in HOOKS for clash in self.table(hook).clashes.values()]


def _entry_point_selected(ep: EntryPoint, dist: str) -> bool:
    def names(var: str) -> set[str]:
        return {n.strip() for n in os.environ.get(var, "").split(",") if n.strip()}

    only, disabled = names("BENCH_PLUGINS"), names("BENCH_DISABLE_PLUGINS")
    if only and not ({dist, ep.name} & only):
        return False
    return not ({dist, ep.name} & disabled)


def _distribution(ep: EntryPoint) -> tuple[str, str | None]:
    """The name and version of the distribution an entry point comes from."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return ep.value.split(":")[0], None
    return str(dist.name), str(dist.version)


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:  # a plugin object passed to build_registry, not installed
        return None


class _Builder:
    def __init__(self) -> None:
        self.registry = Registry()
        self.pm = pluggy.PluginManager("bench")
        self.pm.add_hookspecs(hookspecs)

    def load(self, eps: Iterable[EntryPoint]) -> None:
        seen: set[tuple[str, str]] = set()
        for ep in eps:
            dist, dist_version = _distribution(ep)
            if (dist, ep.name) in seen or not _entry_point_selected(ep, dist):
                continue
            seen.add((dist, ep.name))
            try:
                module = ep.load()
            except Exception as exc:  # a broken plugin must not break bench
                self._fail(dist, ep.name, f"{type(exc).__name__}: {exc}")
                continue
            self.add(module, dist, ep.name, dist_version)

    def add(self, plugin: ModuleType | object, dist: str, name: str, dist_version: str | None = None) -> None:
        """Register one plugin object (a module or an instance with hook methods)."""
        # A function marked @hookimpl whose name is no hook is a typo (pluggy would ignore it).
        unknown = [
            attr
            for attr in dir(plugin)
            if attr.startswith("bench_")
            and attr not in HOOKS
            and getattr(getattr(plugin, attr), "bench_impl", None) is not None
        ]
        if unknown:
            hint = did_you_mean(unknown[0], HOOKS)
            self._fail(dist, name, f"unknown hook '{unknown[0]}'{hint}")
            return
        key = f"{dist}:{name}"
        try:
            self.pm.register(plugin, name=key)
        except (pluggy.PluginValidationError, ValueError) as exc:
            self._fail(dist, name, str(exc))
            return
        hooks = [h for h in HOOKS if hasattr(plugin, h)]
        self.registry.plugins[key] = PluginInfo(dist, dist_version or _version(dist), name, hooks)

    def _fail(self, dist: str, name: str, error: str) -> None:
        self.registry.failures.append(PluginFailure(dist, name, error))

    def collect(self) -> Registry:
        for hook_name, (kind, base) in HOOKS.items():
            table = self.registry.table(hook_name)
            for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                plugin = self.registry.plugins[impl.plugin_name]
                register = _registrar(kind, base, table, plugin, self._fail)
                try:
                    impl.function(register=register)
                except Exception as exc:
                    self._fail(
                        plugin.distribution,
                        plugin.entry_point,
                        f"{hook_name} raised {type(exc).__name__}: {exc}",
                    )
        return self.registry


def _registrar(
    kind: str,
    base: type[Any],
    table: NameTable[Any],
    plugin: PluginInfo,
    fail: Callable[[str, str, str], None],
) -> Callable[..., None]:
    """The ``register`` one plugin's hook receives: checks each class and records who gave it.

    ``register(cls)`` checks the class now; ``register(name, "module:Class")`` records the name
    and imports the class on its first lookup (``Deferred``), checking it then (against the
    ``infer_from`` the plugin declared, if it did). A class that fails the checks is skipped and
    recorded as a failure of the plugin; what the plugin registers before and after it stays
    registered.
    """
    dist = plugin.distribution

    def skip(problem: str) -> PluginError:
        message = f"{dist} registered {problem}; skipped"
        fail(dist, plugin.entry_point, message)
        return PluginError(str(PluginFailure(dist, plugin.entry_point, message)), distribution=dist)

    def add(cls: Any) -> None:
        if cls not in plugin.registered.setdefault(kind, []):
            plugin.registered[kind].append(cls)

    def resolve(deferred: Deferred[Any]) -> Any:
        known = loaded.get(deferred.path)
        if known is None:
            known = loaded[deferred.path] = _import(kind, base, deferred, skip)
        if isinstance(known, PluginError):
            raise known
        problem = _not_named(kind, known, deferred) or _not_declared(kind, known, deferred)
        if problem is not None:
            raise skip(problem)
        add(known)
        return known

    loaded: dict[str, Any] = {}  # import path -> its class, or the error its import raised

    def register(cls: Any, path: Any = None, *, infer_from: Any = None) -> None:
        if isinstance(cls, str) and path is not None:
            problem = _deferred_problem(kind, cls, path, infer_from)
            if problem is not None:
                skip(problem)
                return
            declared = None if infer_from is None else tuple(infer_from)
            table.add(Deferred(cls, path, dist, resolve, declared))
            return
        if infer_from is not None:
            skip(f"{kind} {cls!r} with infer_from=, which only a name and import path take")
            return
        problem = _problem(kind, base, cls)
        if problem is not None:
            skip(problem)
            return
        for name in [cls.name, *getattr(cls, "aliases", ())]:
            table.add(Provided(name, cls, dist))
        add(cls)

    return register


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


def _deferred_problem(kind: str, name: str, path: Any, infer_from: Any) -> str | None:
    """What is wrong with registering ``name`` as ``path`` (after "registered"), or None."""
    if not _NAME.match(name):
        return f"{_article(kind)} {kind} with an invalid name {name!r}"
    if not isinstance(path, str) or not _PATH.match(path):
        return f"{kind} '{name}' as {path!r}, which is not an import path 'module:Class'"
    if infer_from is not None and (
        not isinstance(infer_from, (tuple, list)) or not all(isinstance(k, str) for k in infer_from)
    ):
        return f"{kind} '{name}' with infer_from={infer_from!r}, which is not a tuple of setting names"
    return None


def _not_declared(kind: str, cls: Any, deferred: Deferred[Any]) -> str | None:
    """A problem when the ``infer_from`` a plugin declared for a path is not its class's."""
    actual = tuple(getattr(cls, "infer_from", ()))
    if deferred.infer_from is None or deferred.infer_from == actual:
        return None
    return (
        f"{kind} '{deferred.name}' as '{deferred.path}' with infer_from={deferred.infer_from!r}, "
        f"but that class's infer_from is {actual!r}"
    )


def _import(kind: str, base: type[Any], deferred: Deferred[Any], skip: Callable[[str], PluginError]) -> Any:
    """The class an import path names, checked; or the ``PluginError`` that records why not."""
    module, _, qualname = deferred.path.partition(":")
    try:
        found: Any = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception as exc:  # a broken plugin must not break bench
        return skip(f"{kind} '{deferred.name}' as '{deferred.path}': {type(exc).__name__}: {exc}")
    problem = _problem(kind, base, found)
    return skip(problem) if problem is not None else found


def _not_named(kind: str, cls: Any, deferred: Deferred[Any]) -> str | None:
    """A problem when the class a name was registered for does not answer to that name."""
    if deferred.name in (cls.name, *getattr(cls, "aliases", ())):
        return None
    return f"{kind} '{deferred.name}' as '{deferred.path}', but that class is named '{cls.name}'"


def _problem(kind: str, base: type[Any], cls: Any) -> str | None:
    """What is wrong with registering ``cls`` as a ``kind`` (after "registered"), or None."""
    article = _article(kind)
    if not (isinstance(cls, type) and issubclass(cls, base)):
        return (
            f"{cls!r} as {article} {kind}, but it is not a subclass of {base.__module__}.{base.__qualname__}"
        )
    for name in [getattr(cls, "name", None), *getattr(cls, "aliases", ())]:
        if not isinstance(name, str) or not _NAME.match(name):
            return f"{article} {kind} with an invalid name {name!r}"
    return None


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
