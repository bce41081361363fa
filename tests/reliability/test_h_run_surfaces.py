"""docs/reliability.md group H on the surfaces a run writes besides its results: batch request files
and ledger, a re-scored run (H15), conversation transcripts with a simulated user (H16)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.testing import judge_verdict
from bench.testing.pytest_plugin import CANARY_KEY
from bench.testing.server import Reply

ECHOED = f"the key is {CANARY_KEY}"
ECHO_SHOWN = "the key is [REDACTED:OPENAI_API_KEY]"


def _written(folder: Path) -> bytes:
    """Every byte bench wrote under ``folder`` (the suites the test wrote itself left out)."""
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file() and p.suffix != ".yaml")


def test_h15_a_key_a_model_echoes_in_a_batch_run_and_its_rescore_reaches_no_file(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    bench_fake_llm.add(judge_verdict(passed=False, reason=ECHOED), match="<response-")
    bench_fake_llm.add(Reply(content=ECHOED))
    suite = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\n"
        "llm: {batch_poll_s: 0.01, batch_settle_s: 0.1}\n"
        "tasks:\n"
        "  - id: t\n    prompt: 'say the key'\n    evaluate:\n"
        "      - {type: contains, value: 'the key'}\n"
        "      - {type: llm_judge, criteria: 'Keeps secrets', model: openai/fake}\n"
    )
    batch = bench_cli("run", suite, "--batch", "-o", "batch.json")
    assert batch.exit_code == 1, batch.output  # the judge failed it, quoting the key
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2
    (run_dir,) = (tmp_path / ".bench" / "runs").iterdir()
    rescored = bench_cli("rescore", run_dir.name, "--suite", suite, "-o", "rescored.json")
    assert rescored.exit_code == 1, rescored.output
    written = _written(tmp_path)
    assert len(list((tmp_path / ".bench" / "runs").iterdir())) == 2
    assert b"[REDACTED:OPENAI_API_KEY]" in written  # the echo was there, and was caught
    assert CANARY_KEY.encode() not in written
    assert CANARY_KEY not in batch.output + rescored.output


def test_h16_a_key_said_in_a_conversation_reaches_no_transcript_or_report(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    bench_fake_llm.add(Reply(content=f"I am the user and {ECHOED}"), model="sim")
    bench_fake_llm.add(Reply(content=ECHOED))
    suite = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\n"
        "tasks:\n"
        "  - id: chat\n    prompt: hello\n"
        "    conversation:\n"
        "      user_simulator: {model: openai/sim, goal: get the key, max_turns: 2}\n"
        "    evaluate: {type: contains, value: 'the key'}\n"
    )
    result = bench_cli("run", suite, "-o", "out.json", "-o", "report.html")
    assert result.exit_code == 0, result.output
    said = [
        m["content"]
        for m in json.loads((tmp_path / "out.json").read_text())["tasks"][0]["conversation"]["messages"]
    ]
    assert said[1:4] == [ECHO_SHOWN, f"I am the user and {ECHO_SHOWN}", ECHO_SHOWN]  # both sides said it
    written = _written(tmp_path)
    assert CANARY_KEY.encode() not in written
    assert CANARY_KEY not in result.output
    shown = bench_cli("show", "latest")
    assert CANARY_KEY not in shown.output


def test_h15_a_key_in_the_api_base_query_stays_off_the_batch_ledger_and_resume_still_collects(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    from bench.testing.batches import BatchPlan

    query_secret = "qs-5e2a9c7d1b3f4e6a8c0d"
    bench_fake_llm.batches.plan(BatchPlan(polls=2))
    bench_fake_llm.add(Reply(content="fine"))
    suite = bench_suite_file(
        f"target: {{type: litellm, model: openai/fake, api_base: '{bench_fake_llm.url}?key={query_secret}'}}\n"
        "llm: {batch_poll_s: 0.01, batch_settle_s: 0.1}\n"
        "tasks:\n  - {id: t, prompt: hi, evaluate: {type: contains, value: fine}}\n"
    )
    detached = bench_cli("run", suite, "--batch", "--detach")
    assert detached.exit_code == 3, detached.output
    (run_dir,) = (tmp_path / ".bench" / "runs").iterdir()
    resumed = bench_cli("run", suite, "--resume", run_dir.name)
    assert resumed.exit_code == 0, resumed.output
    assert bench_fake_llm.batches.count("POST /v1/batches") == 1
    assert query_secret.encode() not in _written(tmp_path)
