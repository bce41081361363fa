"""What ``bench plugins`` prints: each plugin, what it registered, and what went wrong."""

from __future__ import annotations

import textwrap
from typing import Any

from bench.plugins.registry import HOOKS, Registry

_WIDTH = 100


def _names(classes: list[type[Any]]) -> str:
    """``name (alias, alias)`` per class, comma-separated."""
    out = []
    for cls in classes:
        aliases = getattr(cls, "aliases", ())
        out.append(f"{cls.name} ({', '.join(aliases)})" if aliases else cls.name)
    return ", ".join(out)


def _line(label: str, text: str) -> str:
    return textwrap.fill(
        f"{label}: {text}", _WIDTH, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
    )


def describe(registry: Registry) -> str:
    """The plugins sorted by distribution, then failures, then name clashes, as plain text."""
    registry.load_all()  # classes registered by import path, and their failures, are listed too
    lines: list[str] = []
    for plugin in sorted(registry.plugins.values(), key=lambda p: (p.distribution, p.entry_point)):
        version = f" {plugin.version}" if plugin.version else ""
        lines.append(f"{plugin.distribution}{version} (entry point '{plugin.entry_point}')")
        lines.append(_line("hooks", ", ".join(plugin.hooks) or "none"))
        for kind, _base in HOOKS.values():
            if plugin.registered.get(kind):
                plural = f"{kind}es" if kind.endswith("x") else f"{kind}s"
                lines.append(_line(plural, _names(plugin.registered[kind])))
    if registry.failures:
        lines += ["", "failed to load:", *(f"  {failure}" for failure in registry.failures)]
    if registry.clashes:
        lines += ["", "name clashes (a suite that uses one of these names fails):"]
        lines += [f"  {c.kind} '{c.name}': {' and '.join(c.distributions)}" for c in registry.clashes]
    return "\n".join(lines) + "\n"
