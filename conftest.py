"""Every test of the repository gets its own response cache (bench's default is per user) and
writes no GitHub step summary."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_response_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / ".bench" / "cache"))
    # On GitHub Actions every run would append its summary to the job's page (a test sets it).
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture(params=["auto", "litellm"])
def llm_transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test on each path the LLM client can take: ``auto`` (OpenAI-protocol providers
    over bench's direct HTTP path) and ``litellm`` (every call through litellm)."""
    monkeypatch.setenv("BENCH_LLM_TRANSPORT", request.param)
    return str(request.param)
