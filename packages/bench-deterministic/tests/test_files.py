"""File checks on a real workspace folder and on captured files (RELIABILITY B07)."""

from __future__ import annotations

import json
import os

import pytest

from bench import BenchError, Response, Task
from bench.testing import run_evaluator, write_suite

CANARY = "canary-secret-7f3a"


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Demo\nrun it\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "config.json").write_text(json.dumps({"port": 8080, "debug": False}))
    (tmp_path / "outside.txt").write_text(CANARY)
    return root


def task_in(root) -> Task:
    return Task(id="t", prompt="", workspace=str(root))


def check(settings, root, response="done"):
    return run_evaluator(settings, response, task=task_in(root))


def test_file_exists_and_must_not_exist(workspace):
    assert check({"type": "file_exists", "path": "README.md"}, workspace).passed
    missing = check({"type": "file_exists", "path": "nope.md"}, workspace)
    assert (missing.passed, missing.reason) == (False, "nope.md does not exist")
    assert check({"type": "file_exists", "path": "nope.md", "must_exist": False}, workspace).passed
    assert check({"type": "file_exists", "target": "file:src/app.py"}, workspace).passed  # AgentClash form


@pytest.mark.parametrize(
    ("settings", "passed"),
    [
        ({"value": "run it"}, True),
        ({"value": "# Demo\nrun it\n", "match_mode": "exact"}, True),
        ({"value": "# Demo run it", "match_mode": "exact", "ignore_whitespace": True}, False),
        ({"value": "#  Demo\n run it ", "match_mode": "exact", "ignore_whitespace": True}, True),
        ({"value": "(?m)^# \\w+$", "match_mode": "regex"}, True),
        ({"value": "^# \\w+$", "match_mode": "regex"}, False),  # ^ and $ anchor the whole text, as in Go
        ({"value": "secret", "match_mode": "not_contains"}, True),
    ],
)
def test_file_content_match_modes(workspace, settings, passed):
    outcome = check({"type": "file_content_match", "path": "README.md", **settings}, workspace)
    assert outcome.error is None, outcome.error
    assert outcome.passed is passed, outcome.reason


def test_file_content_json_equal_and_schema(workspace):
    equal = {"type": "file_content_match", "path": "config.json", "match_mode": "json_equal"}
    assert check({**equal, "value": '{"debug": false, "port": 8080.0}'}, workspace).passed
    assert not check({**equal, "value": '{"debug": true, "port": 8080}'}, workspace).passed
    schema = {
        "type": "object",
        "required": ["port"],
        "properties": {"port": {"type": "integer", "maximum": 1024}},
    }
    outcome = check({"type": "file_json_schema", "path": "config.json", "schema": schema}, workspace)
    assert (outcome.passed, outcome.reason) == (
        False,
        "config.json: port: 8080 is greater than the maximum of 1024",
    )


def test_captured_files_in_the_response_are_read_without_a_workspace():
    response = Response(output="ok", artifacts={"files": {"out.txt": "result: 42"}})
    assert run_evaluator({"type": "file_content_match", "path": "out.txt", "value": "42"}, response).passed
    assert not run_evaluator({"type": "file_exists", "path": "other.txt"}, response).passed


def test_a_file_check_without_files_or_workspace_is_an_error():
    outcome = run_evaluator({"type": "file_exists", "path": "a.txt"}, "no files")
    assert outcome.error == "file a.txt: the task has no workspace and the response captured no files"


def test_directory_structure(workspace):
    settings = {
        "type": "directory_structure",
        "required_files": ["README.md", "src/app.py"],
        "required_directories": ["src/"],
        "forbidden_files": [".env"],
    }
    assert check(settings, workspace).passed
    in_src = {"type": "directory_structure", "target": "file:src", "required_files": ["app.py"]}
    assert check(in_src, workspace).passed
    (workspace / ".env").write_text("KEY=1")
    outcome = check({**settings, "required_files": ["README.md", "docs/index.md"]}, workspace)
    assert outcome.reason == "missing required files: docs/index.md; forbidden files present: .env"


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "src/../../outside.txt", "~/.bashrc"])
def test_b07_paths_outside_the_workspace_are_refused_at_load_time(workspace, path):
    with pytest.raises(BenchError, match="path escapes the workspace"):
        check({"type": "file_content_match", "path": path, "value": "x"}, workspace)


def test_b07_symlinks_leading_outside_are_refused_and_never_read(workspace, tmp_path):
    os.symlink(tmp_path / "outside.txt", workspace / "link.txt")
    os.symlink(workspace / "loop-a", workspace / "loop-b")
    os.symlink(workspace / "loop-b", workspace / "loop-a")
    outcome = check({"type": "file_content_match", "path": "link.txt", "value": CANARY}, workspace)
    assert outcome.error == "path escapes the workspace: link.txt"
    assert CANARY not in repr(outcome)
    loop = check({"type": "file_exists", "path": "loop-a"}, workspace)
    assert loop.error is not None
    assert loop.error.startswith(("cannot resolve loop-a", "cannot open loop-a"))


def test_b07_through_a_whole_run_the_canary_never_reaches_the_report(workspace, tmp_path, bench_cli):
    os.symlink(tmp_path / "outside.txt", workspace / "creds")
    suite = write_suite(
        tmp_path,
        """
        tasks:
          - id: sneaky
            workspace: ws
            response: "done"
            evaluate:
              - {type: file_content_match, path: creds, value: "canary"}
              - {type: postcondition, target: "file:creds", condition: contains, value: "canary"}
        """,
    )
    result = bench_cli("run", suite, "--output", tmp_path / "out.json", "--runs-dir", tmp_path / ".bench")
    assert result.exit_code == 3
    assert CANARY not in result.stdout + result.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    errors = [e["error"] for e in report["tasks"][0]["evaluators"]]
    assert errors == ["path escapes the workspace: creds"] * 2
    for path in [tmp_path / "out.json", *(tmp_path / ".bench").rglob("*")]:
        if path.is_file():
            assert CANARY not in path.read_text(errors="replace"), path


def test_workspace_must_exist_when_the_suite_is_loaded(tmp_path):
    from bench.testing import load_suite

    suite = write_suite(tmp_path, "tasks:\n  - {id: a, workspace: nowhere, response: x, evaluate: is_json}\n")
    with pytest.raises(BenchError, match=r"tasks\[0\].workspace: workspace nowhere is not a directory"):
        load_suite(suite)
