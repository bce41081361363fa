"""Defects found by the outside sweep (issue 20), named N01... in docs/reliability.md.

Each test drives the ``bench`` CLI the way the sweep did and checks what the user would see.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench.testing import git_repo, write_suite

PY = sys.executable


def _agent_suite(tmp_path: Path, ids: list[str], captured: str) -> Path:
    """A workspace suite whose agent writes ``captured`` (its own task id inside) and says done."""
    git_repo(tmp_path / "repo", {"a.txt": "one\n"})
    script = tmp_path / "agent.py"
    script.write_text(
        "import os, sys\nfrom pathlib import Path\n"
        f"Path({captured!r}).write_text('captured by ' + sys.argv[1])\nprint('done')\n"
    )
    tasks = "\n".join(
        f"  - {{id: {json.dumps(task_id)}, prompt: {json.dumps(task_id)}, evaluate: {{type: contains, value: done}}}}"
        for task_id in ids
    )
    return write_suite(
        tmp_path,
        f"repo: repo\n"
        f"target: {{type: command, command: [{json.dumps(PY)}, {json.dumps(str(script))}, '{{prompt}}']}}\n"
        f"post_execution_checks: [{{type: file_capture, path: {captured}}}]\n"
        f"tasks:\n{tasks}\n",
    )


def _run_folder(tmp_path: Path) -> Path:
    (folder,) = (tmp_path / ".bench" / "runs").iterdir()
    return folder


@pytest.mark.parametrize("task_id", [".", ".."])
def test_n01_a_dot_task_id_never_makes_the_run_folder_its_captures_folder(bench_cli, tmp_path, task_id):
    path = _agent_suite(tmp_path, [task_id, "other"], "results.jsonl")
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    lines = (_run_folder(tmp_path) / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == sorted([task_id, "other"])
    for task in json.loads((tmp_path / "out.json").read_text())["tasks"]:
        stored = Path(task["workspace"]["captured"]["results.jsonl"]["stored"])
        assert stored.read_text() == f"captured by {task['id']}"
        assert stored.resolve().parent.parent == _run_folder(tmp_path) / "captures"


def test_n01_ids_that_differ_only_in_unsafe_characters_keep_their_own_captures(bench_cli, tmp_path):
    path = _agent_suite(tmp_path, ["a/b", "a_b", "a b"], "note.txt")
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    tasks = json.loads((tmp_path / "out.json").read_text())["tasks"]
    stored = {t["id"]: Path(t["workspace"]["captured"]["note.txt"]["stored"]) for t in tasks}
    assert len(set(stored.values())) == 3
    assert {task_id: p.read_text() for task_id, p in stored.items()} == {
        "a/b": "captured by a/b",
        "a_b": "captured by a_b",
        "a b": "captured by a b",
    }


def test_n02_a_300_character_task_id_is_captured_like_any_other(bench_cli, tmp_path):
    long_id = "t" * 300
    path = _agent_suite(tmp_path, [long_id], "note.txt")
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    (task,) = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert task["status"] == "passed"
    assert Path(task["workspace"]["captured"]["note.txt"]["stored"]).read_text() == f"captured by {long_id}"


def test_n09_provider_names_never_carry_the_api_base_query_or_user_info():
    from bench.llm.client import public_url

    assert public_url("http://127.0.0.1:8000/v1?key=abc&x=1#frag") == "http://127.0.0.1:8000/v1"
    assert public_url("https://user:pa55word@example.test/v1") == "https://example.test/v1"
    assert public_url("https://example.test") == "https://example.test"
