"""bench-rag's evaluators against the fake server with scripted verdicts (real litellm calls)."""

from __future__ import annotations

import json

import pytest

from bench import BenchError, Response, Task
from bench.testing import Reply, judge_verdict, run_evaluator
from bench_rag.evaluators import average_precision

MODEL = "openai/fake-judge"
CONTEXT = "Returns are accepted within 30 days of purchase with a receipt."


def judged(settings, response, task=None):
    return run_evaluator(settings, response, task=task)


def last_prompt(bench_fake_llm) -> str:
    """The judge prompt of the last request (JSON mode adds the schema as a later message)."""
    messages = bench_fake_llm.requests[-1].body["messages"]
    return next(m["content"] for m in messages if m["role"] == "user")


def test_faithfulness_scores_the_supported_fraction_and_lists_unsupported_claims(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(
        claims=[
            {"claim": "Returns are accepted within 30 days.", "supported": True, "reason": "stated"},
            {
                "claim": "Shipping is free.",
                "supported": False,
                "reason": "the context says nothing about shipping",
            },
        ]
    )
    settings = {"type": "faithfulness", "context": CONTEXT, "model": MODEL}
    outcome = judged(settings, "Returns within 30 days; shipping is free.")
    assert outcome.error is None, outcome.error
    assert (outcome.passed, outcome.score) == (False, 0.5)
    assert outcome.details["unsupported"] == ["Shipping is free."]
    assert outcome.reason == "1 of 2 claims not supported by the context: Shipping is free."
    assert outcome.details["prompt_version"] == "rag-1"
    prompt = last_prompt(bench_fake_llm)
    assert CONTEXT in prompt
    assert "<context-" in prompt


def test_faithfulness_reads_context_from_the_response_artifacts(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(claims=[{"claim": "30 days", "supported": True, "reason": "ok"}])
    response = Response(
        output="30 days.", artifacts={"documents": ["Doc A: returns in 30 days.", "Doc B: hours"]}
    )
    settings = {"type": "faithfulness", "context_from": "artifact.documents", "model": MODEL}
    outcome = judged(settings, response)
    assert outcome.passed
    prompt = last_prompt(bench_fake_llm)
    assert "[1] Doc A: returns in 30 days." in prompt
    assert "[2] Doc B: hours" in prompt


def test_context_needs_exactly_one_source():
    with pytest.raises(BenchError, match="give context"):
        run_evaluator({"type": "faithfulness", "model": MODEL}, "x")
    with pytest.raises(BenchError, match="unsupported evidence reference 'documents'"):
        run_evaluator({"type": "faithfulness", "model": MODEL, "context_from": "documents"}, "x")


@pytest.mark.parametrize(
    ("relevant", "expected"),
    [
        ([True, False, True], (1 / 1 + 2 / 3) / 2),  # precision@1 = 1, precision@3 = 2/3
        ([False, True, True], (1 / 2 + 2 / 3) / 2),  # the same chunks ranked lower score less
        ([False, False], 0.0),
        ([True], 1.0),
    ],
)
def test_rank_aware_precision_by_hand(relevant, expected):
    assert average_precision(relevant) == pytest.approx(expected)


def test_precision_end_to_end(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(
        chunks=[{"relevant": False, "reason": "hours"}, {"relevant": True, "reason": "policy"}]
    )
    settings = {"type": "precision", "context": ["Stores open at 9am.", CONTEXT], "model": MODEL}
    task = Task(id="t", prompt="What is the return policy?")
    outcome = judged(settings, "30 days", task=task)
    assert outcome.score == pytest.approx(0.5)  # the only relevant chunk is ranked second
    assert outcome.reason == "relevant chunks at ranks [2] of 2"
    assert "What is the return policy?" in last_prompt(bench_fake_llm)


def test_precision_refuses_a_verdict_with_the_wrong_number_of_chunks(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(chunks=[{"relevant": True, "reason": "x"}])
    outcome = judged({"type": "precision", "context": ["a", "b"], "model": MODEL}, "x")
    assert outcome.error == f"judge {MODEL} judged 1 chunks, but there are 2"


def test_recall_and_relevancy(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(
        statements=[
            {"statement": "Returns within 30 days", "attributed": True, "reason": "chunk 1"},
            {"statement": "A receipt is needed", "attributed": True, "reason": "chunk 1"},
            {"statement": "Refunds go to the card", "attributed": False, "reason": "absent"},
        ]
    )
    recall = {
        "type": "recall",
        "reference": "30 days, receipt, refund to card.",
        "context": [CONTEXT],
        "model": MODEL,
    }
    outcome = judged(recall, "x")
    assert outcome.score == pytest.approx(2 / 3)
    assert outcome.reason == "not in the context: Refunds go to the card"
    bench_fake_llm.default = judge_verdict(score=0.9, reason="answers the question")
    relevancy = judged({"type": "relevancy", "model": MODEL, "score_threshold": 0.8}, "30 days")
    assert (relevancy.passed, relevancy.score) == (True, 0.9)


def test_a_malformed_verdict_is_an_evaluator_error(bench_fake_llm):
    bench_fake_llm.default = lambda body: Reply("I think it is mostly fine.")
    outcome = judged({"type": "faithfulness", "context": CONTEXT, "model": MODEL}, "x")
    assert outcome.passed is False
    assert outcome.error is not None
    assert outcome.error.startswith(f"judge {MODEL} returned an unparseable verdict")


def test_the_prompt_can_be_overridden_and_its_placeholders_are_checked(bench_fake_llm, bench_cli, tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "tasks:\n  - id: a\n    response: x\n    evaluate:\n"
        "      {type: faithfulness, context: c, model: openai/j, prompt: 'Judge {response} using {documents}'}\n"
    )
    result = bench_cli("validate", suite)
    assert result.exit_code == 2
    assert "unknown placeholder {documents} in prompt; faithfulness fills response, context" in result.stderr
    bench_fake_llm.default = judge_verdict(claims=[])
    suite.write_text(
        "tasks:\n  - id: a\n    response: x\n    evaluate:\n"
        "      {type: faithfulness, context: c, model: openai/j, prompt: 'MY PROMPT {response} / {context}'}\n"
    )
    result = bench_cli("run", suite, "-o", "out.json")
    assert result.exit_code == 0, result.stdout
    details = json.loads((tmp_path / "out.json").read_text())["tasks"][0]["evaluators"][0]["details"]
    assert details["prompt_version"] == "custom"
    assert last_prompt(bench_fake_llm).startswith("MY PROMPT")


def test_faithfulness_with_a_panel_of_two_models_combines_their_verdicts(bench_fake_llm):
    supported = {"claim": "Returns within 30 days.", "supported": True, "reason": "stated"}
    invented = {"claim": "Shipping is free.", "supported": False, "reason": "not in the context"}
    bench_fake_llm.add(judge_verdict(claims=[supported]), model="judge-a")
    bench_fake_llm.add(judge_verdict(claims=[supported, invented]), model="judge-b")
    settings = {
        "type": "faithfulness",
        "context": CONTEXT,
        "models": ["openai/judge-a", "openai/judge-b"],
        "panel": "mean",
    }
    outcome = judged(settings, "Returns within 30 days; shipping is free.")
    assert outcome.error is None, outcome.error
    # judge-a: every claim supported (1.0); judge-b: one of two (0.5); the mean 0.75 is not "all supported"
    assert (outcome.passed, outcome.score) == (False, 0.75)
    assert sorted(r.body["model"] for r in bench_fake_llm.requests) == ["judge-a", "judge-b"]
    assert outcome.details["panel"] == {
        "openai/judge-a": {"passed": True, "score": 1.0},
        "openai/judge-b": {"passed": False, "score": 0.5},
    }
    assert outcome.details["disagreement"] is True
    assert outcome.reason == (
        "panel 1/2 pass (judges disagree): 1 of 2 claims not supported by the context: Shipping is free."
    )
    by_model = {v["model"]: v for v in outcome.details["verdicts"]}
    assert by_model["openai/judge-b"]["unsupported"] == ["Shipping is free."]
    assert by_model["openai/judge-a"]["unsupported"] == []
    assert outcome.details["prompt_version"] == "rag-1"


def test_relevancy_samples_one_model_several_times(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(score=0.8, reason="answers it")
    settings = {"type": "relevancy", "model": MODEL, "samples": 3}
    outcome = judged(settings, "Within 30 days.", task=Task(id="q", prompt="What is the return policy?"))
    assert outcome.error is None, outcome.error
    assert outcome.passed is True
    assert outcome.score == pytest.approx(0.8)
    assert bench_fake_llm.count() == 3
    assert [v["sample"] for v in outcome.details["verdicts"]] == [0, 1, 2]
    assert outcome.details["spread"] == {"min": 0.8, "max": 0.8, "stdev": 0.0}
