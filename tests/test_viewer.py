"""``bench view``'s JSON API against a server on a free port, its refusals, and a clean Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bench.report.viewer.data import RunsView
from bench.report.viewer.labels import Labelling
from bench.report.viewer.server import CSP, ViewServer, exposure_warning, is_loopback
from bench.scoring.labels import Label, read_labels

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

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


def test_compared_tasks_whose_ids_hold_an_at_sign_stay_apart(tmp_path):
    runs = tmp_path / "runs"
    write_run(
        runs,
        "20260101-000000-aaaaaa",
        [record("support@acme.com", "passed"), record("support@globex.com", "failed")],
    )
    write_run(
        runs,
        "20260101-000001-bbbbbb",
        [record("support@acme.com", "failed"), record("support@globex.com", "passed")],
    )
    data = RunsView(runs).compare("20260101-000000-aaaaaa", "20260101-000001-bbbbbb", {})
    assert data["comparison"]["matched"] == 2
    assert (data["regressions"], data["improvements"]) == (1, 1)


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


@pytest.mark.parametrize(
    ("inherited", "sig"),
    [(signal.SIG_DFL, signal.SIGINT), (signal.SIG_IGN, signal.SIGINT), (signal.SIG_DFL, signal.SIGTERM)],
    ids=["ctrl-c", "ctrl-c-from-a-non-interactive-shell", "sigterm"],
)
def test_ctrl_c_stops_the_viewer_cleanly(runs, inherited, sig):
    # A non-interactive shell (a CI runner) starts its jobs with SIGINT ignored.
    process = subprocess.Popen(
        [sys.executable, "-m", "bench", "view", "latest", "--runs-dir", str(runs), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, inherited),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(f"bench view: serving {runs} at http://127.0.0.1:")
        url = line.split(" at ")[1].split(" ")[0]
        assert url.endswith("/run/20260101-000002-cccccc")
        with urllib.request.urlopen(url, timeout=10) as response:
            assert b'<script src="/assets/viewer.js">' in response.read()
        process.send_signal(sig)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out == "bench view: stopped\n"
    assert err == ""


# -- labels from the viewer (bench view --label) -----------------------------------------------------

RUN = "20260101-000001-bbbbbb"


@pytest.fixture
def labelling(tmp_path: Path) -> Labelling:
    return Labelling(tmp_path / "labels.jsonl", "ana")


@pytest.fixture
def labeller(runs: Path, labelling: Labelling) -> Iterator[ViewServer]:
    server = ViewServer(runs, "127.0.0.1", 0, labelling)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def page_token(server: ViewServer) -> str:
    """The token as the page carries it, in its HTML."""
    _, page, _ = get(server, "/run/" + RUN)
    match = re.search(r'<meta name="bench-label-token" content="([^"]+)">', page)
    assert match is not None, page
    return match.group(1)


def post(server: ViewServer, body: Any, **headers: str) -> tuple[int, Any]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}}
    request = urllib.request.Request(
        server.url + f"api/runs/{RUN}/labels", data=raw, headers=sent, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_label_from_the_viewer_is_read_back_by_the_labels_reader(labeller, labelling):
    token = page_token(labeller)
    assert post(labeller, {"task": "t003", "passed": True, "note": "right"}, X_Bench_Token=token)[0] == 200
    status, body = post(labeller, {"task": "t004", "score": 0.25}, X_Bench_Token=token)
    assert (status, body["label"]) == (
        200,
        {"task": "t004", "score": 0.25, "rater": "ana", "response": "answer to t004"},
    )
    assert read_labels(labelling.out) == [
        Label("t003", passed=True, rater="ana", note="right", response="answer to t003"),
        Label("t004", score=0.25, rater="ana", response="answer to t004"),
    ]
    # The rater's labels come back (so the page shows them), and a second verdict replaces the first.
    _, mine, _ = get(labeller, "/api/labels")
    assert (mine["rater"], sorted(mine["labels"])) == ("ana", ["t003", "t004"])
    assert post(labeller, {"task": "t003", "passed": False}, X_Bench_Token=token)[0] == 200
    assert [(la.task, la.passed) for la in read_labels(labelling.out)] == [("t004", None), ("t003", False)]


def test_bench_label_resumes_after_the_viewers_labels(labeller, labelling):
    from bench.judging.labelling import walk

    post(labeller, {"task": "t003", "passed": True}, X_Bench_Token=page_token(labeller))
    rows = {key: {"id": key, "response": f"answer to {key}"} for key in ("t003", "t004")}
    shown: list[str] = []
    assert walk(rows, labelling.out, "ana", iter(["f"]), shown.append) == 1
    assert "== task t003 (?)" not in shown
    assert [(la.task, la.passed) for la in read_labels(labelling.out)] == [("t003", True), ("t004", False)]


def test_two_tabs_labelling_at_once_write_whole_lines(labeller, labelling):
    token = page_token(labeller)
    tasks = [f"t{i:03}" for i in range(40)]
    with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
        statuses = list(
            pool.map(lambda t: post(labeller, {"task": t, "passed": True}, X_Bench_Token=token)[0], tasks)
        )
    assert statuses == [200] * len(tasks)
    assert sorted(la.task for la in read_labels(labelling.out)) == tasks


def test_label_refused_without_the_token(labeller, labelling):
    page_token(labeller)
    assert post(labeller, {"task": "t003", "passed": True}) == (
        403,
        {"error": "refused: missing or wrong X-Bench-Token (reload the page)"},
    )
    assert post(labeller, {"task": "t003", "passed": True}, X_Bench_Token="guess") == (
        403,
        {"error": "refused: missing or wrong X-Bench-Token (reload the page)"},
    )
    assert not labelling.out.exists()


def test_label_refused_with_another_host(labeller, labelling):
    token = page_token(labeller)
    body = {"task": "t003", "passed": True}
    assert post(labeller, body, X_Bench_Token=token, Host="attacker.example:80") == (
        403,
        {"error": "refused: Host 'attacker.example:80' is not this viewer's"},
    )
    port = labeller.server_address[1]
    assert post(labeller, body, X_Bench_Token=token, Host=f"localhost:{port}")[0] == 200


def test_label_refused_from_a_form(labeller, labelling):
    token = page_token(labeller)
    form = b"task=t003&passed=true"
    for kind in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"):
        assert post(labeller, form, X_Bench_Token=token, Content_Type=kind) == (
            415,
            {"error": "refused: Content-Type must be application/json"},
        )
    assert post(labeller, b"{" + b" " * 9000 + b"}", X_Bench_Token=token) == (
        413,
        {"error": "refused: a label is at most 8192 bytes"},
    )
    assert not labelling.out.exists()


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"task": "nope", "passed": True}, 404, f"run {RUN} has no task 'nope'"),
        ({"task": "t003", "score": 1.5}, 400, "score must be a number from 0 to 1, not 1.5"),
        ({"task": "t003", "score": "0.5"}, 400, "score must be a number from 0 to 1, not '0.5'"),
        ({"task": "t003", "score": True}, 400, "score must be a number from 0 to 1, not True"),
        ({"task": "t003", "passed": "yes"}, 400, "passed must be true or false, not 'yes'"),
        ({"task": "t003"}, 400, "a label needs passed or score"),
        (
            {"task": "t003", "passed": True, "note": "x" * 2001},
            400,
            "note must be text of at most 2000 characters",
        ),
        (
            {"task": "t003", "passed": True, "rater": "eve"},
            400,
            "unknown field 'rater' (a label has task, passed, score, note)",
        ),
        ({"passed": True}, 400, "task must be a task id"),
        (["t003"], 400, "the body must be a JSON object"),
        (b"{not json", 400, "the body is not JSON"),
    ],
)
def test_a_bad_label_is_refused_with_its_reason(labeller, labelling, body, status, error):
    assert post(labeller, body, X_Bench_Token=page_token(labeller)) == (status, {"error": error})
    assert not labelling.out.exists()


def test_without_label_the_viewer_is_read_only(server, tmp_path):
    _, page, _ = get(server, "/run/" + RUN)
    assert "bench-label-token" not in page
    read_only = "labelling is off: start bench view with --label to label tasks"
    assert post(server, {"task": "t003", "passed": True}, X_Bench_Token="x") == (403, {"error": read_only})
    assert get(server, "/api/labels")[:2] == (403, {"error": read_only})
    assert not (tmp_path / "labels.jsonl").exists()


def test_label_is_refused_beyond_loopback(bench_cli, runs, tmp_path):
    result = bench_cli("view", "--runs-dir", str(runs), "--label", "--host", "0.0.0.0", "--port", "0")
    assert result.exit_code == 2
    assert (
        "bench view: --label writes labels from this machine only; --host 0.0.0.0 is not loopback"
        in result.output
    )


# -- hardening: Host on every request, broken runs, links out of the runs folder, many writers ----------


def get_as(server: ViewServer, path: str, host: str) -> tuple[int, Any]:
    """GET ``path`` with the Host header a page on another origin would send (DNS rebinding)."""
    request = urllib.request.Request(server.url.rstrip("/") + path, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize("path", ["/", "/run/" + RUN, "/api/runs", f"/api/runs/{RUN}", "/api/labels"])
def test_n35_a_read_with_a_foreign_host_is_refused(labeller, path):
    assert get_as(labeller, path, "attacker.example:80") == (
        403,
        {"error": "refused: Host 'attacker.example:80' is not this viewer's"},
    )
    port = labeller.server_address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        status, body = get_as(labeller, path, host)
        assert status == 200, body
    # A rebinding page on the viewer's own port still names its own domain.
    assert get_as(labeller, path, f"attacker.example:{port}")[0] == 403
    assert get_as(labeller, path, "")[0] == 403


@pytest.mark.parametrize(
    ("host", "bound", "allowed"),
    [
        ("192.0.2.7:8765", "0.0.0.0", True),  # an address: the page's origin is the viewer itself
        ("[2001:db8::1]:8765", "0.0.0.0", True),
        ("localhost:9000", "127.0.0.1", True),  # any port: an SSH tunnel changes it
        ("bench.lan:8765", "bench.lan", True),  # the name --host gave
        ("rebound.example:8765", "0.0.0.0", False),
        ("rebound.example", "127.0.0.1", False),
        ("user@127.0.0.1:8765", "127.0.0.1", False),
        ("127.0.0.1:port", "127.0.0.1", False),
        ("127.0.0.1:8765/x", "127.0.0.1", False),
        ("", "127.0.0.1", False),
    ],
)
def test_n35_an_address_or_the_viewers_own_name_is_a_host_and_any_other_name_is_not(host, bound, allowed):
    from bench.report.viewer.server import names_this_viewer

    assert names_this_viewer(host, bound) is allowed


def _raw_run(runs: Path, name: bytes, manifest: str) -> None:
    folder = os.path.join(os.fsencode(runs), name)
    os.makedirs(folder)
    with open(os.path.join(folder, b"manifest.json"), "w", encoding="utf-8") as out:
        out.write(manifest)
    with open(os.path.join(folder, b"results.jsonl"), "w", encoding="utf-8") as out:
        out.write(json.dumps(record("a", "passed")) + "\n")


def test_n46_each_broken_run_answers_alone_and_the_rest_still_work(server, runs):
    head = json.dumps({"suite": "s", "started_at": "2026-01-02T00:00:00+00:00", "status": "finished"})
    _raw_run(runs, b"20260102-bad-\xff", head)
    _raw_run(runs, b"20260102-list", "[1, 2]")
    _raw_run(runs, b"20260102-deep", "[" * 100_000)
    status, listed, _ = get(server, "/api/runs")
    assert status == 200
    rows = {row["run_id"]: row for row in listed["runs"]}
    # A name that is not UTF-8 is listed as text a page can link to, with why it cannot be opened.
    assert (
        rows["20260102-bad-\ufffd"]["error"]
        == "its name is not UTF-8 text: rename the folder to open the run"
    )
    assert get(server, "/api/runs/20260102-bad-%EF%BF%BD")[:2] == (
        404,
        {
            "error": "run folder '20260102-bad-\ufffd': its name is not UTF-8 text: rename the folder to open the run"
        },
    )
    assert get(server, "/api/runs/20260102-list")[:2] == (
        500,
        {"error": "cannot read the runs: run 20260102-list: manifest.json is not a JSON object"},
    )
    assert get(server, "/api/runs/20260102-list/tasks/a")[0] == 200
    assert get(server, "/api/runs/20260102-deep")[:2] == (
        500,
        {"error": "cannot read the runs: run 20260102-deep: manifest.json is nested too deeply"},
    )
    assert get(server, "/api/runs/20260101-000000-aaaaaa")[0] == 200


def test_n46_a_result_line_nested_too_deeply_is_a_damaged_line(server, runs):
    folder = write_run(runs, "20260101-000003-dddddd", [record("a", "passed")])
    with open(folder / "results.jsonl", "a", encoding="utf-8") as out:
        out.write('{"id": "b", "x": ' + "[" * 100_000 + "\n")  # its key unreadable: skipped
        out.write('{"id":"c","x":' + "[" * 100_000 + "\n")  # the store's form: its key read first
    status, data, _ = get(server, "/api/runs/20260101-000003-dddddd")
    assert status == 200
    assert [(t["id"], t["why"]) for t in data["tasks"]] == [
        ("a", "expected: ok"),
        ("?", "error: an unreadable line in results.jsonl"),
    ]


def test_a_run_folder_linked_from_outside_the_runs_folder_is_not_served(server, runs, tmp_path):
    outside = write_run(tmp_path / "elsewhere", "private", [record("secret-task", "passed")], suite="private")
    (runs / "20260101-000009-linked").symlink_to(outside, target_is_directory=True)
    inside = runs / "20260101-000001-bbbbbb"
    (runs / "20260101-000008-alias").symlink_to(inside, target_is_directory=True)
    _, listed, _ = get(server, "/api/runs")
    assert "20260101-000009-linked" not in [row["run_id"] for row in listed["runs"]]
    assert "20260101-000008-alias" in [row["run_id"] for row in listed["runs"]]
    refused = f"run '20260101-000009-linked' is outside {runs}: bench view serves only the runs folder"
    for path in ("/api/runs/20260101-000009-linked", "/api/runs/20260101-000009-linked/tasks/secret-task"):
        assert get(server, path)[:2] == (404, {"error": refused})
    # A run whose results file is a link out of the runs folder is refused the same way.
    leaky = write_run(runs, "20260101-000007-leaky", [])
    (leaky / "results.jsonl").unlink()
    (leaky / "results.jsonl").symlink_to(outside / "results.jsonl")
    assert get(server, "/api/runs/20260101-000007-leaky")[:2] == (
        404,
        {"error": f"run '20260101-000007-leaky' is outside {runs}: bench view serves only the runs folder"},
    )
    assert get(server, "/api/runs/20260101-000008-alias")[0] == 200


def test_n47_a_label_body_nested_too_deeply_is_refused(labeller, labelling):
    token = page_token(labeller)
    # Well-formed, so that every Python reads it as deep (3.13's json parses any depth).
    assert post(labeller, b"[" * 4000 + b"]" * 4000, X_Bench_Token=token) == (
        400,
        {"error": "the body is nested too deeply"},
    )
    assert not labelling.out.exists()
    assert post(labeller, {"task": "t003", "passed": True}, X_Bench_Token=token)[0] == 200


def _viewer(runs: Path, out: Path, rater: str) -> tuple[subprocess.Popen[str], str, str]:
    """A ``bench view --label`` process: it, its URL and its page's token."""
    command = [sys.executable, "-m", "bench", "view", "--runs-dir", str(runs), "--port", "0"]
    process = subprocess.Popen(
        [*command, "--label", "--rater", rater, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    url = process.stdout.readline().split(" at ")[1].split(" ")[0]
    with urllib.request.urlopen(url + "run/" + MANY, timeout=10) as response:
        match = re.search(r'name="bench-label-token" content="([^"]+)"', response.read().decode("utf-8"))
    assert match is not None
    return process, url, match.group(1)


MANY = "20260101-000005-many"


def test_n34_three_writers_in_three_processes_keep_every_label(runs, tmp_path):
    tasks = [f"m{i:02}" for i in range(30)]
    write_run(runs, MANY, [record(task, "passed") for task in tasks])
    out = tmp_path / "labels.jsonl"
    viewers = [_viewer(runs, out, rater) for rater in ("ana", "bo")]
    walker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench",
            "label",
            MANY,
            "--runs-dir",
            str(runs),
            "--rater",
            "cy",
            "--out",
            str(out),
        ],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert walker.stdin is not None
        assert walker.stdout is not None
        step = threading.Barrier(3, timeout=30)

        def label_in_the_viewer(url: str, token: str) -> list[int]:
            statuses = []
            for task in tasks:
                step.wait()
                body = json.dumps({"task": task, "passed": True}).encode()
                headers = {"Content-Type": "application/json", "X-Bench-Token": token}
                request = urllib.request.Request(
                    url + f"api/runs/{MANY}/labels", body, headers, method="POST"
                )
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        statuses.append(response.status)
                except urllib.error.HTTPError as exc:
                    statuses.append(exc.code)
            return statuses

        def label_in_the_terminal() -> None:
            for _ in tasks:
                while not (line := walker.stdout.readline()).startswith("[p=pass"):
                    assert line, "bench label stopped before its last task"
                step.wait()
                walker.stdin.write("p\n")
                walker.stdin.flush()

        with ThreadPoolExecutor(max_workers=3) as pool:
            posted = [pool.submit(label_in_the_viewer, url, token) for _, url, token in viewers]
            pool.submit(label_in_the_terminal).result()
            assert [f.result() for f in posted] == [[200] * 30, [200] * 30]
        rest, err = walker.communicate(timeout=30)
        assert walker.returncode == 0, err
        assert rest.endswith(f"30 labels by cy from run {MANY} written to {out}\n")
    finally:
        for process in [walker, *(v[0] for v in viewers)]:
            if process.poll() is None:
                process.terminate()
                process.communicate(timeout=20)
    kept = read_labels(out)
    assert len(kept) == 90
    for rater in ("ana", "bo", "cy"):
        assert sorted(la.task for la in kept if la.rater == rater) == tasks
