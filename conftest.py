"""Every test of the repository gets its own response cache (bench's default is per user)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_response_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / ".bench" / "cache"))
