"""The version handshake: a worker runs the same code and suite as the driver, or not at all."""

from __future__ import annotations

import hashlib
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import bench


def plugin_versions() -> dict[str, str]:
    """``{distribution: version}`` of every installed bench plugin (bench-core included)."""
    found: dict[str, str] = {}
    for ep in entry_points(group="bench"):
        dist = getattr(ep, "dist", None)
        if dist is not None:
            found[str(dist.name)] = str(dist.version)
    return dict(sorted(found.items()))


def suite_digest(files: list[Path]) -> str:
    """sha256 over the suite file and the files it references, in order."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def identity(files: list[Path]) -> dict[str, Any]:
    """What must be equal on the driver and every worker for verdicts to be equal."""
    return {
        "bench": bench.__version__,
        "plugins": plugin_versions(),
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "suite": suite_digest(files),
    }


def mismatch(driver: dict[str, Any], worker: dict[str, Any]) -> str | None:
    """Why a worker may not run this suite (the first difference), or None."""
    for field in ("bench", "python", "suite"):
        if driver[field] != worker.get(field):
            return f"{field} {worker.get(field)!r} on the worker, {driver[field]!r} here"
    theirs = worker.get("plugins", {})
    for dist in sorted(set(driver["plugins"]) | set(theirs)):
        if driver["plugins"].get(dist) != theirs.get(dist):
            here = driver["plugins"].get(dist, "not installed")
            return f"plugin {dist} {theirs.get(dist, 'not installed')} on the worker, {here} here"
    return None
