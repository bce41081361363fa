"""pytest fixtures for bench and its plugins (loaded automatically through ``pytest11``).

pytest imports this module at every start in any environment that has bench, so it imports
only pytest and the standard library; each fixture imports what it needs when it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from bench.testing.server import FakeLLMServer

#: The API key the ``fake_llm`` fixture sets: tests assert it never appears in any output.
CANARY_KEY = "sk-canary-7f3e9a1c52d84b06"


@dataclass
class CliResult:
    """The outcome of one ``bench`` command run in-process."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def bench_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliResult]:
    """Run ``bench ARGS...`` in-process with the working directory set to ``tmp_path`` and the
    response cache in ``tmp_path/.bench/cache`` (never the user's own cache)."""
    from typer.testing import CliRunner

    from bench.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / ".bench" / "cache"))
    runner = CliRunner()

    def invoke(*args: object) -> CliResult:
        result = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
        return CliResult(result.exit_code, result.stdout, result.stderr)

    return invoke


@pytest.fixture
def suite_file(tmp_path: Path) -> Callable[..., Path]:
    """Write a suite (dedented YAML) into the test's temp folder: ``suite_file(text, name=...)``."""

    from bench.testing import write_suite

    def make(text: str, name: str = "suite.yaml") -> Path:
        return write_suite(tmp_path, text, name)

    return make


@pytest.fixture
def fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    """A fake OpenAI-compatible server on 127.0.0.1; litellm's ``openai/*`` models are pointed at
    it (``OPENAI_API_BASE``) with the canary key ``CANARY_KEY`` as ``OPENAI_API_KEY``."""
    from bench.testing.server import FakeLLMServer

    with FakeLLMServer() as server:
        monkeypatch.setenv("OPENAI_API_BASE", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
        yield server
