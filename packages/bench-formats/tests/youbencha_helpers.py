"""Shared pieces of the youBencha tests: a real repository, a fake agent CLI, running a file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.testing import commit, git_repo, run_suite

URL = "https://github.com/example/demo.git"

#: A fake copilot: writes what FILES says into the folder after --add-dir (or answers as a judge).
FAKE_AGENT = """#!{python}
import json, os, pathlib, sys
args = sys.argv[1:]
log = os.environ.get("FAKE_AGENT_LOG")
if log:
    with open(log, "a") as handle:
        handle.write(json.dumps(args) + "\\n")
if os.environ.get("FAKE_JUDGE_REPLY") is not None and "Evaluation Assertions" in " ".join(args):
    print(os.environ["FAKE_JUDGE_REPLY"])
    sys.exit(int(os.environ.get("FAKE_JUDGE_EXIT", "0")))
folder = pathlib.Path(args[args.index("--add-dir") + 1]) if "--add-dir" in args else pathlib.Path.cwd()
for name, text in json.loads(os.environ.get("FAKE_AGENT_FILES", "{{}}")).items():
    (folder / name).write_text(text)
print("agent done")
"""


def fake_agent(folder: Path) -> Path:
    path = folder / "fake-agent"
    path.write_text(FAKE_AGENT.format(python=sys.executable))
    path.chmod(0o755)
    return path


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository (main: README.md, app.py; branch solution: README with a comment) served
    for URL, the fake agent as copilot and claude, and tmp_path as working and home folder."""
    repo = git_repo(tmp_path / "repo", {"README.md": "# Demo\n", "app.py": "print(1)\n"})
    commit(repo, {"README.md": "# Demo\n\nA helpful comment.\n"}, branch="solution")
    agent = fake_agent(tmp_path)
    monkeypatch.setenv("BENCH_YOUBENCHA_COPILOT", str(agent))
    monkeypatch.setenv("BENCH_YOUBENCHA_CLAUDE", str(agent))
    monkeypatch.setenv("BENCH_YOUBENCHA_REPOS", f"{URL}={repo}")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(path: Path) -> dict[str, Any]:
    """Run the file in process; its one task's result."""
    outcome = run_suite(path, runs_dir=path.parent / "runs")
    (task,) = list(outcome.report.tasks())
    return task


def by_name(task: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in task["evaluators"]}


def bench(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "bench", *args], capture_output=True, text=True, check=False, cwd=cwd, env=env
    )
    return done.returncode, done.stdout + done.stderr
