"""examples/batch runs offline: detached after submitting, resumed, two batches at the batch price."""

from __future__ import annotations

import json
from pathlib import Path

from bench.testing.server import Reply

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "batch"


def test_example_submits_detaches_and_resumes_in_two_batches(bench_cli, bench_fake_llm, tmp_path):
    for rule in json.loads((EXAMPLE / "fake-provider.json").read_text()):
        bench_fake_llm.add(Reply(rule["reply"]), match=rule["match"])
    dry = bench_cli("run", EXAMPLE / "suite.yaml", "--dry-run")
    assert " live, $" in dry.stdout, dry.stdout
    assert " with the batch price" in dry.stdout
    detached = bench_cli("run", EXAMPLE / "suite.yaml", "--detach")
    assert detached.exit_code == 3, detached.output
    resumed = bench_cli("run", EXAMPLE / "suite.yaml", "--resume", "latest", "-o", "out.json")
    assert resumed.exit_code == 0, resumed.output
    assert "batched: 6 requests in 2 batches; cost $" in resumed.stdout
    tasks = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert {t["id"]: t["status"] for t in tasks} == {"france": "passed", "japan": "passed", "peru": "passed"}
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2
    assert bench_fake_llm.count() == 0  # no live call
    again = bench_cli("run", EXAMPLE / "suite.yaml")
    assert again.exit_code == 0, again.output
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2  # every answer from the cache
