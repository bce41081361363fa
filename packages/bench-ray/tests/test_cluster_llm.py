"""Model calls on a Ray cluster: the shared response cache reaches the workers, and the suite's
limits and budgets hold for the run as a whole (one coordinator actor), against bench's fake
server on 127.0.0.1 (the workers are processes of this machine).

The workers see the server through the suites' ``api_base`` (their environment is the one their
node started with, conftest.py) and keep their local cache in ``worker_cache``.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

import bench
from bench.testing import Reply, judge_verdict, verdict_digest, write_suite

WORKERS = 2
#: The criteria of the suites' judge: the fake server answers prompts holding it with a verdict.
CRITERIA = "Repeats the question back"
#: Tokens of each of the fake server's answers (its Reply's defaults: 10 in, 5 out).
TOKENS_PER_CALL = 15
pytestmark = pytest.mark.timeout(900)


def llm_suite(folder: Path, url: str, tasks: int, *, judge: bool = False, head: str = "") -> Path:
    """``tasks`` tasks of a litellm target on the fake server, each prompt unique to this suite
    (the workers' local cache lasts the whole session)."""
    nonce = uuid.uuid4().hex[:8]
    check = (
        f"{{type: llm_judge, criteria: '{CRITERIA}', model: openai/fake, api_base: '{url}'}}"
        if judge
        else "{type: contains, value: question}"
    )
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'question {nonce}-{i}', evaluate: [{check}]}}\n" for i in range(tasks)
    )
    return write_suite(
        folder,
        f"name: llm-{tasks}\n{head}target: {{type: litellm, model: openai/fake, api_base: '{url}'}}\n"
        f"tasks:\n{rows}",
    )


def verdicts(result: bench.RunResult) -> dict[str, Any]:
    """Each task's answer and verdicts (its usage left out: a cached answer's differs)."""
    fields = ("status", "passed", "score", "response", "error", "evaluators")
    lines = (result.folder / "results.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    return {row["id"]: {name: row[name] for name in fields} for row in rows}


def manifest(result: bench.RunResult) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((result.folder / "manifest.json").read_text())
    return data


def test_a_warm_ray_run_with_empty_worker_caches_makes_no_call(
    cluster, bench_fake_llm, worker_cache, in_tmp, monkeypatch
):
    bench_fake_llm.add(judge_verdict(passed=True), match=CRITERIA)
    suite = llm_suite(in_tmp, bench_fake_llm.url, 200, judge=True)
    shared = (in_tmp / "l2").as_uri()
    local = bench.run(suite, runs_dir="local", shared_cache=shared)
    assert bench_fake_llm.count() == 400  # a target call and a judge call per task
    assert local.summary.passed == 200
    assert len(list((in_tmp / "l2").glob("*/*.json"))) == 400
    warm = bench.run(suite, runs_dir="ray", executor="ray", workers=WORKERS, chunk=50, shared_cache=shared)
    assert bench_fake_llm.count() == 400  # every answer came from the shared cache
    assert verdicts(warm) == verdicts(local)
    # A cached answer's usage says so (no attempt, no wait), so the digest compares like with
    # like: a warm local run with an empty local cache of its own.
    monkeypatch.setenv("BENCH_CACHE_DIR", str(in_tmp / "fresh"))
    warm_local = bench.run(suite, runs_dir="local", shared_cache=shared)
    assert bench_fake_llm.count() == 400
    assert verdict_digest(warm.folder / "results.jsonl") == verdict_digest(
        warm_local.folder / "results.jsonl"
    )
    totals = manifest(warm)["llm"]
    assert (totals["calls"], totals["attempts"], totals["cached"]) == (0, 0, 400)
    assert warm.report.extra["llm"]["cached"] == 400
    # The workers kept what they read in their own local cache, not in the driver's.
    assert (worker_cache / "llm.sqlite3").is_file()


def test_the_suites_concurrency_holds_over_all_workers(cluster, bench_fake_llm, in_tmp):
    bench_fake_llm.add(Reply("the question, answered", latency_s=0.2))
    suite = llm_suite(in_tmp, bench_fake_llm.url, 80, head="llm: {concurrency: 4}\n")
    # Each worker alone would keep 32 calls in flight.
    result = bench.run(
        suite, runs_dir="ray", executor="ray", workers=WORKERS, chunk=40, concurrency=32, cache=False
    )
    assert result.summary.passed == 80
    assert 2 <= bench_fake_llm.max_in_flight <= 4 + WORKERS  # the limit, plus one per worker
    totals = manifest(result)["llm"]
    assert totals["calls"] == totals["attempts"] == bench_fake_llm.count() == 80
    assert result.report.extra["llm"]["calls"] == 80
    assert totals["total_tokens"] == 80 * TOKENS_PER_CALL


def test_a_budget_over_all_workers_stops_the_run(cluster, bench_fake_llm, in_tmp):
    latency, budget, limit = 0.25, 600, 4
    bench_fake_llm.add(Reply("the question, answered", latency_s=latency))
    head = f"llm: {{concurrency: {limit}}}\nruntime_limits: {{max_total_tokens: {budget}}}\n"
    suite = llm_suite(in_tmp, bench_fake_llm.url, 200, head=head)
    result = bench.run(
        suite, runs_dir="ray", executor="ray", workers=WORKERS, chunk=25, concurrency=16, cache=False
    )
    reason = "budget runtime_limits.max_total_tokens reached"
    assert result.report.stopped == reason
    data = manifest(result)
    assert (data["status"], data["stopped"]) == ("stopped", reason)
    assert result.summary.not_run > 0
    spent = data["llm"]["total_tokens"]
    assert data["llm"]["attempts"] == bench_fake_llm.count()
    assert spent == bench_fake_llm.count() * TOKENS_PER_CALL
    # docs/scale.md's bound: the calls the other workers start in one sync period (at most the
    # calls in flight over all workers, each a latency long, for a second) plus those in flight.
    in_flight = limit + WORKERS
    overshoot = (in_flight / latency + in_flight) * TOKENS_PER_CALL
    assert budget <= spent <= budget + overshoot
    # Each worker alone would have spent the whole budget: 2 x 600 tokens.
    assert spent < WORKERS * budget


def test_the_servers_count_is_the_manifests_with_judges(cluster, bench_fake_llm, in_tmp):
    bench_fake_llm.add(judge_verdict(passed=False), match=CRITERIA)
    suite = llm_suite(in_tmp, bench_fake_llm.url, 30, judge=True)
    result = bench.run(suite, runs_dir="ray", executor="ray", workers=WORKERS, chunk=10, cache=False)
    assert result.summary.failed == 30
    totals = manifest(result)["llm"]
    assert totals["calls"] == totals["attempts"] == bench_fake_llm.count() == 60
    assert totals["by_model"]["openai/fake"]["calls"] == 60  # the workers' per-model figures
    assert result.report.extra["llm"]["calls"] == 60


def conversation_suite(folder: Path, url: str) -> Path:
    """Scripted turns with per-turn checks, a simulated user and a recorded transcript, on the
    fake server (each message unique to this suite: the workers' cache lasts the session)."""
    nonce = uuid.uuid4().hex[:8]
    model = f"{{type: litellm, model: openai/fake, api_base: '{url}'}}"
    simulator = f"{{model: openai/user, api_base: '{url}', goal: a refund {nonce}, max_turns: 2}}"
    return write_suite(
        folder,
        f"name: talks\ntarget: {model}\ntasks:\n"
        f"  - id: scripted\n    conversation:\n      turns:\n        - hello {nonce}\n"
        f"        - {{user: 'order {nonce}', evaluate: {{type: contains, value: order}}}}\n"
        "    evaluate: {type: contains, value: echo, over: each_turn}\n"
        f"  - id: simulated\n    conversation: {{user_simulator: {simulator}}}\n"
        "    evaluate: [{type: turn_count, max: 2}]\n"
        "  - id: recorded\n    response: {messages: [{role: user, content: hi}, {role: assistant, content: bye}]}\n"
        "    evaluate: [{type: never_said, phrases: [bye]}]\n",
    )


def test_a_conversation_suite_on_ray_gives_the_local_transcripts_and_verdicts(
    cluster, bench_fake_llm, in_tmp
):
    suite = conversation_suite(in_tmp, bench_fake_llm.url)
    local = bench.run(suite, runs_dir="local", cache=False)
    ray = bench.run(suite, runs_dir="ray", executor="ray", workers=WORKERS, chunk=1, cache=False)
    assert [local.summary.passed, local.summary.failed] == [2, 1]
    assert verdicts(ray) == verdicts(local)
    transcripts = [
        {row["id"]: row["conversation"]["messages"] for row in map(json.loads, lines)}
        for lines in (r.folder.joinpath("results.jsonl").read_text().splitlines() for r in (local, ray))
    ]
    assert transcripts[0] == transcripts[1]
    assert len(transcripts[0]["simulated"]) == 4  # two simulated user messages, two replies
