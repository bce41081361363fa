"""Start-of-run differences with promptfoo: a Google provider's built-in tools, and a ``similar``
check whose embedding call fails (a failure in promptfoo), with the other similarity metrics."""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path
from typing import Any

import pytest

# litellm fetches its price map from the internet at import unless told to read its own copy (as
# bench's loader tells it): no test reaches the internet.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
import litellm

from bench import Task
from bench.testing import load_suite, run_evaluator

pytestmark = pytest.mark.timeout(60)


def _config(folder: Path, text: str) -> Path:
    path = folder / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


GOOGLE = """\
prompts: ['What is new in {{topic}}?']
providers:
  - id: google:gemini-2.0-flash
    config:
      tools:
        - googleSearch: {}
tests:
  - vars: {topic: Python}
    assert: [{type: icontains, value: python}]
"""


def test_google_search_tool_reaches_gemini_as_google_search(tmp_path: Path):
    """promptfoo sends a Google provider's ``tools: [{googleSearch: {}}]`` to Gemini as it is;
    bench refused the config (a tool needs a name). The target now takes it, and litellm sends
    Gemini the same ``googleSearch`` tool."""
    plan = load_suite(_config(tmp_path, GOOGLE))
    tools = plan.target.config.tools  # type: ignore[union-attr]
    assert tools == [{"type": "googleSearch", "googleSearch": {}}]
    sent = litellm.utils.get_optional_params(
        model="gemini-2.0-flash", custom_llm_provider="gemini", tools=tools
    )
    assert sent["tools"] == [{"googleSearch": {}}]


def test_google_function_declarations_become_function_tools(tmp_path: Path):
    """Gemini's ``functionDeclarations`` form is one OpenAI function spec per declaration."""
    text = GOOGLE.replace(
        "- googleSearch: {}",
        "- functionDeclarations: [{name: weather, parameters: {type: object, properties: {city: {type: string}}}}]",
    )
    plan = load_suite(_config(tmp_path, text))
    assert plan.target.config.tools == [  # type: ignore[union-attr]
        {
            "type": "function",
            "function": {
                "name": "weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]


def _check(asserts: list[dict[str, Any]], output: str, **settings: Any) -> Any:
    task = Task(id="t", prompt="What is the capital of France?")
    return run_evaluator({"type": "promptfoo", "assert": asserts, **settings}, output, task=task)


def _vector(text: str) -> list[float]:
    # the fake server's embedding: the first 8 bytes of sha256(text), each / 255.
    return [b / 255 for b in hashlib.sha256(text.encode()).digest()[:8]]


def test_similar_whose_embedding_call_fails_is_a_failure(bench_fake_llm: Any):
    """promptfoo's ``matchesSimilarity`` returns ``fail(error)`` when the embedding call fails: the
    check fails with score 0 (the row is a failure). bench made the row an error."""
    out = _check([{"type": "similar", "value": "Paris", "provider": "nowhere:embedder"}], "Paris")
    assert (out.error, out.passed, out.score) == (None, False, 0.0)
    reason = out.details["assertions"][0]["reason"]
    assert reason.startswith("nowhere:embedder embeddings after 1 attempts: ")
    assert out.reason == reason


def test_similar_dot_and_euclidean(bench_fake_llm: Any):
    """``similar:dot`` and ``similar:euclidean``, as promptfoo's ``calculateSimilarityScore``."""
    a, b = _vector("Paris"), _vector("Lyon")
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    out = _check([{"type": "similar:dot", "value": "Paris", "threshold": 0.5}], "Lyon")
    score = out.details["assertions"][0]["score"]  # the row's score is kept within 0..1
    assert (out.passed, round(score, 9)) == (dot >= 0.5, round(dot, 9))
    distance = math.dist(a, b)
    out = _check([{"type": "similar:euclidean", "value": "Paris", "threshold": 0.1}], "Lyon")
    assert (out.passed, round(out.score, 9)) == (False, round(1 / (1 + distance), 9))
    assert out.reason == f"Distance {distance:.2f} is greater than threshold 0.1"
    out = _check([{"type": "not-similar:euclidean", "value": "Paris", "threshold": 0.1}], "Lyon")
    assert (out.passed, round(out.score, 9)) == (True, round(1 - 1 / (1 + distance), 9))


def test_similar_list_that_no_value_meets(bench_fake_llm: Any):
    """A list of values none of which is similar enough: promptfoo's own reason, the best score."""
    out = _check([{"type": "similar", "value": ["Lyon", "Nice"], "threshold": 0.9999}], "Paris")
    assert out.passed is False
    assert out.reason == "None of the provided values met the similarity threshold"
