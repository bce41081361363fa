"""A run killed mid-conversation, then ``--resume``: finished conversations are kept, the one in
flight goes on from its last answered turn, and the result is the uninterrupted run's."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.conversations.killed_runs import calls, start_bench, wait_for_call

ASSISTANT = """\
import pathlib, time

def reply(task):
    users = [m.content for m in task.messages if m.role == "user"]
    here = pathlib.Path(__file__).parent
    with open(here / "calls.log", "a") as log:
        log.write(f"{task.id} {len(users)}\\n")
    if task.id == "long" and len(users) == 3 and (here / "block").exists():
        time.sleep(600)  # killed here, in the middle of the conversation
    return f"answer {len(users)} to {users[-1]}"
"""

SUITE = """\
name: resumable
concurrency: 1
target: {type: python, function: "assistant:reply"}
tasks:
  - id: short
    conversation: {turns: [hello, bye]}
    evaluate: {type: contains, value: "answer 2"}
  - id: long
    conversation:
      turns:
        - one
        - user: two
          evaluate: {type: contains, value: "answer 2 to two"}
        - three
        - four
    evaluate: {type: contains, value: "answer 4 to four"}
"""


def _verdicts(report: Path) -> list[tuple]:
    tasks = json.loads(report.read_text())["tasks"]
    return [
        (
            t["id"],
            t["status"],
            t["conversation"]["messages"],
            [(e["name"], e["passed"]) for e in t["evaluators"]],
        )
        for t in tasks
    ]


def _suite(folder: Path) -> None:
    folder.mkdir()
    (folder / "assistant.py").write_text(ASSISTANT)
    (folder / "suite.yaml").write_text(SUITE)


@pytest.mark.slow
def test_sigkill_mid_conversation_then_resume_gives_the_uninterrupted_transcripts(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    _suite(whole)
    _suite(killed)
    done = start_bench(whole, "-o", "out.json")
    assert done.wait(60) == 0, done.communicate()
    (killed / "block").write_text("")
    proc = start_bench(killed)
    wait_for_call(killed, "long 3")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(30)
    (killed / "block").unlink()
    [run] = (killed / ".bench" / "runs").iterdir()
    resumed = start_bench(killed, "--resume", run.name, "-o", "out.json")
    assert resumed.wait(60) == 0, resumed.communicate()
    assert _verdicts(killed / "out.json") == _verdicts(whole / "out.json")
    # Nothing finished was asked again: the short conversation and the long one's first two turns.
    assert calls(killed) == ["short 1", "short 2", "long 1", "long 2", "long 3", "long 3", "long 4"]
    assert not list((run / "conversations").glob("*.jsonl"))  # journals go once results land
