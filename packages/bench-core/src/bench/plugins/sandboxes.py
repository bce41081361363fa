"""A ``sandbox:`` setting turned into a sandbox of a registered type, ready to run here."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.plugins.registry import Registry, get_registry
from bench.vocabulary.errors import ConfigError, FieldPath, did_you_mean
from bench.workspace import network_guard
from bench.workspace.sandboxes import Sandbox

__all__ = ["open_sandbox", "sandbox_needs", "sandbox_settings"]


def sandbox_needs(spec: Any, registry: Registry | None = None) -> frozenset[str]:
    """The resource tags a ``sandbox:`` setting implies (``Sandbox.needs``: ``container`` for a
    container); none for no sandbox, or one whose type is unknown (``open_sandbox`` says so)."""
    kind = spec.get("type") if isinstance(spec, Mapping) else None
    provided = (registry or get_registry()).sandboxes.get(kind) if isinstance(kind, str) else None
    return frozenset(provided.cls.needs) if provided is not None else frozenset()


def sandbox_settings(
    spec: Mapping[str, Any], *, file: Path | str | None = None, field: FieldPath = ()
) -> Sandbox:
    """The sandbox ``spec`` names, its type and settings checked, not whether it can run here.

    Raises ``ConfigError`` for an unknown type or invalid settings (``bench validate`` says so).
    """
    kind = spec.get("type")
    if not isinstance(kind, str):
        raise ConfigError(
            "sandbox needs a type (container, or one a plugin registers)", file=file, field=field
        )
    table = get_registry().sandboxes
    provided = table.get(kind)
    if provided is None:
        known = sorted(table)
        raise ConfigError(
            f"unknown sandbox type {kind!r}{did_you_mean(kind, known)} (known: {', '.join(known) or 'none'})",
            file=file,
            field=(*field, "type"),
        )
    cls = provided.cls
    try:
        config = cls.Config.model_validate(dict(spec))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'sandbox'}: {error['msg']}"
            for error in exc.errors(include_url=False)
        )
        raise ConfigError(f"sandbox {kind}: {problems}", file=file, field=field) from None
    sandbox: Sandbox = cls(config)
    return sandbox


def open_sandbox(
    spec: Mapping[str, Any], *, file: Path | str | None = None, field: FieldPath = ()
) -> Sandbox:
    """The sandbox ``spec`` names (``{type: container, image: ...}``), its settings checked.

    Raises ``ConfigError`` for an unknown type, invalid settings, or a sandbox that cannot run
    on this machine (no container runtime), before any task starts.
    """
    sandbox = sandbox_settings(spec, file=file, field=field)
    why = sandbox.unavailable()
    if why is not None:
        raise ConfigError(why, file=file, field=field)
    refused = sandbox.offline_refusal() if network_guard.active() else None
    if refused is not None:  # before any task: its programs would not be cut off (docs/offline.md)
        raise ConfigError(f"offline: {refused}", file=file, field=(*field, "network"))
    return sandbox
