"""examples/agent: the scripted agent suite offline, and the built-in agent loop against the fake server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.testing.server import Reply
from bench.testing.verdicts import judge_verdict

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "agent"


def copy_example(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "agent"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("repo", ".bench"))
    subprocess.run([sys.executable, str(folder / "make_repo.py")], check=True, capture_output=True)
    # the suite runs `python agent.py`: the interpreter running the tests is the one on PATH
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(folder)
    return folder


def test_scripted_agent_suite_runs_offline(bench_cli, tmp_path, monkeypatch):
    folder = copy_example(tmp_path, monkeypatch)
    checked = bench_cli("validate", folder / "suite.yaml")
    assert f"workspace: a fresh copy of {folder / 'repo'} at main for each of 2 task runs" in checked.stdout
    result = bench_cli("run", folder / "suite.yaml", "-o", "out.json")
    assert result.exit_code == 0, result.stdout + result.stderr
    tasks = {t["id"]: t for t in json.loads((folder / "out.json").read_text())["tasks"]}
    fix = tasks["fix-add"]
    by_type = {e["type"]: e for e in fix["evaluators"]}
    assert by_type["git-diff"]["reason"] == "2 changed files (+6/-1 lines)"
    assert by_type["expected-diff"]["score"] == 1.0  # the agent's result equals the solution branch
    assert by_type["recovery_behavior"]["reason"] == "recovered from 1 of 1 failed calls"
    assert fix["workspace"]["captured"]["calc.py"]["exists"] is True
    assert [f["path"] for f in fix["workspace"]["files"]] == ["calc.py", "test_calc.py"]
    assert fix["usage"]["total_tokens"] == 2040
    assert tasks["document-usage"]["workspace"]["files"][0]["path"] == "README.md"
    assert (folder / "repo" / "calc.py").read_text().count("return a - b") == 1  # the source is untouched


def test_agent_loop_suite_against_the_fake_server(bench_cli, tmp_path, monkeypatch, bench_fake_llm):
    folder = copy_example(tmp_path, monkeypatch)
    source = (folder / "repo" / "calc.py").read_text()
    turns = [
        Reply(None, tool_calls=[{"name": "read_file", "arguments": {"path": "calc.py"}}]),
        Reply(
            None,
            tool_calls=[
                {
                    "name": "write_file",
                    "arguments": {"path": "calc.py", "content": source.replace("a - b", "a + b")},
                }
            ],
        ),
        Reply(
            None,
            tool_calls=[
                {
                    "name": "run_command",
                    "arguments": {"command": "python -c 'import calc; assert calc.add(2, 3) == 5'"},
                }
            ],
        ),
        Reply("add() now adds; the check passes."),
    ]

    def respond(body: dict[str, Any]) -> Reply:
        tools = body.get("tools") or []
        if tools and tools[0]["function"]["name"] == "read_file":  # the agent, not a judge
            return turns[sum(m["role"] == "assistant" for m in body["messages"])]
        return judge_verdict(passed=True)(body)

    bench_fake_llm.default = respond
    result = bench_cli("run", folder / "loop.yaml", "-o", "out.json")
    assert result.exit_code == 0, result.stdout + result.stderr
    task = json.loads((folder / "out.json").read_text())["tasks"][0]
    assert [c["name"] for c in task["tool_calls"]] == ["read_file", "write_file", "run_command"]
    assert all(e["passed"] for e in task["evaluators"]), task["evaluators"]
    completion = next(e for e in task["evaluators"] if e["type"] == "task_completion")
    assert completion["reason"].startswith("2 of 2 criteria met")


def test_an_agent_run_is_rescored_from_its_stored_trajectory_and_diff_without_running_the_agent(
    bench_cli, tmp_path, monkeypatch
):
    """The run keeps the agent's steps and its workspace's diff: a changed limit on the change and
    the step checks judge them again after the agent (and its workspace) are gone."""
    folder = copy_example(tmp_path, monkeypatch)
    assert bench_cli("run", folder / "suite.yaml", "-q", "-o", "run.json").exit_code == 0
    (folder / "agent.py").write_text("raise SystemExit('the agent must not run on a rescore')\n")
    changed = (folder / "suite.yaml").read_text()
    changed = changed.replace("max_lines_added: 20", "max_lines_added: 5")
    changed = changed.replace('      - {type: file_content_match, path: README.md, value: "## Usage"}\n', "")
    changed = changed.replace("        config: {reference_branch: solution, threshold: 0.9}\n", "")
    changed = changed.replace("      - name: expected-diff\n", "")
    (folder / "rescore.yaml").write_text(changed)
    result = bench_cli("rescore", "latest", "--suite", "rescore.yaml", "-o", "rescored.json")
    assert result.exit_code == 1, result.output  # a task fails: nothing is an error
    tasks = {t["id"]: t for t in json.loads((folder / "rescored.json").read_text())["tasks"]}
    fix = {e["type"]: e for e in tasks["fix-add"]["evaluators"]}
    assert fix["git-diff"]["reason"] == (
        "2 changed files (+6/-1 lines) | Violations: lines_added (6) exceeds max_lines_added (5)"
    )
    assert "+    return a + b" in tasks["fix-add"]["workspace"]["patch"]  # kept from the run
    assert fix["file_content_match"]["reason"] == "calc.py contains 'return a + b'"  # its capture
    assert fix["recovery_behavior"]["reason"] == "recovered from 1 of 1 failed calls"
    assert fix["trajectory"]["passed"] is True
    assert fix["scope_adherence"]["reason"] == "2 of 2 changed files in scope"
    assert tasks["fix-add"]["status"] == "failed"
    assert tasks["document-usage"]["status"] == "failed"  # +7 lines over the new limit of 5
    assert [f["path"] for f in tasks["document-usage"]["workspace"]["files"]] == ["README.md"]
    # A file the run did not capture is not judged absent: its check has no verdict.
    again = bench_cli("rescore", "latest", "--suite", "suite.yaml", "-o", "again.json")  # of the rescore
    assert again.exit_code == 3, again.output
    fix, usage = json.loads((folder / "again.json").read_text())["tasks"]
    assert [e["error"] for e in usage["evaluators"] if e["error"]] == [
        "file README.md was not captured when the task ran, and its workspace is gone: capture it "
        "(post_execution_checks: file_capture) to judge it on a rescore"
    ]
    by_type = {e["type"]: e for e in fix["evaluators"]}  # a rescore's run keeps what the run kept
    assert by_type["file_content_match"]["reason"] == "calc.py contains 'return a + b'"
    # expected-diff judges the tree rebuilt from the repository and the kept patch: the run's verdict.
    live = {e["type"]: e for e in json.loads((folder / "run.json").read_text())["tasks"][0]["evaluators"]}
    judged = ("passed", "score", "reason", "error", "details")
    assert {k: by_type["expected-diff"][k] for k in judged} == {k: live["expected-diff"][k] for k in judged}
    assert (
        by_type["expected-diff"]["reason"]
        == "Similarity: 100.0% | Files: 3 matched, 0 changed (score 1, at least 0.9 needed)"
    )


def _stored_fix_add(folder: Path, **changes: Any) -> str:
    """Change what the latest run kept of fix-add's workspace (its results line); its base commit."""
    (results,) = (folder / ".bench" / "runs").glob("*/results.jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    for row in rows:
        if row["id"] == "fix-add":
            row["workspace"].update(changes)
            base = row["workspace"]["base_commit"]
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return base


def _expected_diff_error(bench_cli, folder: Path) -> str:
    assert bench_cli("rescore", "latest", "--suite", "suite.yaml", "-o", "again.json").exit_code == 3
    fix = json.loads((folder / "again.json").read_text())["tasks"][0]
    return next(e["error"] for e in fix["evaluators"] if e["type"] == "expected-diff")


def test_d17_expected_diff_on_a_rescore_refuses_a_truncated_patch(bench_cli, tmp_path, monkeypatch):
    """A patch cut at 1 MiB would rebuild a partial tree: expected-diff has no verdict, naming why."""
    folder = copy_example(tmp_path, monkeypatch)
    assert bench_cli("run", folder / "suite.yaml", "-q").exit_code == 0
    _stored_fix_add(folder, patch_truncated=True)
    assert _expected_diff_error(bench_cli, folder) == (
        "expected-diff: cannot rebuild the task's workspace on a rescore: the stored patch was cut "
        "at 1 MiB (patch_truncated), and a partial tree is never judged"
    )


def test_d18_expected_diff_on_a_rescore_refuses_a_patch_that_does_not_apply(bench_cli, tmp_path, monkeypatch):
    """The repository's base commit no longer matches the kept patch: an error, never a partial tree."""
    folder = copy_example(tmp_path, monkeypatch)
    assert bench_cli("run", folder / "suite.yaml", "-q").exit_code == 0
    patch = "--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,1 @@\n-not in calc.py\n+x\n"
    base = _stored_fix_add(folder, patch="diff --git a/calc.py b/calc.py\n" + patch)
    assert _expected_diff_error(bench_cli, folder) == (
        "expected-diff: cannot rebuild the task's workspace on a rescore: the stored patch does not "
        f"apply to {folder / 'repo'} at {base}: git apply failed: error: patch failed: calc.py:1; "
        "error: calc.py: patch does not apply"
    )
