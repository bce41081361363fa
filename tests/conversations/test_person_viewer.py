"""A person's turn taken from ``bench view``: the task's page posts the answer to the local viewer
with the page's token, under the same checks as a label (Host, token, JSON, size); ``--resume``
then goes on from it."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.report.viewer.server import ViewServer
from tests.conversations.test_person_turn import ASSISTANT, ONE_PERSON_SUITE


@pytest.fixture
def waiting_run(bench_cli, bench_suite_file, tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    bench_cli("run", bench_suite_file(ONE_PERSON_SUITE), "-q", "-o", "out.json")
    return tmp_path / "suite.yaml", json.loads((tmp_path / "out.json").read_text())["run_id"]


def _serve(runs: Path, host: str = "127.0.0.1") -> Iterator[ViewServer]:
    server = ViewServer(runs, host, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def viewer(tmp_path: Path, waiting_run) -> Iterator[ViewServer]:
    yield from _serve(tmp_path / ".bench" / "runs")


def _page_token(server: ViewServer, run_id: str) -> str | None:
    url = server.url.replace("0.0.0.0", "127.0.0.1") + "run/" + run_id
    with urllib.request.urlopen(url, timeout=10) as response:
        page = response.read().decode()
    found = re.search(r'<meta name="bench-answer-token" content="([^"]+)">', page)
    return found.group(1) if found else None


def _post(server: ViewServer, run_id: str, body: Any, **headers: str) -> tuple[int, Any]:
    sent = {"Content-Type": "application/json", **{k.replace("_", "-"): v for k, v in headers.items()}}
    url = server.url.replace("0.0.0.0", "127.0.0.1") + f"api/runs/{run_id}/answers"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=sent, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_an_answer_from_the_viewer_lets_resume_go_on(viewer, waiting_run, bench_cli, tmp_path):
    suite, run_id = waiting_run
    token = _page_token(viewer, run_id)
    assert token
    status, body = _post(viewer, run_id, {"task": "t", "text": "I want a refund"}, X_Bench_Token=token)
    assert (status, body) == (200, {"task": "t", "resume": f"bench run SUITE --resume {run_id}"})
    again = _post(viewer, run_id, {"task": "t", "text": "twice"}, X_Bench_Token=token)
    assert again == (
        409,
        {
            "error": f"cannot save the answer: task 't' of run {run_id} is answered already: "
            "resume the run to send the answer"
        },
    )
    result = bench_cli("run", suite, "-q", "-o", "out.json", "--resume", run_id)
    task = json.loads((tmp_path / "out.json").read_text())["tasks"][0]
    assert (result.exit_code, task["status"]) == (0, "passed")
    assert task["conversation"]["messages"][-2:] == [
        {"role": "user", "content": "I want a refund"},
        {"role": "assistant", "content": "a refund it is"},
    ]


def answer_state(tmp_path: Path, run_id: str) -> Any:
    """The waiting task as its journal says (``answered`` once an answer is saved)."""
    from bench.execution.journal.person import find_waiting

    return find_waiting(tmp_path / ".bench" / "runs", run_id, "t")


def test_h24_an_answer_without_the_pages_token_or_as_a_form_is_refused(viewer, waiting_run, tmp_path):
    _, run_id = waiting_run
    refused = {"error": "refused: missing or wrong X-Bench-Token (reload the page)"}
    assert _post(viewer, run_id, {"task": "t", "text": "hi"}) == (403, refused)
    assert _post(viewer, run_id, {"task": "t", "text": "hi"}, X_Bench_Token="guess") == (403, refused)
    token = _page_token(viewer, run_id)
    form = _post(viewer, run_id, {"task": "t", "text": "hi"}, X_Bench_Token=token, Content_Type="text/plain")
    assert form == (415, {"error": "refused: Content-Type must be application/json"})
    bad = _post(viewer, run_id, {"task": "t", "message": "hi"}, X_Bench_Token=token)
    assert bad == (400, {"error": 'an answer is a JSON object {"task": TASK, "text": MESSAGE}'})
    assert not answer_state(tmp_path, run_id).answered  # nothing reached the journal


def test_h24_a_viewer_beyond_loopback_takes_no_answer(tmp_path, waiting_run):
    _, run_id = waiting_run
    for server in _serve(tmp_path / ".bench" / "runs", host="0.0.0.0"):
        assert _page_token(server, run_id) is None
        status, body = _post(server, run_id, {"task": "t", "text": "hi"}, X_Bench_Token=server.token)
        assert (status, body) == (
            403,
            {
                "error": "answering is off: a person answers from a viewer listening on loopback "
                "(the default --host)"
            },
        )
    assert not answer_state(tmp_path, run_id).answered
