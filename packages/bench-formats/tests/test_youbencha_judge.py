"""youBencha's agentic-judge through an agent CLI (a fake one here), and through a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from youbencha_helpers import URL, by_name, run

from bench.testing import load_suite, run_suite

CASE = f"""\
name: judged
description: A judged change
repo: {URL}
agent:
  type: copilot-cli
  config:
    prompt: Add a helpful comment
evaluators:
  - file: evaluators/readme.yaml
"""
DEFINITION = """\
name: agentic-judge:readme
description: README quality
config:
  type: copilot-cli
  agent_name: reviewer
  prompt_file: judge-intro.md
  assertions:
    readme_modified: The README was modified.
    helpful: The comment is helpful.
"""


@pytest.fixture
def judged(demo: Path) -> Path:
    (demo / "evaluators").mkdir()
    (demo / "evaluators" / "readme.yaml").write_text(DEFINITION)
    (demo / "judge-intro.md").write_text("Review the README.")
    (demo / "testcase.yaml").write_text(CASE)
    return demo / "testcase.yaml"


def test_the_judge_runs_the_cli_with_youbenchas_prompt_and_its_status_wins(judged: Path, monkeypatch):
    log = judged.parent / "argv.jsonl"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    reply = {"status": "failed", "metrics": {"readme_modified": 1, "helpful": 0.5}, "message": "Too terse."}
    monkeypatch.setenv("FAKE_JUDGE_REPLY", "Thinking...\n```json\n" + json.dumps(reply) + "\n```\n")
    task = run(judged)
    judge = by_name(task)["agentic-judge:readme"]
    assert judge["passed"] is False
    assert judge["reason"] == "Too terse."
    assert judge["score"] == 0.75  # (1 + 0.5) / 2
    assert judge["details"]["assertions"] == {"readme_modified": 1, "helpful": 0.5}
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    judge_argv = calls[1]
    # agent_name given: youBencha sends the prompt and the assertions without its template
    assert judge_argv[:2] == [
        "-p",
        "Review the README.\n\n# Evaluation Assertions:\n- **readme_modified**: The README was modified.\n"
        "- **helpful**: The comment is helpful.",
    ]
    assert judge_argv[2:4] == ["--agent", "reviewer"]


def test_without_agent_name_the_template_carries_the_assertions(judged: Path, monkeypatch):
    (judged.parent / "evaluators" / "readme.yaml").write_text(
        DEFINITION.replace("  agent_name: reviewer\n", "")
    )
    log = judged.parent / "argv.jsonl"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    monkeypatch.setenv(
        "FAKE_JUDGE_REPLY", '{"status": "passed", "metrics": {"helpful": 1}, "message": "Good."}'
    )
    task = run(judged)
    assert by_name(task)["agentic-judge:readme"]["passed"] is True
    prompt = json.loads(log.read_text().splitlines()[1])[1]
    assert prompt.startswith("You are a custom quality evaluator.")
    assert "## Evaluation Assertions\n\nReview the README.\n\n- **readme_modified**" in prompt


def test_an_answer_without_a_verdict_is_skipped(judged: Path, monkeypatch):
    monkeypatch.setenv("FAKE_JUDGE_REPLY", "I could not decide.")
    judge = by_name(run(judged))["agentic-judge:readme"]
    assert judge["passed"] is True
    assert judge["reason"] == (
        "skipped: Agent output is not valid JSON or missing required fields (status, metrics, message). "
        'Output preview: "I could not decide. ..." (youBencha outcome: partial unless another evaluator failed)'
    )


def test_a_failing_judge_cli_is_skipped(judged: Path, monkeypatch):
    monkeypatch.setenv("FAKE_JUDGE_REPLY", "")
    monkeypatch.setenv("FAKE_JUDGE_EXIT", "3")
    judge = by_name(run(judged))["agentic-judge:readme"]
    assert judge["reason"].startswith("skipped: Agent execution failed: exit code 3")


def test_a_judge_with_a_model_and_no_agent_type_is_benchs_agentic_judge(demo: Path):
    (demo / "testcase.yaml").write_text(
        CASE.replace(
            "  - file: evaluators/readme.yaml\n",
            "  - name: agentic-judge-docs\n    config:\n      model: openai/gpt-4o-mini\n"
            "      assertions:\n        documented: The change is documented.\n",
        )
    )
    planned = next(iter(load_suite(demo / "testcase.yaml").tasks))
    (bound,) = planned.evaluators
    assert (bound.name, bound.type) == ("agentic-judge-docs", "agentic-judge")


def test_prompt_and_prompt_file_in_a_judge_is_youbenchas_error(judged: Path):
    from bench import ConfigError

    (judged.parent / "evaluators" / "readme.yaml").write_text(
        DEFINITION.replace("  type:", "  prompt: x\n  type:")
    )
    with pytest.raises(ConfigError) as caught:
        load_suite(judged)
    assert caught.value.message == (
        'Evaluator "agentic-judge:readme": Cannot specify both "prompt" and "prompt_file". Please use only one.'
    )


def test_h20_an_offline_agentic_judge_is_skipped_with_the_reason_and_never_started(judged: Path, monkeypatch):
    """The judge's agent CLI sends the change to its model, off this machine: an offline run does
    not start it, and a check that did not run never passes (youBencha's own skip would)."""
    log = judged.parent / "argv.jsonl"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    monkeypatch.setenv("FAKE_JUDGE_REPLY", '{"status": "passed", "metrics": {}, "message": "Good."}')
    (task,) = list(run_suite(judged, runs_dir=judged.parent / "runs", offline=True).report.tasks())
    judge = by_name(task)["agentic-judge:readme"]
    assert (judge["passed"], judge["error"]) == (
        False,
        "offline: youbencha-agentic-judge runs copilot-cli, whose model is not on this machine",
    )
    assert task["status"] == "error"
    assert len(log.read_text().splitlines()) == 1  # the agent ran (in its namespace); the judge did not
