"""``--batch`` with ``--executor ray`` (docs/batch.md): the driver owns the batches, the workers
run what is local on their answers. Against bench's fake server on 127.0.0.1, which the workers
reach through the suite's ``api_base``; the batches go out with the driver's key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

import bench
from bench.testing import judge_verdict, verdict_digest, write_suite

TASKS = 8
WORKERS = 2
#: The kill test's workers: one starts faster (twice: the killed driver's, the resumed run's)
KILL_WORKERS = 1
pytestmark = pytest.mark.timeout(300)


def batch_suite(folder: Path, url: str) -> Path:
    """A target call and a judge call per task (two stages), and a check that needs no model;
    each prompt unique to this suite (the workers' cache lasts the session)."""
    nonce = uuid.uuid4().hex[:8]
    judge = f"{{type: llm_judge, criteria: 'Repeats the question', model: openai/fake, api_base: '{url}'}}"
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'question {nonce}-{i}', "
        f"evaluate: [{{type: contains, value: 'question {nonce}-{i}'}}, {judge}]}}\n"
        for i in range(TASKS)
    )
    return write_suite(
        folder,
        f"name: batched\ntarget: {{type: litellm, model: openai/fake, api_base: '{url}'}}\n"
        f"llm: {{batch_poll_s: 0.01, batch_settle_s: 0.3}}\ntasks:\n{rows}",
    )


def batches(result_folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((result_folder / "manifest.json").read_text())["batches"]
    return data


def test_batch_on_ray_gives_the_local_batch_runs_verdicts(cluster, bench_fake_llm, in_tmp):
    bench_fake_llm.add(judge_verdict(passed=True, reason="fine"), match="<response-")
    suite = batch_suite(in_tmp, bench_fake_llm.url)
    local = bench.run(suite, runs_dir="local", batch=True, cache=False)
    assert local.summary.passed == TASKS
    lines = len(bench_fake_llm.batches.ran)
    assert lines == 2 * TASKS
    ray = bench.run(suite, runs_dir="ray", executor="ray", workers=WORKERS, chunk=3, batch=True, cache=False)
    assert verdict_digest(ray.folder / "results.jsonl") == verdict_digest(local.folder / "results.jsonl")
    assert bench_fake_llm.count() == 0  # no live call: every call of both runs went in a batch
    assert len(bench_fake_llm.batches.ran) - lines == 2 * TASKS  # each request once
    kept = batches(ray.folder)
    assert kept["requests"] == 2 * TASKS
    assert sum(b["requests"] for b in kept["batches"]) == 2 * TASKS
    assert json.loads((ray.folder / "manifest.json").read_text())["llm"]["calls"] == 2 * TASKS


def test_f18_sigkill_of_the_ray_driver_after_its_submit_then_resume(cluster, bench_fake_llm, in_tmp):
    bench_fake_llm.add(judge_verdict(passed=True, reason="fine"), match="<response-")
    suite = batch_suite(in_tmp, bench_fake_llm.url)
    arrived = bench_fake_llm.batches.hold("POST /v1/batches")
    command = [sys.executable, "-m", "bench", "run", str(suite), "--batch", "-q", "--no-cache"]
    command += ["--executor", "ray", "--address", cluster, "--workers", str(KILL_WORKERS), "--chunk", "3"]
    driver = subprocess.Popen(command, cwd=in_tmp, env=dict(os.environ), stdout=subprocess.DEVNULL)
    try:
        assert arrived.wait(120), "the driver never submitted its batch"
    finally:
        driver.kill()  # SIGKILL: the provider has the batch, the ledger no id
        driver.wait(30)
        bench_fake_llm.batches.release()
    assert driver.returncode == -9
    (folder,) = (in_tmp / ".bench" / "runs").iterdir()
    resumed = bench.run(suite, resume=folder.name, executor="ray", workers=KILL_WORKERS, chunk=3, cache=False)
    assert resumed.summary.passed == TASKS
    # the targets' batch, found again by its token, and the judges' batch: nothing submitted twice
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2
    assert len(bench_fake_llm.batches.ran) == 2 * TASKS
    assert bench_fake_llm.count() == 0
