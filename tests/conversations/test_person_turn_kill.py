"""SIGKILL right after a person's answer: ``bench run --resume`` killed while the target answers
the person's message loses nothing; the next ``--resume`` sends the saved answer again and ends
as an uninterrupted run would."""

from __future__ import annotations

import json
import os
import signal

import pytest

from bench.execution.journal.person import find_waiting, save_answer
from tests.conversations.killed_runs import calls, start_bench, wait_for_call
from tests.conversations.test_person_turn import ASSISTANT, ONE_PERSON_SUITE


@pytest.mark.slow
def test_sigkill_right_after_the_answer_loses_nothing(tmp_path):
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    (tmp_path / "suite.yaml").write_text(ONE_PERSON_SUITE)
    first = start_bench(tmp_path)
    assert first.wait(60) == 5, first.communicate()
    [run] = (tmp_path / ".bench" / "runs").iterdir()
    save_answer(find_waiting(tmp_path / ".bench" / "runs", run.name, "t"), "I want a refund")
    (tmp_path / "block").write_text("")
    killed = start_bench(tmp_path, "--resume", run.name)
    wait_for_call(tmp_path, "I want a refund")
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(30)
    (tmp_path / "block").unlink()
    resumed = start_bench(tmp_path, "--resume", run.name, "-o", "out.json")
    assert resumed.wait(60) == 0, resumed.communicate()
    task = json.loads((tmp_path / "out.json").read_text())["tasks"][0]
    assert task["status"] == "passed"
    assert [m["content"] for m in task["conversation"]["messages"]] == [
        "my parcel is lost",
        "how can I help?",
        "I want a refund",
        "a refund it is",
    ]
    # the first turn never asked again; the person's message, in flight at the kill, sent again
    assert calls(tmp_path) == ["my parcel is lost", "I want a refund", "I want a refund"]
