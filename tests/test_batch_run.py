"""``bench run --batch``: a suite's target calls in one batch, its judges' in a second, against
the fake server; ``--detach`` then ``--resume`` collects without submitting twice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.testing import judge_verdict

TASKS = 6


@pytest.fixture
def batch_suite(bench_suite_file, bench_fake_llm) -> Path:
    bench_fake_llm.add(judge_verdict(passed=True, reason="fine"), match="<response-")
    rows = "".join(
        f"  - id: t{i}\n    prompt: 'question {i}'\n    evaluate:\n"
        f"      - {{type: contains, value: 'question {i}'}}\n"
        "      - {type: llm_judge, criteria: 'Repeats the question', model: openai/fake}\n"
        for i in range(TASKS)
    )
    return bench_suite_file(
        "target: {type: litellm, model: openai/fake}\n"
        "llm: {batch_poll_s: 0.01, batch_settle_s: 0.1}\n"
        f"tasks:\n{rows}"
    )


def manifest(tmp_path: Path) -> dict:
    (path,) = (tmp_path / ".bench" / "runs").glob("*/manifest.json")
    return dict(json.loads(path.read_text()))


def test_batch_run_sends_targets_then_judges_as_two_batches(bench_cli, batch_suite, bench_fake_llm, tmp_path):
    result = bench_cli("run", batch_suite, "--batch")
    assert result.exit_code == 0, result.stderr
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2
    assert bench_fake_llm.count() == 0  # no live call
    batches = manifest(tmp_path)["batches"]
    assert [b["requests"] for b in batches["batches"]] == [TASKS, TASKS]
    assert batches["requests"] == 2 * TASKS


def test_detach_exits_after_submitting_and_resume_collects(bench_cli, batch_suite, bench_fake_llm, tmp_path):
    from bench.testing.batches import BatchPlan

    bench_fake_llm.batches.plan(BatchPlan(polls=3))
    detached = bench_cli("run", batch_suite, "--batch", "--detach")
    assert detached.exit_code == 3
    first = manifest(tmp_path)
    assert first["status"] == "waiting on batches"
    assert first["stopped"].startswith("waiting on batches: batch_")
    assert bench_fake_llm.batches.count("POST /v1/batches") == 1
    resumed = bench_cli("run", batch_suite, "--resume", first["run_id"])
    assert resumed.exit_code == 0, resumed.stderr
    assert manifest(tmp_path)["summary"]["passed"] == TASKS
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2  # the targets' once, the judges'
    assert bench_fake_llm.count() == 0


def test_batch_true_on_a_model_without_a_batch_api_is_refused(bench_cli, bench_suite_file, bench_fake_llm):
    path = bench_suite_file(
        "target: {type: litellm, model: hosted_vllm/m}\n"
        "llm: {models: {hosted_vllm/m: {batch: true}}}\n"
        "tasks:\n  - {id: t, prompt: hi, evaluate: {type: contains, value: hi}}\n"
    )
    result = bench_cli("run", path)
    assert result.exit_code == 2
    assert (
        "hosted_vllm/m: its provider has no batch API bench can use (batches go to openai/, groq/, "
        "together_ai/ and anthropic/ models, or an OpenAI-compatible api_base under openai/); "
        "remove batch: true for it, or run without --batch"
    ) in result.stderr
