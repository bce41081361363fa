"""Benchmark: what a fresh workspace per task costs.

The same scripted agent (a Python script changing one file) runs on N tasks twice through
``bench run``: once with ``repo:`` (a fresh clone of a repository of F files per task, snapshot
before and after, diff, git-diff evaluated, workspace removed), once as a plain ``command``
target with no workspace. The difference per task is the workspace's cost.

    nox -s bench -- --agent              # or: python benchmarks/run_agent.py --tasks 200 --files 300
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT = "from pathlib import Path\nPath('notes.txt').write_text('agent was here\\n')\nprint('done')\n"


def make_repo(folder: Path, files: int) -> Path:
    repo = folder / "repo"
    (repo / "src").mkdir(parents=True)
    for i in range(files):
        (repo / "src" / f"module_{i}.py").write_text(
            "".join(f"def f{j}():\n    return {j}\n" for j in range(40))
        )
    identity = ["-c", "user.name=b", "-c", "user.email=b@localhost"]
    for args in (["init", "-q", "--initial-branch=main"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", *identity, *args], cwd=repo, check=True)
    return repo


def write_suite(folder: Path, tasks: int, workspace: bool) -> Path:
    command = json.dumps([sys.executable, str(folder / "agent.py")])
    lines = [
        f"name: {'workspace' if workspace else 'plain'}",
        *(["repo: repo"] if workspace else []),
        f"target: {{type: command, command: {command}}}",
        "tasks:",
    ]
    check = "{type: git-diff, max_files_changed: 1}" if workspace else "{type: contains, value: done}"
    lines += [f"  - {{id: t{i}, prompt: go, evaluate: {check}}}" for i in range(tasks)]
    path = folder / f"{'workspace' if workspace else 'plain'}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def timed(suite: Path, concurrency: int) -> float:
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            "run",
            str(suite),
            "-q",
            "-j",
            str(concurrency),
            "--runs-dir",
            str(suite.parent / "runs"),
        ],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "agent.py").write_text(AGENT)
        make_repo(folder, args.files)
        size = sum(p.stat().st_size for p in (folder / "repo" / "src").iterdir())
        plain = timed(write_suite(folder, args.tasks, workspace=False), args.concurrency)
        ws = timed(write_suite(folder, args.tasks, workspace=True), args.concurrency)
    n = args.tasks
    print(
        f"{n} tasks, repository of {args.files} files ({size / 1e6:.1f} MB), concurrency {args.concurrency}"
    )
    print(f"  plain command target: {plain:6.2f} s  ({n / plain:6.1f} tasks/s)")
    print(f"  fresh workspace each: {ws:6.2f} s  ({n / ws:6.1f} tasks/s)")
    print(f"  workspace cost: {(ws - plain) / n * 1000:.0f} ms per task (wall, {args.concurrency} in flight)")


if __name__ == "__main__":
    main()
