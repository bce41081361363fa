"""promptfoo's model-graded assertions through the run's LLM client, against the fake server:
promptfoo's own grading prompts go out and its parsing of the grader's reply decides."""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

import pytest

from bench import Task
from bench.testing import Reply, run_evaluator

pytestmark = pytest.mark.timeout(60)


def check(asserts: list[dict[str, Any]], output: str, **settings: Any) -> Any:
    task = Task(id="t", prompt="What is the capital of France?")
    return run_evaluator({"type": "promptfoo", "assert": asserts, **settings}, output, task=task)


def _messages(server: Any) -> list[dict[str, Any]]:
    return server.requests[-1].body["messages"]


def test_llm_rubric_pass_with_promptfoo_prompt(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(Reply('{"reason": "mentions Paris", "pass": true, "score": 0.9}'))
    out = check([{"type": "llm-rubric", "value": "Names the capital"}], "Paris")
    assert (out.passed, out.score) == (True, 0.9)
    system, user = _messages(bench_fake_llm)
    assert system["content"].startswith("You are grading output according to a user-specified rubric.")
    assert user["content"] == "<Output>\nParis\n</Output>\n<Rubric>\nNames the capital\n</Rubric>"
    assert bench_fake_llm.requests[-1].body["model"] == "gpt-4.1-2025-04-14"  # promptfoo's default grader


def test_llm_rubric_failure_reason(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(Reply('Here you go: {"reason": "no city named", "pass": false}'))
    out = check([{"type": "llm-rubric", "value": "Names the capital"}], "France")
    # no score in the reply: Number(pass) = 0.
    assert (out.passed, out.score, out.reason) == (False, 0.0, "no city named")


def test_llm_rubric_threshold_on_the_graders_score(bench_fake_llm: Any) -> None:
    # pass true but 0.6 < 0.8: pass && score >= threshold → fail.
    bench_fake_llm.add(Reply('{"pass": true, "score": 0.6}'))
    out = check([{"type": "llm-rubric", "value": "r", "threshold": 0.8}], "x")
    assert (out.passed, out.score, out.reason) == (False, 0.6, "Score 0.6 below threshold 0.8")


def test_llm_rubric_no_json_fails(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(Reply("I think it passes"))
    out = check([{"type": "llm-rubric", "value": "r"}], "x")
    assert (out.passed, out.reason) == (False, "Could not extract JSON from llm-rubric response")


def test_grader_from_options_and_assertion(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(Reply('{"pass": true}'))
    check([{"type": "llm-rubric", "value": "r"}], "x", options={"provider": "openai:chat:gpt-4o-mini"})
    assert bench_fake_llm.requests[-1].body["model"] == "gpt-4o-mini"
    check(
        [{"type": "llm-rubric", "value": "r", "provider": {"id": "openai:gpt-4o"}}],
        "x",
        options={"provider": "openai:o3"},
    )
    assert bench_fake_llm.requests[-1].body["model"] == "gpt-4o"


def test_not_llm_rubric_inverts(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(Reply('{"pass": true, "score": 1}'))
    out = check([{"type": "not-llm-rubric", "value": "speaks like a pirate"}], "Arr")
    assert (out.passed, out.score) == (False, 0.0)


@pytest.mark.parametrize(
    ("reply", "passed", "score"),
    [
        ('{"category": "A", "reason": "subset"}', True, 1.0),
        ('{"category": "D", "reason": "disagrees"}', False, 0.0),
        ("(B) The submission adds details.", True, 1.0),  # the legacy letter format
        ("(D) conflicts", False, 0.0),
    ],
)
def test_factuality(bench_fake_llm: Any, reply: str, passed: bool, score: float) -> None:
    bench_fake_llm.add(Reply(reply))
    out = check([{"type": "factuality", "value": "Paris is the capital of France"}], "Paris")
    assert (out.passed, out.score) == (passed, score)
    prompt = _messages(bench_fake_llm)[0]["content"]
    assert "[Question]: What is the capital of France?" in prompt
    assert "[Expert]: Paris is the capital of France" in prompt
    assert "[Submission]: Paris" in prompt


def test_factuality_scores_from_options(bench_fake_llm: Any) -> None:
    # options.factuality.superset = 0.5 → category B scores 0.5, still passing (> 0).
    bench_fake_llm.add(Reply('{"category": "B", "reason": "more"}'))
    out = check(
        [{"type": "factuality", "value": "Paris"}],
        "Paris, on the Seine",
        options={"factuality": {"superset": 0.5}},
    )
    assert (out.passed, out.score, out.reason) == (True, 0.5, "All assertions passed")
    assert out.details["assertions"][0]["reason"] == "more"


def test_factuality_unparseable(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(Reply("no idea"))
    out = check([{"type": "factuality", "value": "Paris"}], "Paris")
    assert (out.passed, out.reason) == (
        False,
        "Factuality checker output did not match expected format: no idea",
    )


@pytest.mark.parametrize(("reply", "passed"), [("Reasoning...\nY\nY", True), ("Reasoning...\nN\nN", False)])
def test_model_graded_closedqa(bench_fake_llm: Any, reply: str, passed: bool) -> None:
    bench_fake_llm.add(Reply(reply))
    out = check([{"type": "model-graded-closedqa", "value": "names a city"}], "Paris")
    assert (out.passed, out.score) == (passed, float(passed))
    assert "[Criterion]: names a city" in _messages(bench_fake_llm)[0]["content"]


def _fake_vector(text: str) -> list[float]:
    # the fake server's embedding: the first 8 bytes of sha256(text), each / 255.
    return [b / 255 for b in hashlib.sha256(text.encode()).digest()[:8]]


def test_similar_cosine(bench_fake_llm: Any) -> None:
    out = check([{"type": "similar", "value": "Paris"}], "Paris")
    assert (out.passed, round(out.score, 6)) == (True, 1.0)  # the same text: cosine 1
    a, b = _fake_vector("Paris"), _fake_vector("Lyon")
    cosine = sum(x * y for x, y in zip(a, b, strict=True)) / (math.hypot(*a) * math.hypot(*b))
    out = check([{"type": "similar", "value": "Paris", "threshold": 0.999}], "Lyon")
    assert (out.passed, round(out.score, 6)) == (False, round(cosine, 6))
    assert out.reason == f"Similarity {cosine:.2f} is less than threshold 0.999"
    embedded = [r.body for r in bench_fake_llm.requests if r.path.endswith("/embeddings")]
    assert embedded[-1]["model"] == "text-embedding-3-large"


def test_graded_and_deterministic_together(bench_fake_llm: Any) -> None:
    # rubric 0.5 (pass) w 1 + contains (fail) w 1 → 0.25 + ... = (0.5 + 0) / 2 = 0.25, fail.
    bench_fake_llm.add(Reply(json.dumps({"pass": True, "score": 0.5, "reason": "ok"})))
    out = check([{"type": "llm-rubric", "value": "r"}, {"type": "contains", "value": "z"}], "abc")
    assert (out.passed, out.score) == (False, 0.25)


def test_llm_calls_name_the_graders() -> None:
    from bench_formats.promptfoo.evaluator import Promptfoo

    config = Promptfoo.Config.model_validate(
        {
            "assert": [
                {"type": "llm-rubric", "value": "r"},
                {"type": "similar", "value": "x"},
                {"type": "contains", "value": "a"},
            ]
        }
    )
    assert Promptfoo(config).llm_calls() == [
        ("openai/gpt-4.1-2025-04-14", 1),
        ("openai/text-embedding-3-large", 1),
    ]


def test_json_output_is_shown_compact_to_the_rubric(bench_fake_llm: Any) -> None:
    # promptfoo renders tryParse(output): a JSON object goes into the prompt as JSON.stringify.
    bench_fake_llm.add(Reply('{"pass": true}'))
    check([{"type": "llm-rubric", "value": "r"}], '{ "a": 1 }')
    assert _messages(bench_fake_llm)[1]["content"] == '<Output>\n{"a":1}\n</Output>\n<Rubric>\nr\n</Rubric>'


def test_custom_rubric_prompt_is_refused(bench_fake_llm: Any) -> None:
    out = check([{"type": "llm-rubric", "value": "r"}], "x", options={"rubricPrompt": "Grade {{output}}"})
    assert out.error == "promptfoo llm-rubric: options.rubricPrompt is not supported by bench yet"
    assert bench_fake_llm.count() == 0
