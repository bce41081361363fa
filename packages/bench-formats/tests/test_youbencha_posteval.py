"""youBencha's ``post_evaluation`` hooks, run by bench's ``after_task`` step.

As src/core/orchestrator.ts ``runEvaluation`` (steps 6-8: results bundle, saved to
``artifacts/results.json``, then ``runPostEvaluations``, all hooks at once, never failing the
evaluation), src/post-evaluation/script.ts (``/bin/sh -c``, ``process.env`` plus RESULTS_PATH,
ARTIFACTS_DIR, WORKSPACE_DIR, TEST_CASE_NAME, OVERALL_STATUS and the hook's ``env``; ``${X}``
replaced once per argument; ``working_dir`` or the working directory), database.ts (one JSON line
with ``exported_at``) and webhook.ts (``{results}`` with youBencha's User-Agent).
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from youbencha_helpers import URL, by_name, run

from bench import ConfigError
from bench.testing import load_suite

TEST_CASE = f"""\
name: add-readme-comment
description: Add a helpful comment to the README
repo: {URL}
branch: main
agent:
  type: copilot-cli
  config:
    prompt: Add a helpful comment to README.md
evaluators:
  - name: git-diff
    config:
      assertions:
        max_files_changed: 1
"""

POST = """\
post_evaluation:
  - name: script
    config:
      command: sh
      args: ["-c", "'cp \\"$RESULTS_PATH\\" bundle.json; env > env.txt; ls \\"$WORKSPACE_DIR\\" > ws.txt'", "${TEST_CASE_NAME}"]
      working_dir: out
      env: {GREETING: hello}
  - name: database
    config: {type: json-file, output_path: out/history.jsonl}
"""


@pytest.fixture
def agent_edits(demo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FAKE_AGENT_FILES", json.dumps({"README.md": "# Demo\n\nA helpful comment.\n"}))
    (demo / "out").mkdir()
    return demo


def test_post_evaluation_hooks_get_the_results_bundle_after_the_evaluators(agent_edits: Path):
    demo = agent_edits
    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE + POST)
    task = run(path)
    assert task["status"] == "passed", task["error"]
    bundle = json.loads((demo / "out" / "bundle.json").read_text())
    assert bundle["version"] == "1.0.0"
    assert bundle["test_case"]["name"] == "add-readme-comment"
    assert (bundle["test_case"]["repo"], bundle["test_case"]["branch"]) == (URL, "main")
    assert bundle["summary"] == {
        "total_evaluators": 1,
        "passed": 1,
        "failed": 0,
        "skipped": 0,
        "overall_status": "passed",
    }
    (evaluator,) = bundle["evaluators"]
    assert (evaluator["evaluator"], evaluator["status"]) == ("git-diff", "passed")
    assert evaluator["metrics"] == by_name(task)["git-diff"]["details"]
    assert (bundle["agent"]["status"], bundle["agent"]["exit_code"]) == ("success", 0)
    env = dict(
        line.split("=", 1) for line in (demo / "out" / "env.txt").read_text().splitlines() if "=" in line
    )
    assert (env["TEST_CASE_NAME"], env["OVERALL_STATUS"], env["GREETING"]) == (
        "add-readme-comment",
        "passed",
        "hello",
    )
    assert env["RESULTS_PATH"] == str(Path(env["ARTIFACTS_DIR"], "results.json"))
    # WORKSPACE_DIR: the agent's copy, still there while the hooks run (youBencha: its run folder)
    assert "README.md" in (demo / "out" / "ws.txt").read_text().split()
    assert Path(env["WORKSPACE_DIR"]) != demo
    assert not Path(env["ARTIFACTS_DIR"]).exists()
    (line,) = (demo / "out" / "history.jsonl").read_text().splitlines()
    exported = json.loads(line)
    assert exported["exported_at"].endswith("Z")
    assert {k: v for k, v in exported.items() if k != "exported_at"} == bundle


def test_a_failing_post_evaluation_hook_does_not_change_the_verdict(
    agent_edits: Path, capfd: pytest.CaptureFixture[str]
):
    path = agent_edits / "testcase.yaml"
    path.write_text(
        TEST_CASE
        + "post_evaluation:\n"
        + "  - name: script\n    config: {command: exit, args: ['3']}\n"
        + "  - name: script\n    config: {command: sleep, args: ['30'], timeout_ms: 300}\n"
        + "  - name: database\n    config: {type: json-file, output_path: out/h.jsonl, include_full_bundle: false}\n"
    )
    task = run(path)
    assert task["status"] == "passed"
    err = capfd.readouterr().err
    assert "youBencha post-evaluation ✗ script: Script exited with code 3" in err
    assert "youBencha post-evaluation ✗ script: Failed to execute script" in err  # the timeout
    assert "youBencha post-evaluation ✓ database: Successfully exported results to " in err
    exported = json.loads((agent_edits / "out" / "h.jsonl").read_text())
    assert set(exported) == {
        "version",
        "test_case",
        "execution",
        "agent",
        "summary",
        "evaluators",
        "artifacts",
        "exported_at",
    }
    assert "expected_branch" not in exported["test_case"]  # extractSummary's fields only


def test_no_post_evaluation_runs_after_a_failed_pre_execution(agent_edits: Path):
    path = agent_edits / "testcase.yaml"
    path.write_text(
        TEST_CASE
        + "pre_execution:\n  - name: script\n    config: {command: exit, args: ['3']}\n"
        + "post_evaluation:\n  - name: database\n    config: {type: json-file, output_path: out/h.jsonl}\n"
    )
    task = run(path)
    assert task["status"] == "error"
    assert not (agent_edits / "out" / "h.jsonl").exists()  # runEvaluation threw before step 8


def test_a_webhook_post_evaluation_posts_the_bundle(agent_edits: Path):
    seen: list[dict[str, Any]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            seen.append({"headers": dict(self.headers), "body": json.loads(body)})
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/hook"
        path = agent_edits / "testcase.yaml"
        path.write_text(
            TEST_CASE
            + "post_evaluation:\n  - name: webhook\n"
            + f"    config: {{url: '{url}', method: PUT, headers: {{X-Team: qa}}, include_artifacts: true}}\n"
        )
        assert run(path)["status"] == "passed"
    finally:
        server.shutdown()
    (request,) = seen
    assert request["headers"]["User-Agent"] == "youBencha/0.1.0"
    assert request["headers"]["X-Team"] == "qa"
    assert request["body"]["results"]["summary"]["overall_status"] == "passed"
    assert set(request["body"]) == {"results", "artifacts_path"}


def test_an_eval_config_runs_its_post_evaluation(demo: Path):
    (demo / "output").mkdir()
    (demo / "output" / "a.txt").write_text("x\n")
    path = demo / "eval.yaml"
    path.write_text(
        "name: review-output\ndescription: Check a folder\ndirectory: ./output\n"
        "evaluators:\n  - name: git-diff\n    config: {}\n"
        "post_evaluation:\n  - name: database\n    config: {type: json-file, output_path: h.jsonl}\n"
    )
    run(path)
    exported = json.loads((demo / "h.jsonl").read_text())
    assert exported["summary"]["overall_status"] == "partial"  # git-diff skipped: not a repository


@pytest.mark.parametrize(
    ("hook", "message"),
    [
        (
            "{name: email, config: {command: x}}",
            "post_evaluation.0.name: Invalid enum value. Expected 'webhook' | 'database' | 'script', "
            "received 'email'",
        ),
        ("{name: database, config: {type: csv, output_path: x}}", "post_evaluation.0.config: Invalid input"),
        ("{name: script}", "post_evaluation.0.config: Required"),
    ],
)
def test_an_invalid_post_evaluation_is_refused_with_youbenchas_message(demo: Path, hook: str, message: str):
    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE + f"post_evaluation:\n  - {hook}\n")
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert caught.value.message == "Invalid test case configuration: " + message


def test_workspace_dir_and_name_place_the_run_as_youbencha_does(agent_edits: Path):
    """generateWorkspacePaths (src/lib/path-utils.ts): ROOT/NAME-YYYY-MM-DD-MS/src-modified, kept."""
    path = agent_edits / "testcase.yaml"
    path.write_text(TEST_CASE + "workspace_dir: ws\nworkspace_name: my-run\n")
    task = run(path)
    assert task["status"] == "passed"
    (folder,) = (agent_edits / "ws").iterdir()
    assert re.fullmatch(r"my-run-\d{4}-\d\d-\d\d-\d{13}", folder.name)
    assert (folder / "src-modified" / "README.md").read_text() == "# Demo\n\nA helpful comment.\n"
    assert task["workspace"]["path"] == str(folder / "src-modified")
    assert task["workspace"]["escapes"] == []


def test_a_placed_run_keeps_its_results_bundle_and_hooks_see_the_run_folder(agent_edits: Path):
    """runPostEvaluations' context: workspaceDir is the run folder, artifactsDir its artifacts/."""
    path = agent_edits / "testcase.yaml"
    path.write_text(TEST_CASE + "workspace_dir: ws\n" + POST)
    task = run(path)
    (folder,) = (agent_edits / "ws").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["artifacts", "src-modified"]
    bundle = json.loads((folder / "artifacts" / "results.json").read_text())
    assert bundle == json.loads((agent_edits / "out" / "bundle.json").read_text())
    assert bundle["test_case"]["commit"] == task["workspace"]["base_commit"]
    assert bundle["execution"]["environment"]["workspace_dir"] == str(folder)
    assert (agent_edits / "out" / "ws.txt").read_text().split() == ["artifacts", "src-modified"]


def test_workspace_name_alone_uses_youbenchas_default_folder(agent_edits: Path):
    path = agent_edits / "testcase.yaml"
    path.write_text(TEST_CASE + "workspace_name: named\n")
    run(path)
    (folder,) = (agent_edits / ".youbencha-workspace").iterdir()
    assert folder.name.startswith("named-")


def test_a_workspace_dir_outside_the_test_case_folder_is_refused(demo: Path):
    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE + "workspace_dir: ../elsewhere\n")
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert caught.value.message == (
        f"path escapes the suite folder: workspace_dir ../elsewhere (resolved to {demo.parent / 'elsewhere'}); "
        f"a test case may only place its workspace inside {demo} (pass --allow-outside-root to allow it)"
    )
