"""A conversation waiting for a person, answered from its page in ``bench view`` (headless
Chromium): the form shows the prompt, posts the message with the page's token, says how the run
goes on, and the answer is saved for ``--resume``."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.execution.journal.person import find_waiting
from bench.report.viewer.server import ViewServer

pytestmark = pytest.mark.browser

SUITE = """\
name: waits
target: {type: echo}
tasks:
  - id: handover
    conversation:
      phases:
        - turns: [hello]
        - person: {prompt: "<b>take over</b> the chat"}
    evaluate: {type: contains, value: hello}
"""


@pytest.fixture
def waiting_runs(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE)
    result = subprocess.run(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q", "--runs-dir", "runs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "BENCH_CACHE_DIR": str(tmp_path / "cache")},
        timeout=60,
        check=False,
    )
    assert result.returncode == 5, result.stdout + result.stderr
    return tmp_path / "runs"


@pytest.fixture
def viewer(waiting_runs: Path) -> Iterator[str]:
    server = ViewServer(waiting_runs, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.url
    server.shutdown()
    server.server_close()


def test_a_person_answers_a_waiting_conversation_from_its_page(page: Any, viewer: str, waiting_runs: Path):
    [run] = waiting_runs.iterdir()
    page.goto(f"{viewer}run/{run.name}#task=handover")
    page.wait_for_selector("#answer-panel")
    assert page.locator("#answer-panel h3").inner_text() == "Your turn as the user (turn 2)"
    assert page.locator("#answer-prompt").inner_text() == "you are asked: <b>take over</b> the chat"
    page.fill("#answer-text", "I take it from here")
    page.click("#answer-send")
    page.wait_for_selector("#answer-status:not(:empty)")
    assert page.locator("#answer-status").inner_text() == (
        f"saved; the conversation goes on with: bench run SUITE --resume {run.name}"
    )
    assert find_waiting(waiting_runs, run.name, "handover").answered
