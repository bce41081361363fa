"""promptfoo's ``classifier`` (``src/assertions/classifier.ts``, ``matchesClassification``): a
text-classification model's label scores for the output.

promptfoo asks the check's classification provider (the assertion's ``provider``, else the
test's ``options.provider``; ``{classification: ...}`` picks one out of a mapping):

- ``huggingface:text-classification:MODEL`` POSTs ``{"inputs": output, "parameters": {}}``
  (``Authorization: Bearer`` ``config.apiKey``, else ``HF_TOKEN``, else ``HF_API_TOKEN``) to
  ``config.apiEndpoint``, else Hugging Face's hosted Inference API
  (``https://router.huggingface.co/hf-inference/models/MODEL``; no setting moves it), and reads
  ``[[{label, score}, ...]]``. ``huggingface:token-classification:MODEL`` (entities, as for PII)
  POSTs ``{"inputs", "parameters": {"aggregation_strategy"}, "options": {"use_cache",
  "wait_for_model"}}`` the same way and reads ``[{entity_group, score}, ...]``: each group's
  highest score. An offline run skips both unless the endpoint is on loopback.
- a Python provider (``file://x.py[:fn]``) is asked through its ``call_classification_api``
  (python_embedding.py), which returns ``{classification: {label: score}}`` or ``{error}``.
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
from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Grade, js_string, js_stringify
from bench_formats.promptfoo.checks.grader import to_fixed
from bench_formats.promptfoo.config_env import render_env_only
from bench_formats.promptfoo.python_embedding import classify, python_provider

PREFIX = "huggingface:text-classification:"
TOKENS = "huggingface:token-classification:"
NOT_FOUND = (
    "classifier: No provider of type classification found for 'classification check' (give a "
    f"{PREFIX}MODEL, {TOKENS}MODEL or Python file://x.py provider)"
)
#: promptfoo's ``HF_INFERENCE_API_URL`` (src/providers/huggingface.ts): a constant, not a setting.
HOSTED_URL = "https://router.huggingface.co/hf-inference"
#: How long the classification endpoint may take (promptfoo's default request timeout).
TIMEOUT_S = 300.0
_EPSILON = sys.float_info.epsilon


def _provider(call: Call, options: dict[str, Any]) -> Any:
    """The classification provider: the assertion's ``provider``, else the test's (its env
    templates rendered, as promptfoo renders the whole config when it loads it)."""
    chosen = render_env_only(call.assertion.get("provider") or options.get("provider"))
    if isinstance(chosen, dict) and "classification" in chosen:
        chosen = chosen["classification"]
    return chosen


def endpoint(call: Call, options: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """(task prefix, URL, provider config) of the check's Hugging Face classifier; EvaluatorError
    why bench does not call it."""
    chosen = _provider(call, options)
    pid = chosen if isinstance(chosen, str) else chosen.get("id") if isinstance(chosen, dict) else None
    if not isinstance(pid, str) or not pid:
        raise EvaluatorError(NOT_FOUND)
    prefix = next((p for p in (PREFIX, TOKENS) if pid.startswith(p)), None)
    if prefix is None:  # promptfoo's getAndCheckProvider, for the providers bench asks
        raise EvaluatorError(
            f"classifier: Provider {pid} is not a valid classification provider for 'classification "
            f"check' (bench asks {PREFIX}MODEL, {TOKENS}MODEL and Python file://x.py providers)"
        )
    config = chosen.get("config") if isinstance(chosen, dict) else None
    config = config if isinstance(config, dict) else {}
    model = pid.removeprefix(prefix)
    url = config.get("apiEndpoint") or f"{HOSTED_URL}/models/{model}"
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
        # urllib would read file:// and others
        raise EvaluatorError(f"classifier: config.apiEndpoint must be an http(s) URL, not '{url}'")
    skipped = offline_skip("classifier", f"huggingface/{model}", url)
    if skipped is not None:
        raise EvaluatorError(skipped)
    return prefix, url, config


async def classifier(call: Call, options: dict[str, Any]) -> Grade:
    """The score of the label ``value`` names (else the highest) ≥ ``threshold`` (default 1)."""
    expected = call.value
    if expected is not None and not isinstance(expected, str):
        raise AssertionInvalid('"classifier" assertion type must have a string value or be undefined')
    scripted = python_provider(_provider(call, options), "classification")
    if scripted is not None:
        scores = _reply_scores(await classify(*scripted, call.output, call.folder))
    else:
        prefix, url, config = endpoint(call, options)
        read = _classify if prefix == PREFIX else _entities
        scores = await asyncio.to_thread(read, url, call.output, config)
    threshold = call.assertion.get("threshold")
    threshold = 1 if threshold is None else threshold
    grade = scores if isinstance(scores, Grade) else _grade(scores, expected, threshold)
    if call.inverse:
        return Grade(not grade.passed, 1 - grade.score, grade.reason)
    return grade


def _reply_scores(reply: dict[str, Any]) -> dict[str, Any] | Grade:
    """A provider's ``{classification}`` as label scores; ``fail(error || "Unknown error ...")``
    when it has none (promptfoo tests the classification for truth, so ``{}`` is one)."""
    found = reply.get("classification")
    if isinstance(found, list):  # JavaScript reads an array's items by index
        found = {str(index): value for index, value in enumerate(found)}
    if not isinstance(found, dict) and not found:
        error = reply.get("error")
        return Grade(False, 0.0, js_string(error) if error else "Unknown error fetching classification")
    return found if isinstance(found, dict) else {}


def _grade(scores: dict[str, Any], expected: str | None, threshold: Any) -> Grade:
    numbers = {label: float(v) for label, v in scores.items() if _number(v)}
    if expected is None:
        if not scores:
            return Grade(False, 0.0, "No classification scores returned")
        score = max(numbers.values(), default=0.0)
        what = "Maximum classification score"
    else:
        score = numbers.get(expected) or 0.0
        what = f"Classification {expected} has score"
    passed = score >= threshold - _EPSILON
    relation = ">=" if passed else "<"
    return Grade(passed, score, f"{what} {to_fixed(score, 2)} {relation} {js_string(threshold)}")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _classify(url: str, text: str, config: dict[str, Any]) -> dict[str, Any] | Grade:
    """``HuggingfaceTextClassificationProvider``: the label scores, or promptfoo's failure."""
    data = _post(url, {"inputs": text, "parameters": {}}, config)
    if isinstance(data, Grade):
        return data
    if isinstance(data, dict) and data.get("error"):
        return Grade(False, 0.0, f"API call error: {js_string(data['error'])}")
    if not isinstance(data, list) or not data or not isinstance(data[0], list):
        return Grade(False, 0.0, f"Malformed response data: {js_string(data)}")
    return {
        js_string(item.get("label")) if "label" in item else "undefined": item.get("score")
        for item in data[0]
        if isinstance(item, dict)
    }


def _entities(url: str, text: str, config: dict[str, Any]) -> dict[str, Any] | Grade:
    """``HuggingfaceTokenExtractionProvider``: each entity group's highest score, or the failure."""
    use_cache = config.get("use_cache", True)  # null stays null, as in promptfoo
    body = {
        "inputs": text,
        "parameters": {"aggregation_strategy": config.get("aggregation_strategy") or "simple"},
        "options": {"use_cache": use_cache, "wait_for_model": config.get("wait_for_model") or False},
    }
    data = _post(url, body, config)
    if isinstance(data, Grade):
        return data
    if isinstance(data, dict) and "error" in data:
        return Grade(False, 0.0, f"API call error: {js_string(data['error'])}")
    if not isinstance(data, list):
        return Grade(False, 0.0, f"Malformed response data: {js_string(data)}")
    groups: dict[str, Any] = {}
    for item in data:
        if not isinstance(item, dict):
            continue
        group, score = js_string(item.get("entity_group", "undefined")), item.get("score")
        if not groups.get(group) or (_number(score) and groups[group] < score):
            groups[group] = score
    return groups


def _post(url: str, body: dict[str, Any], config: dict[str, Any]) -> Any:
    """The endpoint's JSON answer (an error status's too), or promptfoo's ``API call error``."""
    token = config.get("apiKey") or os.environ.get("HF_TOKEN") or os.environ.get("HF_API_TOKEN")
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    sent = js_stringify(body).encode()  # the bytes JSON.stringify writes
    request = urllib.request.Request(url, data=sent, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:  # its body may say why ({"error": ...}), as promptfoo reads it
        try:
            return json.loads(exc.read())
        except ValueError:
            return Grade(False, 0.0, f"API call error: {exc}")
    except (OSError, ValueError) as exc:
        return Grade(False, 0.0, f"API call error: {exc}")
