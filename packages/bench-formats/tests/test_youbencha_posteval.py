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
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from youbencha_helpers import URL, by_name, run

from bench import ConfigError
from bench.testing import load_suite
from bench_formats.youbencha.posteval import Context, Outcome, run_webhook

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


#: Secrets a webhook's URL may carry: a password, a query token, a fragment.
PASSWORD, TOKEN, FRAGMENT = "pw-3f9c2a7d1b", "tk-8e4b6c0a95", "fr-5d2e7a1c43"


class Hook(BaseHTTPRequestHandler):
    """A webhook on 127.0.0.1 that keeps what it got; ``answers`` says what each path answers."""

    seen: list[dict[str, Any]]
    answers: dict[str, tuple[int, dict[str, str]]]

    def _take(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.seen.append(
            {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
        )
        code, headers = self.answers.get(self.path.split("?")[0], (204, {}))
        self.send_response(code)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_PUT = _take

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def hook_server() -> Iterator[Callable[..., tuple[str, list[dict[str, Any]]]]]:
    """Start webhooks: ``start(answers)`` is the base URL and the requests it gets."""
    servers: list[HTTPServer] = []

    def start(
        answers: dict[str, tuple[int, dict[str, str]]] | None = None,
    ) -> tuple[str, list[dict[str, Any]]]:
        seen: list[dict[str, Any]] = []
        handler = type("H", (Hook,), {"seen": seen, "answers": answers or {}})
        server = HTTPServer(("127.0.0.1", 0), handler)
        servers.append(server)
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        return f"127.0.0.1:{server.server_port}", seen

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_h26_a_webhook_posts_the_bundle_and_names_its_url_without_credentials(
    agent_edits: Path, hook_server: Any, capfd: pytest.CaptureFixture[str]
):
    """youBencha's http.request sends the path and query, never the URL's user:password; bench
    names the URL without them (and without the query, where tokens go) wherever it prints it."""
    where, seen = hook_server()
    url = f"http://qa:{PASSWORD}@{where}/hook?token={TOKEN}#{FRAGMENT}"
    path = agent_edits / "testcase.yaml"
    path.write_text(
        TEST_CASE
        + "post_evaluation:\n  - name: webhook\n"
        + f"    config: {{url: '{url}', method: PUT, headers: {{X-Team: qa}}, include_artifacts: true}}\n"
    )
    assert run(path)["status"] == "passed"
    (request,) = seen
    assert (request["method"], request["path"]) == ("PUT", f"/hook?token={TOKEN}")
    assert "Authorization" not in request["headers"]
    assert request["headers"]["User-Agent"] == "youBencha/0.1.0"
    assert request["headers"]["X-Team"] == "qa"
    body = json.loads(request["body"])
    assert body["results"]["summary"]["overall_status"] == "passed"
    assert set(body) == {"results", "artifacts_path"}
    err = capfd.readouterr().err
    assert f"youBencha post-evaluation ✓ webhook: Successfully posted results to http://{where}/hook\n" in err
    written = b"".join(
        p.read_bytes() for p in agent_edits.rglob("*") if p.is_file() and p.name != "testcase.yaml"
    )
    for secret in (PASSWORD, TOKEN, FRAGMENT):
        assert secret not in err
        assert secret.encode() not in written


def _post(url: str, **config: Any) -> Outcome:
    ctx = Context(
        {"summary": {"overall_status": "passed"}}, "/nowhere/results.json", "/nowhere", "/nowhere", "/"
    )
    return run_webhook({"url": url, "retry_on_failure": False, "timeout_ms": 2000, **config}, ctx)


def test_h26_a_webhook_that_redirects_is_not_followed(hook_server: Any, capsys: pytest.CaptureFixture[str]):
    """youBencha's http.request follows no redirect: a 3xx is a failed try, and the bundle and
    headers never reach the other host."""
    elsewhere, stolen = hook_server()
    where, seen = hook_server(
        {
            "/found": (302, {"Location": f"http://{elsewhere}/steal"}),
            "/kept": (307, {"Location": f"http://{elsewhere}/steal"}),
        }
    )
    for name, code in (("found", "302: Found"), ("kept", "307: Temporary Redirect")):
        assert _post(
            f"http://{where}/{name}?token={TOKEN}", headers={"Authorization": f"Bearer {TOKEN}"}
        ) == (
            "failed",
            "Failed to post results after 1 attempts",
        )
        assert capsys.readouterr().err == f"youBencha webhook attempt 1: HTTP Error {code}\n"
    assert [r["path"] for r in seen] == ["/found?token=" + TOKEN, "/kept?token=" + TOKEN]
    assert stolen == []


@pytest.mark.parametrize(
    ("url", "printed"),
    [
        (  # nothing listens there: the error names no part of the URL
            f"http://qa:{PASSWORD}@127.0.0.1:PORT/hook?token={TOKEN}#{FRAGMENT}",
            "youBencha webhook attempt 1: <urlopen error [Errno 111] Connection refused>\n",
        ),
        (  # a port that is not a number: urllib's message quoted the user:password before it
            f"http://qa:{PASSWORD}@127.0.0.1:x/hook?token={TOKEN}",
            "youBencha webhook attempt 1: nonnumeric port: 'x'\n",
        ),
    ],
)
def test_h26_a_webhook_that_cannot_be_reached_names_no_credential(
    url: str, printed: str, capsys: pytest.CaptureFixture[str]
):
    with socket.socket() as spare:  # a port nothing listens on
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    assert _post(url.replace("PORT", str(port))) == ("failed", "Failed to post results after 1 attempts")
    assert capsys.readouterr().err == printed


@pytest.mark.parametrize("url", ["file:///etc/hostname", "ftp://127.0.0.1:9/x", f"data:,{TOKEN}"])
def test_h26_a_webhook_url_that_is_not_http_is_not_opened(url: str, capsys: pytest.CaptureFixture[str]):
    """urllib would read a file: URL and call that a success; youBencha's only clients are http
    and https."""
    scheme = url.split(":")[0]
    assert _post(url) == ("failed", "Failed to execute webhook")
    assert capsys.readouterr().err == (f"youBencha webhook: not posted: {scheme}: is not http or https\n")


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
