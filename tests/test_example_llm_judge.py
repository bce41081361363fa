"""examples/llm-judge runs unchanged against the fake server (litellm pointed at it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.testing.server import Reply
from bench.testing.verdicts import judge_verdict

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "llm-judge" / "suite.yaml"
ANSWERS = {
    "capital": "Canberra is the capital of Australia.",
    "Python": "Guido van Rossum created Python.",
    "429": "It means too many requests.",
}


def test_example_runs_against_the_fake_server(bench_cli, bench_fake_llm, tmp_path):
    verdict, out_of_five = judge_verdict(passed=True, score=1), judge_verdict(passed=True, score=5)

    def respond(body: dict[str, Any]) -> Reply:
        if body.get("tools") or body.get("response_format"):
            prompt = json.dumps(body["messages"])
            return (out_of_five if "from 0 to 5" in prompt else verdict)(body)
        question = body["messages"][-1]["content"]
        return Reply(next(a for key, a in ANSWERS.items() if key in question))

    bench_fake_llm.default = respond
    result = bench_cli("run", EXAMPLE, "-o", "out.json")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["summary"]["passed"] == 3
    calls = report["llm"]["calls"]
    assert calls == bench_fake_llm.count() == 3 + 2 + 2 + 1 + 3  # 3 answers; judges: 2 + 2 + (1 + 3 samples)
    assert report["tasks"][0]["evaluators"][1]["score"] == 1.0

    dry = bench_cli("run", EXAMPLE, "--dry-run")
    assert "11 model calls; cost at most $" in dry.stdout
    assert bench_fake_llm.count() == calls
