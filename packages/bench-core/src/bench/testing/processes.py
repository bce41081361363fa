"""Find processes a test left behind: the "nothing outlives its task" oracle (RELIABILITY C21, E09)."""

from __future__ import annotations

from typing import Any


def processes_with(marker: str) -> list[Any]:
    """Live processes (``psutil.Process``) whose command line holds ``marker``."""
    import psutil

    found = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if marker in " ".join(proc.info["cmdline"] or []):
                found.append(proc)
        except psutil.Error:
            continue
    return found
