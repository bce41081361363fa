"""promptfoo's ``classifier`` (``src/assertions/classifier.ts``, ``matchesClassification``): a
Hugging Face text-classification model's label scores for the output.

promptfoo asks its ``huggingface:text-classification:MODEL`` provider, which POSTs
``{"inputs": output, "parameters": {}}`` to Hugging Face's hosted Inference API
(``router.huggingface.co/hf-inference/models/MODEL``) unless the provider's ``config.apiEndpoint``
names another server. bench calls only such an endpoint, given explicitly (a model the user
serves, on this machine or theirs): the hosted API is remote, so without one the row is an error.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from bench import EvaluatorError
from bench.llm import offline_skip
from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Grade, js_string
from bench_formats.promptfoo.checks.grader import to_fixed

PREFIX = "huggingface:text-classification:"
#: How long the classification endpoint may take (promptfoo's default request timeout).
TIMEOUT_S = 300.0
_EPSILON = sys.float_info.epsilon
HOSTED = (
    "promptfoo asks Hugging Face's hosted Inference API for '{model}' (router.huggingface.co), which "
    "bench does not call; serve the model and give its URL as the provider's config.apiEndpoint"
)


def _provider(call: Call, options: dict[str, Any]) -> Any:
    """The classification provider: the assertion's ``provider``, else the test's."""
    chosen = call.assertion.get("provider") or options.get("provider")
    if isinstance(chosen, dict) and "classification" in chosen:
        chosen = chosen["classification"]
    return chosen


def endpoint(call: Call, options: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """(model, URL, provider config) of the check's classifier; EvaluatorError why bench does not call it."""
    chosen = _provider(call, options)
    pid = chosen if isinstance(chosen, str) else chosen.get("id") if isinstance(chosen, dict) else None
    if not isinstance(pid, str) or not pid.startswith(PREFIX):
        raise EvaluatorError(
            f"classifier: needs a {PREFIX}MODEL provider with config.apiEndpoint (got {pid or 'none'})"
        )
    config = chosen.get("config") if isinstance(chosen, dict) else None
    config = config if isinstance(config, dict) else {}
    model = pid.removeprefix(PREFIX)
    url = config.get("apiEndpoint")
    if not isinstance(url, str) or not url:
        raise EvaluatorError(f"classifier: did not run: {HOSTED.format(model=model)}")
    if urlsplit(url).scheme not in ("http", "https"):  # urllib would read file:// and others
        raise EvaluatorError(f"classifier: config.apiEndpoint must be an http(s) URL, not '{url}'")
    skipped = offline_skip("classifier", f"huggingface/{model}", url)
    if skipped is not None:
        raise EvaluatorError(skipped)
    return model, url, config


async def classifier(call: Call, options: dict[str, Any]) -> Grade:
    """The score of the label ``value`` names (else the highest) ≥ ``threshold`` (default 1)."""
    expected = call.value
    if expected is not None and not isinstance(expected, str):
        raise AssertionInvalid('"classifier" assertion type must have a string value or be undefined')
    _, url, config = endpoint(call, options)
    scores = await asyncio.to_thread(_classify, url, call.output, config)
    threshold = call.assertion.get("threshold")
    threshold = 1 if threshold is None else threshold
    grade = scores if isinstance(scores, Grade) else _grade(scores, expected, threshold)
    if call.inverse:
        return Grade(not grade.passed, 1 - grade.score, grade.reason)
    return grade


def _grade(scores: dict[str, float], expected: str | None, threshold: Any) -> Grade:
    if expected is None:
        if not scores:
            return Grade(False, 0.0, "No classification scores returned")
        score = max(scores.values())
        what = "Maximum classification score"
    else:
        score = scores.get(expected) or 0.0
        what = f"Classification {expected} has score"
    passed = score >= threshold - _EPSILON
    relation = ">=" if passed else "<"
    return Grade(passed, score, f"{what} {to_fixed(score, 2)} {relation} {js_string(threshold)}")


def _classify(url: str, text: str, config: dict[str, Any]) -> dict[str, float] | Grade:
    """The label scores, or promptfoo's failure (``API call error: ...``) when there are none."""
    token = config.get("apiKey") or os.environ.get("HF_TOKEN") or os.environ.get("HF_API_TOKEN")
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    body = json.dumps({"inputs": text, "parameters": {}}).encode()
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            data = json.loads(answer.read())
    except urllib.error.HTTPError as exc:  # its body may say why ({"error": ...}), as promptfoo reads it
        try:
            data = json.loads(exc.read())
        except ValueError:
            return Grade(False, 0.0, f"API call error: {exc}")
    except (OSError, ValueError) as exc:
        return Grade(False, 0.0, f"API call error: {exc}")
    if isinstance(data, dict) and data.get("error"):
        return Grade(False, 0.0, f"API call error: {data['error']}")
    if not isinstance(data, list) or not data or not isinstance(data[0], list):
        return Grade(False, 0.0, f"Malformed response data: {json.dumps(data)}")
    return {
        str(item.get("label")): float(item.get("score") or 0)
        for item in data[0]
        if isinstance(item, dict) and isinstance(item.get("score", 0), int | float)
    }
