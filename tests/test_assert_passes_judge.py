"""``bench.testing.assert_passes`` with an LLM judge (bench-llm-judge's ``llm_judge``) against the
fake server: the judge sees the task's vars, and its score and reason are in the message."""

from __future__ import annotations

import pytest

from bench.testing import assert_passes
from bench.testing.server import FakeLLMServer
from bench.testing.verdicts import judge_verdict


def test_a_judge_sees_the_vars_and_its_score_and_reason_are_in_the_message(bench_fake_llm: FakeLLMServer):
    bench_fake_llm.default = judge_verdict(passed=False, score=0.25, reason="it never names the city")
    judge = {
        "type": "llm_judge",
        "prompt": "Does {response} answer {question}?",
        "model": "openai/gpt-4o-mini",
    }
    with pytest.raises(AssertionError) as caught:
        assert_passes("It is a nice place.", judge, vars={"question": "What is the capital of France?"})
    assert str(caught.value) == (
        "1 of 1 evaluators did not pass:\n  llm_judge failed (score 0.25): it never names the city"
    )
    [request] = bench_fake_llm.requests
    assert "What is the capital of France?" in str(request.body["messages"])


def test_an_unknown_var_in_a_judge_prompt_is_a_config_error():
    judge = {
        "type": "llm_judge",
        "prompt": "Does {response} answer {question}?",
        "model": "openai/gpt-4o-mini",
    }
    with pytest.raises(
        ValueError, match=r"unknown placeholder \{question\} in the judge prompt \(task vars: none\)"
    ):
        assert_passes("x", judge)
