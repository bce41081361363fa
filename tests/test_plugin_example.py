"""A third-party plugin, installed for real, is discovered through its entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.testing.distributions import install

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "plugin-example"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    target = tmp_path_factory.mktemp("site")
    install(target, EXAMPLE)
    return {**os.environ, "PYTHONPATH": str(target)}


def _bench(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow
def test_installed_plugin_is_listed_with_its_distribution(installed):
    done = _bench({**installed, "COLUMNS": "200"}, "evaluators")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "word_count" in line)
    assert "words" in row
    assert "bench-word-count" in row
    assert "Passes when the response has between min_words and max_words words." in row


@pytest.mark.slow
def test_installed_plugin_runs_its_example_suite(installed, tmp_path):
    done = _bench(installed, "run", str(EXAMPLE / "suite.yaml"), "-q", "-o", "out.json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    tasks = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert [(t["id"], t["passed"]) for t in tasks] == [("concise", True), ("rambling", False)]
    assert tasks[1]["evaluators"][0]["reason"] == "16 words (allowed 0..10)"


@pytest.mark.slow
def test_the_plugins_own_tests_pass_against_the_installed_package(installed):
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE / "tests")],
        env=installed,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


@pytest.mark.slow
def test_not_installed_means_not_listed():
    done = _bench(dict(os.environ), "evaluators")
    assert "word_count" not in done.stdout
