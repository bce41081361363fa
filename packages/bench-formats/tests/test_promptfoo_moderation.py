"""promptfoo's ``moderation`` check against the fake server's OpenAI moderation endpoint, as
promptfoo 0.121.20 asks OpenAI's ``/v1/moderations`` (``omni-moderation-latest`` by default)."""

from __future__ import annotations

from typing import Any

import pytest

from bench import Task
from bench.testing import run_evaluator

pytestmark = pytest.mark.timeout(60)


def _check(asserts: list[dict[str, Any]], output: str, **settings: Any) -> Any:
    task = Task(id="t", prompt="Say something about my neighbour.")
    return run_evaluator({"type": "promptfoo", "assert": asserts, **settings}, output, task=task)


def test_moderation_passes_a_clean_output(bench_fake_llm: Any):
    out = _check([{"type": "moderation"}], "Your neighbour is kind.")
    assert (out.passed, out.score, out.reason) == (True, 1.0, "All assertions passed")
    assert out.details["assertions"][0]["reason"] == "No moderation flags detected"
    (sent,) = [r.body for r in bench_fake_llm.requests if r.path.endswith("/moderations")]
    assert sent["model"] == "omni-moderation-latest"


def test_moderation_fails_a_flagged_output(bench_fake_llm: Any):
    bench_fake_llm.moderation = lambda text: {"harassment": 0.9, "hate": 0.01, "violence": 0.7}
    out = _check([{"type": "moderation"}], "You idiot.")
    assert (out.passed, out.score, out.reason) == (
        False,
        0.0,
        "Moderation flags detected: harassment, violence",
    )


def test_moderation_categories_and_not(bench_fake_llm: Any):
    """The value lists the categories that count; ``not-moderation`` inverts the verdict."""
    bench_fake_llm.moderation = lambda text: {"harassment": 0.9, "hate": 0.01}
    out = _check([{"type": "moderation", "value": ["hate"]}], "You idiot.")
    assert (out.passed, out.details["assertions"][0]["reason"]) == (
        True,
        "No relevant moderation flags detected",
    )
    out = _check([{"type": "not-moderation"}], "You idiot.")
    assert (out.passed, out.score) == (True, 1.0)


def test_moderation_model_from_the_provider(bench_fake_llm: Any):
    options = {"provider": {"moderation": "openai:moderation:text-moderation-latest"}}
    assert _check([{"type": "moderation"}], "fine", options=options).passed
    assert bench_fake_llm.requests[-1].body["model"] == "text-moderation-latest"


def test_moderation_with_a_text_provider_is_an_error(bench_fake_llm: Any):
    """promptfoo throws when the grading provider has no moderation API: the row is an error."""
    out = _check([{"type": "moderation"}], "fine", options={"provider": "openai:gpt-4o-mini"})
    assert out.error == (
        "moderation: Provider openai:gpt-4o-mini is not a valid moderation provider for 'moderation check'"
    )


def test_moderation_by_another_provider_did_not_run(bench_fake_llm: Any):
    out = _check([{"type": "moderation", "provider": "azure:moderation:content-safety"}], "fine")
    assert out.error == (
        "moderation: did not run: bench asks OpenAI's moderation endpoint (openai:moderation:MODEL), "
        "not 'azure:moderation:content-safety'"
    )
