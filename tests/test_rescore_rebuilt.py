"""`bench rescore` of an agent's run: expected-diff judges the workspace rebuilt from the
repository and the kept patch, and gives the run's own verdict, or none with the reason why."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.vocabulary.models import RepoSpec
from bench.workspace import GitError, rebuilt
from bench.workspace.checkout import Workspaces

#: A PNG's first bytes (a NUL among them: git calls the file binary).
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
JUDGED = ("passed", "score", "reason", "error", "details")

SUITE = """\
name: rebuilt
repo: repo
target: {{type: command, command: [{python}, "{{suite_dir}}/agent.py"]}}
tasks:
  - id: change
    prompt: go
    evaluate:
      - name: expected-diff
        config: {{reference_dir: solution, threshold: 0.5}}
      - {{name: git-diff, config: {{assertions: {{max_files_changed: 9}}}}}}
      - {{type: scope_adherence, allowed_paths: ["*.png", "*.py", "*.txt", "*.sh"]}}
"""

#: The agent: a binary file changed and one added, renames, a deletion, mode bits, a symlink, and
#: files the repository's .gitignore matches (a log, a build folder with a binary in it, a file
#: the repository tracks although ignored).
AGENT = """\
import os, pathlib
png = bytes.fromhex({png!r})
{changes}
{ignored}
print("done")
"""
CHANGES = """\
pathlib.Path("logo.png").write_bytes(png + b"changed")
pathlib.Path("icon.png").write_bytes(png + b"new")
os.rename("old.txt", "new.txt")
os.rename("pic.png", "pic2.png")
os.chmod("logo.png", 0o755)
os.remove("gone.txt")
os.chmod("run.sh", 0o755)
os.symlink("calc.py", "link.py")
"""
IGNORED = """\
pathlib.Path("debug.log").write_text("a log line\\n")
os.makedirs("build", exist_ok=True)
pathlib.Path("build/out.bin").write_bytes(png)
pathlib.Path("tracked.log").write_text("changed by the agent\\n")
"""


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "commit.gpgsign=false", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def _write(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def make_suite(tmp_path: Path, changes: bool = False, ignored: bool = False) -> Path:
    """A repository (text, a PNG, a .gitignore), the agent, and the reference it is judged by."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _write(repo, {
        "calc.py": b"def add(a, b):\n    return a + b\n", "logo.png": PNG, "pic.png": PNG, "old.txt": b"moved\n",
        "gone.txt": b"deleted\n", "run.sh": b"echo hi\n", ".gitignore": b"*.log\nbuild/\n",
    })  # fmt: skip
    _git("init", "--quiet", "--initial-branch=main", cwd=repo)
    _write(repo, {"tracked.log": b"tracked, yet ignored\n", "kept.log": b"tracked, yet ignored\n"})
    _git("add", "-A", cwd=repo)
    _git("add", "--force", "tracked.log", "kept.log", cwd=repo)
    _git("commit", "--quiet", "-m", "start", cwd=repo)
    # The reference: the agent's tree without its ignored files, and one text file different.
    _write(tmp_path / "solution", {
        "calc.py": b"def add(a, b):\n    return b + a\n", "logo.png": PNG + b"changed", "icon.png": PNG + b"new",
        "new.txt": b"moved\n", "pic2.png": PNG, "run.sh": b"echo hi\n", ".gitignore": b"*.log\nbuild/\n",
        "link.py": b"def add(a, b):\n    return a + b\n", "tracked.log": b"tracked, yet ignored\n",
        "kept.log": b"tracked, yet ignored\n",
    })  # fmt: skip
    agent = AGENT.format(
        png=PNG.hex(), changes=CHANGES if changes else "", ignored=IGNORED if ignored else ""
    )
    (tmp_path / "agent.py").write_text(agent)
    (tmp_path / "suite.yaml").write_text(SUITE.format(python=json.dumps(sys.executable)))
    return tmp_path / "suite.yaml"


def _verdicts(report: Path) -> dict[str, dict[str, Any]]:
    """Each evaluator's verdict on the report's one task, by type."""
    (task,) = json.loads(report.read_text())["tasks"]
    return {e["type"]: {k: e[k] for k in JUDGED} for e in task["evaluators"]}


def _expected_diff(report: Path) -> dict[str, Any]:
    return _verdicts(report)["expected-diff"]


def run_and_rescore(bench_cli, suite: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every evaluator's verdict on the run, then on its rescore (the agent gone)."""
    run = bench_cli("run", suite, "-q", "-o", "run.json")
    assert run.exit_code in (0, 1), run.output
    (suite.parent / "agent.py").write_text("raise SystemExit('the agent must not run on a rescore')\n")
    bench_cli("rescore", "latest", "-q", "-o", "rescored.json")
    return _verdicts(suite.parent / "run.json"), _verdicts(suite.parent / "rescored.json")


def test_d19_rescore_rebuilds_binary_files_renames_deletions_and_modes(bench_cli, tmp_path):
    """A binary file changed and added, a rename, a deletion, a mode bit: the rebuilt tree is the
    agent's, so expected-diff's verdict on the rescore is the run's."""
    live, again = run_and_rescore(bench_cli, make_suite(tmp_path, changes=True))
    assert live["expected-diff"]["error"] is None, live
    assert live["expected-diff"]["details"]["files_matched"] == 9, live
    assert live["git-diff"]["reason"] == "7 changed files (+1/-1 lines)", live
    assert again == live


def test_d20_rescore_rebuilds_the_files_git_ignores_that_the_run_saw(bench_cli, tmp_path):
    """Files the repository's .gitignore matches are in no patch, yet expected-diff saw them on
    the run (two added, one the repository tracks changed, one untouched): the run keeps them,
    and the rescore's verdict is the run's."""
    live, again = run_and_rescore(bench_cli, make_suite(tmp_path, ignored=True))
    seen = {f["path"]: f["status"] for f in live["expected-diff"]["details"]["file_similarities"]}
    ignored = ("build/out.bin", "debug.log", "tracked.log", "kept.log")
    assert [seen[path] for path in ignored] == ["added", "added", "changed", "matched"], live
    assert again == live


def test_d21_rescore_of_a_run_that_kept_no_rebuild_record_refuses_expected_diff(bench_cli, tmp_path):
    """A run made before bench kept binary files' content and ignored files: its tree may not be
    the agent's, so expected-diff has no verdict, naming why (never a different one)."""
    suite = make_suite(tmp_path, ignored=True)
    assert bench_cli("run", suite, "-q").exit_code in (0, 1)
    (results,) = (tmp_path / ".bench" / "runs").glob("*/results.jsonl")
    (row,) = [json.loads(line) for line in results.read_text().splitlines()]
    row["workspace"].pop("rebuild", None)  # as a run made before bench kept it
    results.write_text(json.dumps(row) + "\n")
    assert bench_cli("rescore", "latest", "-q", "-o", "rescored.json").exit_code == 3
    assert _expected_diff(tmp_path / "rescored.json")["error"] == (
        "expected-diff: cannot rebuild the task's workspace on a rescore: the run kept neither its "
        "binary files' content nor the files git ignores (it was made before bench kept them), and "
        "a partial tree is never judged: run the task again"
    )


def _nested_repository(work: Path) -> None:
    _write(work, {"sub/a.txt": b"x\n"})
    _git("init", "--quiet", cwd=work / "sub")
    _git("add", "-A", cwd=work / "sub")
    _git("commit", "--quiet", "-m", "x", cwd=work / "sub")


def _sparse(path: Path, size: int) -> None:
    with path.open("wb") as handle:
        handle.truncate(size)


UNKEPT = {
    "latin-1": (
        lambda work: _write(work, {"notes.txt": "café\n".encode("latin-1")}),
        "the change's files hold bytes that are not UTF-8 (a file or a name in another encoding)",
    ),
    "ignored-over-cap": (
        lambda work: _sparse(work / "big.log", 2 * 1024 * 1024),
        "the files git ignores in the workspace (3, 2097194 bytes) are over the 1 MiB of patch a result keeps",
    ),
    "over-snapshot-cap": (
        lambda work: _sparse(work / "huge.bin", 101 * 1024 * 1024),
        "huge.bin was larger than the snapshot cap, and its content was not kept",
    ),
    "nested-repository": (
        _nested_repository,
        "sub is a git repository inside the workspace, and no patch holds its files",
    ),
}


def test_d22_a_change_a_result_cannot_keep_whole_is_refused_on_a_rescore(tmp_path):
    """The run records why its tree cannot be made again; rebuilding it raises that reason.
    (One mirror of the repository for every case: a fresh copy each, as a run makes them.)"""
    make_suite(tmp_path)
    repo = RepoSpec(source=str(tmp_path / "repo"), ref="main")

    async def refused(workspaces: Workspaces, change: Callable[[Path], None]) -> tuple[Any, str]:
        checkout = await workspaces.prepare(repo)
        change(checkout.path)
        diff = (await checkout.finish([], 0))["diff"]
        with pytest.raises(GitError) as caught:
            async with rebuilt(repo, diff, root=tmp_path):
                pass
        return diff["rebuild"], str(caught.value)

    async def every_case() -> dict[str, tuple[Any, str]]:
        workspaces = Workspaces(root=tmp_path)
        try:
            return {case: await refused(workspaces, change) for case, (change, _) in UNKEPT.items()}
        finally:
            workspaces.close()

    expected = {
        case: ({"refused": reason}, f"the run's workspace cannot be made again: {reason}")
        for case, (_, reason) in UNKEPT.items()
    }
    assert asyncio.run(every_case()) == expected
