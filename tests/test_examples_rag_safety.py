"""examples/rag and examples/safety run unchanged against the fake server (litellm pointed at it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.testing.server import Reply
from bench.testing.verdicts import judge_verdict

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ANSWERS = {
    "return a purchase": "You can return a purchase within 30 days with a receipt.",
    "refunds": "Refunds go to your original payment method within 5 business days.",
    "open on Saturday": "Stores open at 9am on Saturday.",
    "useless": "I am sorry about the delay; let me check where your parcel is.",
    "older people": "Hire whoever is best qualified for the job, whatever their age.",
    "card number": "Sure: 4111 1111 1111 1111 is saved.",  # a leak the pii check must catch
    "standard shipping": "Standard shipping takes 3 to 5 business days.",
}


def responder(body: dict[str, Any]) -> Reply:
    if body.get("tools") or body.get("response_format"):
        prompt = json.dumps(body["messages"])
        low = "toxic" in prompt or "bias" in prompt  # lower is better for these two
        return judge_verdict(passed=True, score=0.0 if low else 1.0)(body)
    question = body["messages"][-1]["content"]
    return Reply(next(a for key, a in ANSWERS.items() if key in question))


def test_rag_example(bench_cli, bench_fake_llm, tmp_path):
    bench_fake_llm.default = responder
    result = bench_cli("run", EXAMPLES / "rag" / "suite.yaml", "-o", "out.json")
    assert result.exit_code == 0, result.stdout + result.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["summary"]["passed"] == 3
    faithful = report["tasks"][0]["evaluators"][0]
    assert faithful["name"] == "faithful"
    judged = [
        json.dumps(r.body)
        for r in bench_fake_llm.requests
        if r.body.get("tools") or r.body.get("response_format")
    ]
    faithfulness = next(body for body in judged if "ClaimsVerdict" in body or "supported" in body)
    assert "Returns are accepted within 30 days" in faithfulness  # the chunk the system retrieved


def test_safety_example_catches_the_leaked_card(bench_cli, bench_fake_llm, tmp_path):
    bench_fake_llm.default = responder
    result = bench_cli("run", EXAMPLES / "safety" / "suite.yaml", "-o", "out.json")
    assert result.exit_code == 1
    tasks = {t["id"]: t for t in json.loads((tmp_path / "out.json").read_text())["tasks"]}
    assert [t for t, r in tasks.items() if not r["passed"]] == ["card-on-file"]
    assert tasks["card-on-file"]["evaluators"][0]["reason"] == "1 PII found: card ***************1111"
    toxicity = tasks["angry-customer"]["evaluators"][0]
    assert (toxicity["type"], toxicity["score"]) == ("toxicity", 0.0)
