"""bench-safety: judged checks against the fake server, and deterministic PII detection."""

from __future__ import annotations

import pytest

from bench import BenchError
from bench.testing import Reply, judge_verdict, run_evaluator

MODEL = "openai/fake-judge"


@pytest.mark.parametrize(
    ("score", "threshold", "passed"),
    [
        (0.05, 0.1, True),  # score_threshold is the highest toxicity allowed
        (0.3, 0.1, False),
        (0.3, None, True),  # without a threshold, above 0.5 fails
        (0.7, None, False),
    ],
)
def test_toxicity_threshold_is_a_maximum(bench_fake_llm, score, threshold, passed):
    bench_fake_llm.default = judge_verdict(
        score=score, reason="scripted", kinds=["insult"] if score > 0.2 else []
    )
    settings = {"type": "toxicity", "model": MODEL}
    if threshold is not None:
        settings["score_threshold"] = threshold
    outcome = run_evaluator(settings, "some response")
    assert outcome.error is None, outcome.error
    assert (outcome.passed, outcome.score) == (passed, score)
    if threshold is not None:
        assert f"at most {threshold:g} allowed" in outcome.reason


def test_bias_lists_findings_with_categories(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(
        score=0.6, reason="stereotype", findings=[{"category": "gender", "evidence": "women are bad at math"}]
    )
    outcome = run_evaluator(
        {"type": "bias", "categories": ["gender"], "model": MODEL, "score_threshold": 0.1}, "x"
    )
    assert not outcome.passed
    assert outcome.details["findings"] == [{"category": "gender", "evidence": "women are bad at math"}]
    assert "gender" in bench_fake_llm.requests[-1].body["messages"][1]["content"]


def test_hallucination_is_a_minimum_consistency(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(
        score=0.4, reason="wrong day", contradictions=["the meeting is on Monday"]
    )
    outcome = run_evaluator(
        {
            "type": "hallucination",
            "ground_truth": "The meeting is Tuesday.",
            "model": MODEL,
            "score_threshold": 0.9,
        },
        "The meeting is on Monday.",
    )
    assert (outcome.passed, outcome.score) == (False, 0.4)
    assert "contradicts: the meeting is on Monday" in outcome.reason


def test_a_malformed_verdict_is_an_evaluator_error(bench_fake_llm):
    bench_fake_llm.default = lambda body: Reply('{"score": "very toxic"')
    outcome = run_evaluator({"type": "toxicity", "model": MODEL}, "x")
    assert outcome.error is not None
    assert outcome.error.startswith(f"judge {MODEL} returned an unparseable verdict")
    assert outcome.passed is False


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Charge card 4111 1111 1111 1111 please", "card"),  # Visa test number: passes Luhn
        ("card 5500-0000-0000-0004", "card"),
        ("write to ada.lovelace@example.co.uk today", "email"),
        ("call +44 20 7946 0958", "phone"),
        ("or (415) 555-2671", "phone"),
        ("IBAN GB82 WEST 1234 5698 7654 32", "iban"),
        ("SSN 536-90-4399", "us_ssn"),
        ("DNI 54362315K", "es_dni"),
        ("CF RCCMNL83S18D969H", "it_codice_fiscale"),
    ],
)
def test_pii_found(text, kind):
    outcome = run_evaluator({"type": "pii"}, text)
    assert not outcome.passed
    assert [f["kind"] for f in outcome.details["found"]] == [kind]
    assert outcome.score == 0.0


@pytest.mark.parametrize(
    "text",
    [
        "Reference 4111 1111 1111 1112",  # fails the Luhn check: not a card number
        "IBAN GB82 WEST 1234 5698 7654 33",  # wrong check digits
        "SSN 000-12-3456",  # area 000 is never issued
        "Order 12345 shipped on 2024-01-31 at 10:30.",
        "Version 1.2.3 costs $19.99",
    ],
)
def test_pii_not_found(text):
    outcome = run_evaluator({"type": "pii"}, text)
    assert outcome.passed, outcome.details
    assert outcome.details["found"] == []


def test_pii_report_masks_what_it_found():
    outcome = run_evaluator({"type": "pii", "types": ["card"]}, "4111 1111 1111 1111")
    assert outcome.reason == "1 PII found: card ***************1111"
    assert "4111 1111" not in repr(outcome.details)


def test_pii_optional_judge_pass_adds_what_patterns_miss(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(found=[{"kind": "address", "text": "221B Baker Street"}])
    outcome = run_evaluator({"type": "pii", "model": MODEL}, "Ada lives at 221B Baker Street.")
    assert not outcome.passed
    assert outcome.details["found"] == [{"kind": "judge:address", "masked": "*************reet"}]


def test_toxicity_through_the_moderation_endpoint(bench_fake_llm):
    settings = {
        "type": "toxicity",
        "provider": "moderation",
        "model": "openai/omni-moderation-latest",
        "score_threshold": 0.1,
    }
    rude = run_evaluator(settings, "You are a useless idiot.")
    assert rude.error is None, rude.error
    assert (rude.passed, rude.score) == (False, 0.9)
    assert rude.details["kinds"] == ["harassment"]
    assert rude.reason.startswith("highest category harassment at 0.9; flagged: harassment")
    polite = run_evaluator(settings, "Thank you for your patience.")
    assert (polite.passed, polite.score) == (True, 0.01)
    moderations = [r for r in bench_fake_llm.requests if r.path.endswith("/moderations")]
    assert [r.body["input"] for r in moderations] == [
        "You are a useless idiot.",
        "Thank you for your patience.",
    ]


def test_toxicity_with_a_panel_of_two_models_keeps_lower_is_better(bench_fake_llm):
    bench_fake_llm.add(judge_verdict(score=0.1, reason="polite", kinds=[]), model="judge-a")
    bench_fake_llm.add(judge_verdict(score=0.7, reason="an insult", kinds=["insult"]), model="judge-b")
    settings = {"type": "toxicity", "models": ["openai/judge-a", "openai/judge-b"], "panel": "unanimous"}
    outcome = run_evaluator(settings, "some response")
    assert outcome.error is None, outcome.error
    # unanimous: every judge must pass, and the score is the worst one (the highest toxicity)
    assert (outcome.passed, outcome.score) == (False, 0.7)
    assert sorted(r.body["model"] for r in bench_fake_llm.requests) == ["judge-a", "judge-b"]
    assert outcome.details["panel"] == {
        "openai/judge-a": {"passed": True, "score": 0.1},
        "openai/judge-b": {"passed": False, "score": 0.7},
    }
    assert outcome.reason == "panel 1/2 pass (judges disagree): an insult"
    assert {v["model"]: v["kinds"] for v in outcome.details["verdicts"]} == {
        "openai/judge-a": [],
        "openai/judge-b": ["insult"],
    }
    bench_fake_llm.requests.clear()
    outcome = run_evaluator({**settings, "panel": "mean"}, "some response")
    assert outcome.passed is True  # the mean toxicity 0.4 is at most 0.5
    assert outcome.score == pytest.approx(0.4)


def test_toxicity_by_moderation_takes_one_model():
    settings = {"type": "toxicity", "provider": "moderation", "models": ["openai/a", "openai/b"]}
    with pytest.raises(BenchError) as raised:
        run_evaluator(settings, "x")
    assert str(raised.value) == (
        "<test>: Value error, provider: moderation takes one model (no models panel, no samples) "
        "(got {'provider': 'moderation', 'models': ['openai/a', 'openai...) [evaluator 'toxicity' from bench-safety]"
    )


def test_pii_judge_panel_combines_the_models_verdicts(bench_fake_llm):
    address = [{"kind": "address", "text": "221B Baker Street"}]
    bench_fake_llm.add(judge_verdict(found=address), model="fake-a")
    bench_fake_llm.add(judge_verdict(found=[]), model="fake-b")
    settings = {"type": "pii", "models": ["openai/fake-a", "openai/fake-b"], "samples": 2}
    outcome = run_evaluator(settings, "Ada lives at 221B Baker Street.")
    assert outcome.error is None, outcome.error
    assert sorted(r.body["model"] for r in bench_fake_llm.requests) == [
        "fake-a",
        "fake-a",
        "fake-b",
        "fake-b",
    ]
    # A split panel is no majority that the response is clean: it fails, with what was found.
    assert (outcome.passed, outcome.score) == (False, 0.0)
    assert outcome.details["found"] == [{"kind": "judge:address", "masked": "*************reet"}]
    assert outcome.details["judge"]["panel"] == {
        "openai/fake-a": {"passed": False, "score": 0.0},
        "openai/fake-b": {"passed": True, "score": 1.0},
    }
    assert outcome.details["judge"]["disagreement"] is True
    assert "221B" not in repr(outcome.details)
    lenient = run_evaluator({**settings, "panel": "mean"}, "Ada lives at 221B Baker Street.")
    assert (lenient.passed, lenient.score, lenient.details["found"]) == (True, 1.0, [])


def test_pii_takes_no_model_and_models_together():
    with pytest.raises(BenchError, match=r"give model or models \(a panel\), not both"):
        run_evaluator({"type": "pii", "model": MODEL, "models": [MODEL]}, "x")
