"""``bench view``'s JSON API against a server on a free port, its refusals, and a clean Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.report.viewer import CSP, ViewServer, exposure_warning, is_loopback

HOSTILE = "</script><script>alert(1)</script>"


def record(task: str, status: str, **extra: Any) -> dict[str, Any]:
    passed = status == "passed"
    return {
        "id": task,
        "status": status,
        "passed": passed,
        "score": 1.0 if passed else 0.0 if status == "failed" else None,
        "response": f"answer to {task}",
        "evaluators": [{"name": "expected", "passed": passed, "reason": "ok" if passed else "not found"}],
        **extra,
    }


def write_run(runs: Path, run_id: str, records: list[dict[str, Any]], **manifest: Any) -> Path:
    folder = runs / run_id
    folder.mkdir(parents=True)
    head = {"suite": "s", "started_at": f"2026-01-01T00:00:0{len(list(runs.iterdir()))}+00:00"}
    (folder / "manifest.json").write_text(json.dumps({**head, "status": "finished", **manifest}))
    lines = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    (folder / "results.jsonl").write_text(lines, encoding="utf-8")
    return folder


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    old = [record(f"t{i:03}", "passed" if i % 5 else "failed") for i in range(250)]
    write_run(runs, "20260101-000000-aaaaaa", old)
    new = [record(f"t{i:03}", "passed" if i % 2 else "error") for i in range(250)]
    new[1] = record("t001", "failed", response=HOSTILE)
    write_run(runs, "20260101-000001-bbbbbb", new)
    two = [
        record(f"q{i}[{label}]", "passed" if label == "big" or i % 2 else "failed", target={"label": label})
        for i in range(4)
        for label in ("small", "big")
    ]
    write_run(runs, "20260101-000002-cccccc", two)
    (tmp_path / "secret.txt").write_text("not for the viewer")
    return runs


@pytest.fixture
def server(runs: Path) -> Iterator[ViewServer]:
    server = ViewServer(runs, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def get(server: ViewServer, path: str) -> tuple[int, Any, Any]:
    try:
        with urllib.request.urlopen(server.url.rstrip("/") + path, timeout=10) as response:
            body = response.read().decode("utf-8")
            status, headers = response.status, response.headers
    except urllib.error.HTTPError as exc:
        body, status, headers = exc.read().decode("utf-8"), exc.code, exc.headers
    is_json = headers["Content-Type"].startswith("application/json")
    return status, json.loads(body) if is_json else body, headers


def test_the_runs_list_newest_first(server):
    status, data, headers = get(server, "/api/runs")
    assert status == 200
    assert [r["run_id"] for r in data["runs"]] == [
        "20260101-000002-cccccc",
        "20260101-000001-bbbbbb",
        "20260101-000000-aaaaaa",
    ]
    assert headers["Content-Security-Policy"] == CSP
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_a_run_comes_a_page_at_a_time_and_filters_on_the_server(server):
    _, first, _ = get(server, "/api/runs/20260101-000000-aaaaaa")
    assert (first["matched"], first["pages"], len(first["tasks"])) == (250, 3, 100)
    assert first["run"]["summary"] == {
        "total": 250,
        "passed": 200,
        "failed": 50,
        "errors": 0,
        "interrupted": 0,
    }
    _, last, _ = get(server, "/api/runs/20260101-000000-aaaaaa?page=3")
    assert [t["id"] for t in last["tasks"]][:2] == ["t200", "t201"]
    assert len(last["tasks"]) == 50
    _, failed, _ = get(server, "/api/runs/latest?status=failed")
    assert failed["run"]["run_id"] == "20260101-000002-cccccc"
    _, failed, _ = get(server, "/api/runs/20260101-000000-aaaaaa?status=failed")
    assert failed["matched"] == 50
    assert failed["tasks"][0] == {
        "key": "t000",
        "id": "t000",
        "repeat": 0,
        "status": "failed",
        "score": 0.0,
        "target": None,
        "response": "answer to t000",
        "why": "expected: not found",
    }
    _, text, _ = get(server, "/api/runs/20260101-000000-aaaaaa?text=ANSWER%20TO%20t24")
    assert [t["id"] for t in text["tasks"]] == [f"t24{i}" for i in range(10)]
    _, by_evaluator, _ = get(server, "/api/runs/20260101-000001-bbbbbb?evaluator=expected")
    assert by_evaluator["matched"] == 126  # the 125 errors (no verdict counts as not passed) and t001
    _, targets, _ = get(server, "/api/runs/20260101-000002-cccccc?target=small")
    assert [t["key"] for t in targets["tasks"]] == ["q0[small]", "q1[small]", "q2[small]", "q3[small]"]
    assert [row["label"] for row in targets["target_statistics"]] == ["small", "big"]


def test_a_task_whole_and_a_hostile_response_escaped_in_the_json(server):
    status, body, _ = get(server, "/api/runs/20260101-000001-bbbbbb/tasks/t001")
    assert status == 200
    assert body["response"] == HOSTILE
    with urllib.request.urlopen(server.url + "api/runs/20260101-000001-bbbbbb/tasks/t001") as response:
        raw = response.read().decode("utf-8")
    assert "<" not in raw
    assert "\\u003c/script\\u003e" in raw
    status, body, _ = get(server, "/api/runs/20260101-000001-bbbbbb/tasks/nope")
    assert (status, body) == (404, {"error": "run 20260101-000001-bbbbbb has no task 'nope'"})


def test_two_runs_compared_task_by_task(server):
    _, data, _ = get(server, "/api/compare?a=20260101-000000-aaaaaa&b=20260101-000001-bbbbbb")
    # The statistics take the tasks with a verdict on both sides (errors have none), as bench compare.
    assert data["comparison"]["matched"] == 125
    assert data["comparison"]["verdict"] == "improvement"
    assert (data["regressions"], data["improvements"]) == (1, 25)
    # The rows show every task: passed before and not now (failed or errored) is a regression.
    _, regressed, _ = get(
        server, "/api/compare?a=20260101-000000-aaaaaa&b=20260101-000001-bbbbbb&change=regressed"
    )
    assert regressed["matched"] == 101
    assert [row["key"] for row in regressed["rows"][:3]] == ["t001", "t002", "t004"]
    _, changed, _ = get(
        server, "/api/compare?a=20260101-000000-aaaaaa&b=20260101-000001-bbbbbb&change=improved"
    )
    assert changed["matched"] == 25
    assert changed["rows"][0]["key"] == "t005"
    assert (changed["rows"][0]["a"]["status"], changed["rows"][0]["b"]["status"]) == ("failed", "passed")


def test_two_targets_of_one_run_compared(server):
    _, data, _ = get(server, "/api/compare?a=20260101-000002-cccccc:small&b=20260101-000002-cccccc:big")
    assert [row["key"] for row in data["rows"]] == ["q0", "q1", "q2", "q3"]
    assert [row["change"] for row in data["rows"]] == ["improved", "same", "improved", "same"]
    status, body, _ = get(server, "/api/compare?a=20260101-000002-cccccc:small&b=20260101-000002-cccccc:huge")
    assert (status, body) == (404, {"error": "20260101-000002-cccccc:huge: no task ran on target 'huge'"})


@pytest.mark.parametrize(
    "path",
    [
        "/api/runs/..",
        "/api/runs/..%2F..%2Fsecret.txt",
        "/api/runs/%2Fetc%2Fpasswd",
        "/api/runs/.hidden",
        "/api/runs/20260101-000000-aaaaaa%2F..%2F..%2Fsecret.txt",
        "/api/compare?a=..%2Fsecret.txt&b=20260101-000000-aaaaaa",
        "/run/..%2F..%2Fsecret.txt",
        "/assets/..%2F..%2Fviewer.py",
        "/secret.txt",
        "/runs/20260101-000000-aaaaaa/results.jsonl",
    ],
)
def test_nothing_outside_the_runs_folder_is_served(server, path):
    status, body, _ = get(server, path)
    assert status == 404
    assert "not for the viewer" not in json.dumps(body)


def test_a_run_in_progress_grows_between_requests(server, runs):
    folder = write_run(runs, "20260101-000003-dddddd", [record("a", "passed")], status="running", tasks=3)
    _, before, _ = get(server, "/api/runs/20260101-000003-dddddd")
    assert (before["run"]["status"], before["matched"], before["run"]["planned"]) == ("running", 1, 3)
    with open(folder / "results.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(record("b", "failed"), separators=(",", ":")) + "\n")
        out.write('{"id":"c","status":"pass')  # a line still being written
    _, during, _ = get(server, "/api/runs/20260101-000003-dddddd")
    assert [t["id"] for t in during["tasks"]] == ["a", "b"]
    assert during["size"] > before["size"]
    with open(folder / "results.jsonl", "a", encoding="utf-8") as out:
        out.write('ed","passed":true}\n')
    _, after, _ = get(server, "/api/runs/20260101-000003-dddddd")
    assert [t["id"] for t in after["tasks"]] == ["a", "b", "c"]
    assert after["run"]["summary"]["passed"] == 2


def test_loopback_is_the_default_and_anything_else_is_warned_about():
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert exposure_warning("127.0.0.1") is None
    assert exposure_warning("0.0.0.0") == (
        "warning: --host 0.0.0.0 is not a loopback address: anyone who can reach this machine "
        "on that port can read every run in the runs folder"
    )


def test_an_unknown_run_is_an_error_before_listening(bench_cli, runs):
    result = bench_cli("view", "nope", "--runs-dir", str(runs), "--port", "0")
    assert result.exit_code == 2
    assert f"no run 'nope' in {runs}" in result.output


def test_ctrl_c_stops_the_viewer_cleanly(runs):
    process = subprocess.Popen(
        [sys.executable, "-m", "bench", "view", "latest", "--runs-dir", str(runs), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(f"bench view: serving {runs} at http://127.0.0.1:")
        url = line.split(" at ")[1].split(" ")[0]
        assert url.endswith("/run/20260101-000002-cccccc")
        with urllib.request.urlopen(url, timeout=10) as response:
            assert b'<script src="/assets/viewer.js">' in response.read()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out == "bench view: stopped\n"
    assert err == ""
