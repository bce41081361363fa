"""A person's turn: the conversation stops, its task ``waiting`` (transcript kept, exit 5); the
person answers with ``bench answer`` on a terminal (or from ``bench view``: test_person_viewer.py),
then ``--resume`` replays the turns so far and goes on from the person's message."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from unittest.mock import ANY

import pytest

from bench import ConfigError

#: The assistant every person-turn test talks to: it logs what it was told (calls.log) and, while a
#: ``block`` file exists, hangs on the person's message (where test_person_turn_kill kills it).
ASSISTANT = """\
import pathlib, time

def reply(task):
    said = task.messages[-1].content
    here = pathlib.Path(__file__).parent
    with open(here / "calls.log", "a") as log:
        log.write(said + "\\n")
    if said == "I want a refund" and (here / "block").exists():
        time.sleep(600)
    return "a refund it is" if "refund" in said else "how can I help?"
"""

#: One scripted turn, then the person's: the run waits there.
ONE_PERSON_SUITE = """\
name: person
target: {type: python, function: "assistant:reply"}
tasks:
  - id: t
    conversation:
      phases:
        - turns: [my parcel is lost]
        - person: {prompt: take over the chat}
    evaluate: {type: contains, value: refund}
"""

SUITE = """\
name: person
target: {type: python, function: "assistant:reply"}
tasks:
  - id: t
    conversation:
      phases:
        - turns: [my parcel is lost]
        - person: {prompt: take over the chat}
        - turns: [thanks]
    evaluate: {type: contains, value: refund, over: transcript}
"""


@pytest.fixture
def suite(bench_suite_file, tmp_path: Path) -> Path:
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    return bench_suite_file(SUITE)


def _task(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "out.json").read_text())["tasks"][0]


def _run_id(tmp_path: Path) -> str:
    return json.loads((tmp_path / "out.json").read_text())["run_id"]


def _calls(tmp_path: Path) -> list[str]:
    return (tmp_path / "calls.log").read_text().splitlines()


def test_a_person_phase_leaves_the_task_waiting_with_its_transcript(bench_cli, suite, tmp_path):
    result = bench_cli("run", suite, "-o", "out.json")
    task = _task(tmp_path)
    assert result.exit_code == 5, result.output
    assert (task["status"], task["passed"], task.get("error")) == ("waiting", False, None)
    assert task["conversation"]["waiting"] == {"turn": 2, "prompt": "take over the chat", "since": ANY}
    assert [m["content"] for m in task["conversation"]["messages"]] == [
        "my parcel is lost",
        "how can I help?",
    ]
    assert task["evaluators"] == []  # nothing judged until the conversation ends
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["summary"]["waiting"] == 1
    assert "1 tasks: 0 passed, 0 failed, 0 errors, 1 waiting for a person" in result.stdout
    assert f"answer with bench answer {_run_id(tmp_path)} TASK (or in bench view)" in result.stdout
    manifest = json.loads(next((tmp_path / ".bench" / "runs").glob("*/manifest.json")).read_text())
    assert manifest["status"] == "waiting for a person"
    listed = bench_cli("runs", "--json")
    assert json.loads(listed.stdout)[0]["status"] == "waiting for a person"
    shown = bench_cli("show", _run_id(tmp_path), "t")
    assert "waits for a person at turn 2: take over the chat" in shown.stdout


def test_a_waiting_run_is_no_verdict_for_pass_at_k():
    from bench.scoring.pass_at_k import verdicts

    runs = [
        {"id": "t", "status": "passed", "passed": True},
        {"id": "t", "status": "waiting", "passed": False},
    ]
    assert verdicts(runs, {"t": 0.5})["tasks"]["t"]["runs"] == 1


def test_a_person_turn_without_the_runs_folder_is_an_error_naming_why():
    """An executor whose workers lack the run's folder (``ray``) has nowhere to keep the answer."""
    from bench.execution.conversation import converse, open_journal
    from bench.vocabulary.models import Response, Task

    async def answer(turn: Task) -> Response:
        return Response(output="hello")

    task = Task.model_validate(
        {"id": "t", "conversation": {"phases": [{"turns": ["hi"]}, {"person": {"prompt": "go on"}}]}}
    )
    response = asyncio.run(converse(task, answer, None, open_journal(None, "t", "d")))
    assert response.error == (
        "turn 2 is a person's (go on): a person's answer is kept in the run's folder, "
        "which this executor's workers do not share"
    )


def test_bench_answer_then_resume_goes_on_from_the_persons_turn(bench_cli, suite, tmp_path, monkeypatch):
    bench_cli("run", suite, "-q", "-o", "out.json")
    run_id = _run_id(tmp_path)
    monkeypatch.setattr("bench.report.person_turn.on_a_terminal", lambda: True)
    answered = _answer(bench_cli, run_id, "I want a refund")
    assert answered.exit_code == 0, answered.output
    assert "you are asked: take over the chat" in answered.stdout
    assert f"saved; the conversation goes on with: bench run SUITE --resume {run_id}" in answered.stdout
    result = bench_cli("run", suite, "-q", "-o", "out.json", "--resume", run_id)
    task = _task(tmp_path)
    assert result.exit_code == 0, result.output
    assert task["status"] == "passed"
    assert [m["content"] for m in task["conversation"]["messages"]] == [
        "my parcel is lost",
        "how can I help?",
        "I want a refund",
        "a refund it is",
        "thanks",
        "how can I help?",
    ]
    assert [t["by"] for t in task["conversation"]["turns"]] == ["scripted", "person", "scripted"]
    assert "waiting" not in task["conversation"]
    # the first turn was replayed from the journal, not asked again
    assert _calls(tmp_path) == ["my parcel is lost", "I want a refund", "thanks"]


def _answer(bench_cli, run_id: str, text: str):
    """``bench answer`` with ``text`` typed at its prompt (CliRunner reads stdin from ``input``)."""
    from typer.testing import CliRunner

    from bench.cli import app

    result = CliRunner().invoke(app, ["answer", run_id, "t"], input=text + "\n", catch_exceptions=False)
    return result


def test_bench_answer_without_a_terminal_is_refused(bench_cli, suite, tmp_path):
    bench_cli("run", suite, "-q", "-o", "out.json")
    run_id = _run_id(tmp_path)
    result = bench_cli("answer", run_id, "t")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: bench answer asks the person on a terminal, and this is none: run it in one, "
        f"or answer in bench view (task 't' of run {run_id})"
    )


def test_bench_answer_names_the_tasks_that_wait(bench_cli, suite, tmp_path):
    bench_cli("run", suite, "-q", "-o", "out.json")
    run_id = _run_id(tmp_path)
    result = bench_cli("answer", run_id, "nope")
    assert result.exit_code == 2
    assert (
        result.stderr.strip() == f"error: run {run_id} has no task 'nope' waiting for a person (waiting: t)"
    )


def test_resume_without_a_terminal_leaves_the_task_waiting_and_says_how_to_answer(bench_cli, suite, tmp_path):
    bench_cli("run", suite, "-q", "-o", "out.json")
    run_id = _run_id(tmp_path)
    result = bench_cli("run", suite, "-q", "-o", "out.json", "--resume", run_id)
    assert result.exit_code == 5
    assert (
        f"task 't' waits for a person and stays waiting (no terminal to ask on): answer it with "
        f"bench answer {run_id} t on a terminal, or in bench view"
    ) in result.stderr
    assert _task(tmp_path)["status"] == "waiting"
    assert _calls(tmp_path) == ["my parcel is lost"]  # replayed, not asked again


def test_an_answer_is_saved_once_and_never_empty(bench_cli, suite, tmp_path):
    from bench.execution.journal.person import find_waiting, save_answer

    bench_cli("run", suite, "-q", "-o", "out.json")
    waiting = find_waiting(tmp_path / ".bench" / "runs", _run_id(tmp_path), "t")
    with pytest.raises(ConfigError, match="an answer is a message: it cannot be empty"):
        save_answer(waiting, "  \n")
    save_answer(waiting, "I want a refund")
    with pytest.raises(ConfigError) as again:
        save_answer(waiting, "twice")
    assert again.value.message == (
        f"task 't' of run {waiting.run_id} is answered already: resume the run to send the answer"
    )


def test_f16_a_journal_cut_mid_line_keeps_the_turns_before_it_and_the_answer(
    bench_cli, suite, tmp_path, monkeypatch
):
    """RELIABILITY F16: a kill while a turn was appended leaves a torn last line; the answer is
    saved after the whole lines (the torn one cut off), and resume replays them: no turn is asked
    again and the person's message is sent."""
    bench_cli("run", suite, "-q", "-o", "out.json")
    run_id = _run_id(tmp_path)
    [journal] = (tmp_path / ".bench" / "runs" / run_id / "conversations").glob("*.jsonl")
    with journal.open("a") as torn:
        torn.write('{"kind": "reply", "respo')
    monkeypatch.setattr("bench.report.person_turn.on_a_terminal", lambda: True)
    assert _answer(bench_cli, run_id, "I want a refund").exit_code == 0
    assert json.loads(journal.read_text().splitlines()[-1]) == {
        "kind": "person",
        "turn": 2,
        "content": "I want a refund",
    }
    result = bench_cli("run", suite, "-q", "-o", "out.json", "--resume", run_id)
    assert (result.exit_code, _task(tmp_path)["status"]) == (0, "passed")
    assert _calls(tmp_path) == ["my parcel is lost", "I want a refund", "thanks"]


def test_resume_on_a_terminal_asks_the_person_then_goes_on(bench_cli, suite, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bench.cli import app

    bench_cli("run", suite, "-q", "-o", "out.json")
    run_id = _run_id(tmp_path)
    monkeypatch.setattr("bench.report.person_turn.on_a_terminal", lambda: True)
    args = ["run", str(suite), "-q", "-o", "out.json", "--resume", run_id]
    result = CliRunner().invoke(app, args, input="I want a refund\n", catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "task t of run " + run_id + " waits for you at turn 2" in result.stdout
    assert _task(tmp_path)["status"] == "passed"
    assert _calls(tmp_path) == ["my parcel is lost", "I want a refund", "thanks"]


def test_rescore_refuses_a_conversation_still_waiting_for_a_person(bench_cli, suite, tmp_path):
    bench_cli("run", suite, "-q", "-o", "out.json")
    run_id = _run_id(tmp_path)
    result = bench_cli("rescore", run_id)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: bench rescore {run_id}: run {run_id} has no stored response for 1 task of suite.yaml: 't'"
    )
