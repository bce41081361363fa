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
