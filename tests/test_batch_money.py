"""What a batch run costs: budgets count the batch price and stop the next stage, never half a
batch already submitted (docs/batch.md, Money)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.testing import judge_verdict

TASKS = 4
#: Each fake answer uses 10 input and 5 output tokens: $0.02 live, $0.01 at the batch price.
PRICING = (
    "pricing: {models: [{model: openai/fake, input_cost_per_million_tokens: 1000, "
    "output_cost_per_million_tokens: 2000}]}\n"
)


@pytest.fixture
def priced_suite(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(judge_verdict(passed=True, reason="fine"), match="<response-")
    rows = "".join(
        f"  - id: t{i}\n    prompt: 'question {i}'\n"
        "    evaluate: {type: llm_judge, criteria: 'Repeats the question', model: openai/fake}\n"
        for i in range(TASKS)
    )

    def make(budget: float) -> Path:
        return bench_suite_file(
            "target: {type: litellm, model: openai/fake}\n"
            f"llm: {{batch_poll_s: 0.01, batch_settle_s: 0.1}}\n{PRICING}"
            f"runtime_limits: {{max_cost_usd: {budget}}}\ntasks:\n{rows}"
        )

    return make


def _manifest(tmp_path: Path) -> dict:
    (path,) = (tmp_path / ".bench" / "runs").glob("*/manifest.json")
    return dict(json.loads(path.read_text()))


def test_budget_reached_by_a_batch_stops_the_next_stage_not_the_submitted_one(
    bench_cli, priced_suite, bench_fake_llm, tmp_path
):
    result = bench_cli("run", priced_suite(0.01), "--batch")
    assert result.exit_code == 3, result.stderr
    run = _manifest(tmp_path)
    assert run["stopped"] == "budget runtime_limits.max_cost_usd reached"
    assert (
        f"stopped: budget runtime_limits.max_cost_usd reached; finish it with: bench run "
        f"{tmp_path / 'suite.yaml'} --batch --resume {run['run_id']}"
    ) in result.stdout.replace("\n", "")
    # the targets' batch went whole (all four at $0.01), the judges' batch never
    assert bench_fake_llm.batches.count("POST /v1/batches") == 1
    assert run["batches"]["batches"][0]["requests"] == TASKS
    assert run["batches"]["cost_usd"] == pytest.approx(TASKS * 0.01)


def test_budget_counts_the_batch_price_not_the_live_one(bench_cli, priced_suite, bench_fake_llm, tmp_path):
    # the targets cost $0.04 in a batch ($0.08 live): under the $0.05 budget, the judges go on
    result = bench_cli("run", priced_suite(0.05), "--batch")
    assert result.exit_code == 0, result.stderr
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2
    assert _manifest(tmp_path)["summary"]["passed"] == TASKS


def test_reports_say_what_was_batched_and_its_cost_beside_the_live_price(
    bench_cli, priced_suite, bench_fake_llm, tmp_path
):
    result = bench_cli("run", priced_suite(10), "--batch", "--report", "html=run.html")
    assert result.exit_code == 0, result.stderr
    # 8 answers: $0.01 each in a batch, $0.02 live (the judges' answers are priced the same)
    line = "batched: 8 requests in 2 batches; cost $0.0800 (live price $0.1600)"
    assert line in result.stdout
    run = _manifest(tmp_path)
    assert run["batches"]["live_cost_usd"] == pytest.approx(0.16)
    assert '"batches":{"batches":[' in (tmp_path / "run.html").read_text().replace(" ", "")
    shown = bench_cli("show", run["run_id"])
    assert line in shown.stdout
