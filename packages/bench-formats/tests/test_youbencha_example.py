"""examples/from-youbencha runs as its README says."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "from-youbencha"


def _bench(folder: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_the_eval_config_passes_with_git_diff_skipped(tmp_path: Path):
    folder = tmp_path / "ex"
    shutil.copytree(EXAMPLE, folder)
    done = _bench(folder, "run", "eval.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    (results,) = (folder / ".bench" / "runs").glob("*/results.jsonl")
    task = json.loads(results.read_text().splitlines()[0])
    found = {e["name"]: e for e in task["evaluators"]}
    assert found["git-diff"]["details"]["youbencha_status"] == "skipped"
    # greet.py equal (1.0); README.md 2 of 3 lines each side: 2*2/6 = 0.667; mean 0.833 >= 0.6
    assert round(found["expected-diff"]["score"], 3) == 0.833


def test_the_test_case_runs_the_fake_copilot_on_the_local_repository(tmp_path: Path):
    folder = tmp_path / "ex"
    shutil.copytree(EXAMPLE, folder)
    subprocess.run([sys.executable, "make_repo.py"], cwd=folder, check=True, capture_output=True)
    env = {
        "BENCH_YOUBENCHA_COPILOT": "./fake-copilot",
        "BENCH_YOUBENCHA_REPOS": "https://github.com/example/greeter.git=./repo",
    }
    done = _bench(folder, "run", "testcase.yaml", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    # one line changed in greet.py: 1 file, +1/-1; equal to the solution branch: 100%
    assert "1 changed files (+1/-1 lines)" in done.stdout
