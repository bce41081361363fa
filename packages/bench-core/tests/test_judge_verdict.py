"""The fake server's scripted judge (``bench.testing.judge_verdict``) answers by the request's
shape, never by what the prompt's words say: the prompt quotes the answer being judged, which may
mention JSON or quote a schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.testing import judge_verdict

VERDICT = {"passed": False, "score": 0.0, "reason": "wrong capital"}
SCHEMA = {"type": "object", "properties": {"passed": {"type": "boolean"}, "reason": {"type": "string"}}}


def _asked(answer: str, *extra: dict[str, Any]) -> dict[str, Any]:
    """A judge's request in its own words (no schema), quoting ``answer``, then ``extra`` messages."""
    prompt = f"Grade this answer to 'capital of Australia?': {answer}\nGive passed, score and reason."
    return {"model": "judge", "messages": [{"role": "user", "content": prompt}, *extra]}


@pytest.mark.parametrize(
    "answer",
    ["Sydney", "Sydney, as JSON: {}", 'JSON Schema: {"type": "object"', "JSON Schema: not json at all"],
    ids=["plain", "mentions-json", "quotes-a-schema", "quotes-a-broken-schema"],
)
def test_a_judge_without_a_schema_gets_the_verdict_whatever_the_answer_says(answer: str) -> None:
    reply = judge_verdict(passed=False, reason="wrong capital")(_asked(answer))
    assert json.loads(reply.content or "") == VERDICT


def test_bench_json_modes_schema_message_is_filled() -> None:
    asked = {
        "role": "user",
        "content": "Answer with only a JSON object matching this JSON Schema:\n" + json.dumps(SCHEMA),
    }
    reply = judge_verdict(passed=False, reason="wrong capital")(_asked("Sydney, as JSON: {}", asked))
    assert json.loads(reply.content or "") == {"passed": False, "reason": "wrong capital"}
