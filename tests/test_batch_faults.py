"""The reliability catalogue's batch faults (docs/reliability.md, F12-F15): a real SIGKILL of
``bench run --batch`` after its submit request and while it downloads, batches that expired,
were cancelled or partly failed, and a ledger cut mid-line; then ``--resume``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.testing import judge_verdict
from bench.testing.batches import BatchPlan

TASKS = 4


@pytest.fixture
def judged_suite(bench_suite_file, bench_fake_llm) -> Path:
    bench_fake_llm.add(judge_verdict(passed=True, reason="fine"), match="<response-")
    rows = "".join(
        f"  - id: t{i}\n    prompt: 'question {i}'\n"
        "    evaluate: {type: llm_judge, criteria: 'Repeats the question', model: openai/fake}\n"
        for i in range(TASKS)
    )
    return bench_suite_file(
        "target: {type: litellm, model: openai/fake}\n"
        f"llm: {{batch_poll_s: 0.01, batch_settle_s: 0.1}}\ntasks:\n{rows}"
    )


def _run_id(tmp_path: Path) -> str:
    (folder,) = (tmp_path / ".bench" / "runs").iterdir()
    return folder.name


def _results(tmp_path: Path) -> list[dict]:
    """Each task's last row (a resumed task's new row supersedes its earlier one)."""
    (path,) = (tmp_path / ".bench" / "runs").glob("*/results.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return list({row["id"]: row for row in rows}.values())


def _kill_at(endpoint: str, server, tmp_path: Path, suite: Path) -> None:
    """Run ``bench run --batch`` in a process of its own and SIGKILL it once ``endpoint`` is asked."""
    arrived = server.batches.hold(endpoint)
    command = [sys.executable, "-m", "bench", "run", str(suite), "--batch", "-q"]
    process = subprocess.Popen(command, cwd=tmp_path, env=dict(os.environ), stdout=subprocess.DEVNULL)
    try:
        assert arrived.wait(60), f"bench never asked {endpoint}"
    finally:
        process.kill()  # SIGKILL
        process.wait(30)
        server.batches.release()
    assert process.returncode == -9


def _resume_loses_nothing(bench_cli, suite: Path, server, tmp_path: Path) -> None:
    resumed = bench_cli("run", str(suite), "--resume", _run_id(tmp_path))
    assert resumed.exit_code == 0, resumed.stderr
    results = _results(tmp_path)
    assert sorted(r["id"] for r in results) == [f"t{i}" for i in range(TASKS)]
    assert all(r["status"] == "passed" for r in results)
    # the targets' batch once and the judges' once: nothing submitted twice, no live call
    assert server.batches.count("POST /v1/batches") == 2
    assert server.count() == 0


def test_f12_sigkill_right_after_the_submit_request_then_resume(
    bench_cli, judged_suite, bench_fake_llm, tmp_path
):
    _kill_at("POST /v1/batches", bench_fake_llm, tmp_path, judged_suite)
    assert bench_fake_llm.batches.count("POST /v1/batches") == 1  # the provider has it; bench no id
    _resume_loses_nothing(bench_cli, judged_suite, bench_fake_llm, tmp_path)


def test_f13_sigkill_while_downloading_a_batch_then_resume(bench_cli, judged_suite, bench_fake_llm, tmp_path):
    _kill_at("GET /v1/files/{id}/content", bench_fake_llm, tmp_path, judged_suite)
    _resume_loses_nothing(bench_cli, judged_suite, bench_fake_llm, tmp_path)
    assert bench_fake_llm.batches.count("GET /v1/files/{id}/content") >= 3  # the first output again


@pytest.mark.parametrize("end", ["expired", "cancelled", "failed"])
def test_f14_a_batch_that_ended_short_has_its_requests_sent_again(
    bench_cli, judged_suite, bench_fake_llm, tmp_path, end
):
    bench_fake_llm.batches.plan(BatchPlan(end=end, finished=1))
    result = bench_cli("run", str(judged_suite), "--batch")
    assert result.exit_code == 0, result.stderr
    assert all(r["status"] == "passed" for r in _results(tmp_path))
    # targets: the short batch and one for the rest; then the judges'
    assert bench_fake_llm.batches.count("POST /v1/batches") == 3
    # every target request ran once: the one the short batch finished was not sent again
    asked = [line["messages"][-1]["content"] for line in bench_fake_llm.batches.ran]
    targets = sorted(a for a in asked if a.startswith("question "))
    assert targets == [f"question {i}" for i in range(TASKS)]


def test_f15_a_ledger_cut_mid_line_resumes_and_submits_nothing_twice(
    bench_cli, judged_suite, bench_fake_llm, tmp_path
):
    bench_fake_llm.batches.plan(BatchPlan(polls=3))
    detached = bench_cli("run", str(judged_suite), "--batch", "--detach")
    assert detached.exit_code == 3, detached.stderr
    (ledger,) = (tmp_path / ".bench" / "runs").glob("*/batches/ledger.jsonl")
    whole = ledger.read_text()
    ledger.write_text(whole + whole.splitlines()[-1][:20])  # killed while appending a line
    _resume_loses_nothing(bench_cli, judged_suite, bench_fake_llm, tmp_path)
    assert ledger.read_text().startswith(whole)
