"""promptfoo's classifier: a Hugging Face text-classification model (``config.apiEndpoint``, else
Hugging Face's hosted API) asked as promptfoo's provider asks it, or a Python provider's
``call_classification_api``. The conformance case ``classifier`` compares both with promptfoo."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_hf import FakeHuggingFace

from bench.testing import run_evaluator, run_suite
from bench_formats.promptfoo.checks import classifier
from bench_formats.promptfoo.render import set_config_env

MODEL = "huggingface:text-classification:facebook/roberta-hate-speech-dynabench-r4-target"


@pytest.fixture
def served() -> Iterator[FakeHuggingFace]:
    """A local text-classification endpoint answering Hugging Face's shape to every text."""
    answer = [[{"label": "nothate", "score": 0.9}, {"label": "hate", "score": 0.1}]]
    with FakeHuggingFace([{"match": "", "answer": answer}]) as server:
        yield server


@pytest.fixture
def env_now() -> Iterator[None]:
    """After the test, templates see the environment as later tests set it (a test calls
    ``set_config_env`` after setting a variable, as loading a config does)."""
    yield
    set_config_env({})


def check(assertion: dict[str, Any], url: str | None) -> Any:
    provider: dict[str, Any] = {"id": MODEL}
    if url is not None:
        provider["config"] = {"apiEndpoint": url}
    return run_evaluator(
        {"type": "promptfoo", "assert": [{**assertion, "provider": provider}]}, "Hello there"
    )


def test_classifier_asks_the_served_model_as_promptfoo_does(served, monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf-test")
    out = check({"type": "classifier", "value": "nothate", "threshold": 0.5}, served.url + "/classify")
    assert (out.passed, out.score, out.reason) == (True, 0.9, "All assertions passed")
    # JSON.stringify's bytes, as promptfoo sends them
    assert served.requests == [("/classify", b'{"inputs":"Hello there","parameters":{}}', "Bearer hf-test")]
    detail = out.details["assertions"][0]
    assert detail["reason"] == "Classification nothate has score 0.90 >= 0.5"


@pytest.mark.parametrize(
    ("assertion", "passed", "score", "reason"),
    [
        (
            {"type": "classifier", "value": "hate", "threshold": 0.5},
            False,
            0.1,
            "Classification hate has score 0.10 < 0.5",
        ),
        ({"type": "classifier"}, False, 0.9, "Maximum classification score 0.90 < 1"),
        ({"type": "classifier", "threshold": 0.8}, True, 0.9, "Maximum classification score 0.90 >= 0.8"),
        (
            {"type": "classifier", "value": "other", "threshold": 0},
            True,
            0.0,
            "Classification other has score 0.00 >= 0",
        ),
        (
            {"type": "not-classifier", "value": "hate", "threshold": 0.5},
            True,
            0.9,
            "Classification hate has score 0.10 < 0.5",
        ),
    ],
)
def test_classifier_scores_as_promptfoos_matches_classification(
    served, assertion, passed, score, reason
) -> None:
    out = check(assertion, served.url)
    detail = out.details["assertions"][0]
    assert (detail["pass"], round(detail["score"], 6), detail["reason"]) == (passed, score, reason)


def test_an_error_answer_fails_the_check_as_promptfoo_does(served) -> None:
    served.rules[0]["answer"] = {"error": "Model is loading"}
    out = check({"type": "classifier"}, served.url)
    assert (out.passed, out.details["assertions"][0]["reason"]) == (False, "API call error: Model is loading")


def test_classifier_without_an_endpoint_asks_hugging_faces_hosted_api(served, monkeypatch) -> None:
    """promptfoo's URL when config.apiEndpoint is unset: HF_INFERENCE_API_URL/models/MODEL."""
    monkeypatch.setattr(classifier, "HOSTED_URL", served.url + "/hf-inference")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_API_TOKEN", raising=False)
    out = check({"type": "classifier", "value": "nothate", "threshold": 0.5}, None)
    assert (out.error, out.passed) == (None, True)
    path = "/hf-inference/models/facebook/roberta-hate-speech-dynabench-r4-target"
    assert served.requests == [(path, b'{"inputs":"Hello there","parameters":{}}', None)]
    assert classifier.HOSTED_URL != "https://router.huggingface.co/hf-inference"  # patched, not called


def test_a_classifier_endpoint_that_is_no_http_url_is_refused() -> None:
    out = check({"type": "classifier"}, "file:///etc/passwd")
    assert out.error == "classifier: config.apiEndpoint must be an http(s) URL, not 'file:///etc/passwd'"


def test_an_offline_run_skips_a_classifier_served_off_this_machine(tmp_path) -> None:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(
        "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: a}\n    assert:\n"
        "      - type: classifier\n"
        "        provider: {id: 'huggingface:text-classification:m', config: {apiEndpoint: 'http://hf.example/x'}}\n"
    )
    [row] = run_suite(path, runs_dir=tmp_path / "runs", offline=True).report.tasks()
    assert (row["status"], row["evaluators"][0]["error"]) == (
        "error",
        "offline: classifier needs huggingface/m",
    )


def test_an_offline_run_skips_hugging_faces_hosted_classifier(tmp_path) -> None:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(
        "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n  - vars: {q: a}\n    assert:\n"
        "      - {type: classifier, provider: 'huggingface:text-classification:org/m'}\n"
    )
    [row] = run_suite(path, runs_dir=tmp_path / "runs", offline=True).report.tasks()
    assert (row["status"], row["evaluators"][0]["error"]) == (
        "error",
        "offline: classifier needs huggingface/org/m",
    )


def python_classifier(tmp_path: Path, body: str) -> Any:
    """A classifier check whose provider is a script in ``tmp_path`` (run from there)."""
    (tmp_path / "classify.py").write_text(f"def call_classification_api(prompt, options):\n    {body}\n")
    config = {"type": "promptfoo", "assert": [{"type": "classifier", "provider": "file://classify.py"}]}
    return run_evaluator(config, "fine")


def test_call_classification_api_of_a_python_provider_decides_the_check(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    out = python_classifier(tmp_path, "return {'classification': {'ok': len(prompt) / 4}}")
    detail = out.details["assertions"][0]
    assert (detail["pass"], detail["score"], detail["reason"]) == (
        True,
        1.0,
        "Maximum classification score 1.00 >= 1",
    )


def test_a_python_classification_reply_without_a_classification_is_an_error_saying_so(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = python_classifier(tmp_path, "return {'labels': []}")
    assert out.error == (
        "classifier: the classification provider 'file://classify.py': The Python script "
        "`call_classification_api` function must return a dict with an own `classification` object or "
        '`error` string (inherited prototype properties are rejected), instead of {"labels":[]}'
    )


def test_an_assertion_providers_env_template_is_rendered_as_promptfoo_loads_it(monkeypatch, env_now) -> None:
    from bench_formats.promptfoo.config_env import render_env_only

    monkeypatch.setenv("HF_FAKE_URL", "http://127.0.0.1:1")
    monkeypatch.delenv("NOT_SET_HERE", raising=False)
    set_config_env({})
    provider = {
        "id": "x",
        "config": {"a": "{{ env.HF_FAKE_URL }}/m", "b": "{{ env.NOT_SET_HERE }}", "c": "{{q}}"},
    }
    assert render_env_only(provider) == {
        "id": "x",
        "config": {"a": "http://127.0.0.1:1/m", "b": "{{ env.NOT_SET_HERE }}", "c": "{{q}}"},
    }


def test_a_tests_classification_provider_gets_its_env_templates_rendered(
    served, monkeypatch, env_now
) -> None:
    monkeypatch.setenv("HF_FAKE_URL", served.url)
    set_config_env({})
    provider = {"id": MODEL, "config": {"apiEndpoint": "{{ env.HF_FAKE_URL }}/m"}}
    out = run_evaluator(
        {"type": "promptfoo", "assert": [{"type": "classifier"}], "options": {"provider": provider}}, "Hi"
    )
    assert (out.error, [path for path, _, _ in served.requests]) == (None, ["/m"])


def test_a_provider_that_cannot_classify_is_promptfoos_error() -> None:
    out = run_evaluator(
        {"type": "promptfoo", "assert": [{"type": "classifier", "provider": "openai:chat:gpt-4o-mini"}]}, "Hi"
    )
    assert out.error == (
        "classifier: Provider openai:chat:gpt-4o-mini is not a valid classification provider for "
        "'classification check' (bench asks huggingface:text-classification:MODEL, "
        "huggingface:token-classification:MODEL and Python file://x.py providers)"
    )


def test_token_classification_scores_each_entity_groups_highest(served, monkeypatch) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_API_TOKEN", raising=False)
    served.rules[0]["answer"] = [
        {"entity_group": "NAME", "score": 0.4},
        {"entity_group": "NAME", "score": 0.8},
        {"entity_group": "EMAIL", "score": 0.6},
    ]
    provider = {"id": "huggingface:token-classification:m", "config": {"apiEndpoint": served.url}}
    out = run_evaluator(
        {
            "type": "promptfoo",
            "assert": [{"type": "not-classifier", "threshold": 0.75, "provider": provider}],
        },
        "Hi",
    )
    detail = out.details["assertions"][0]
    assert (detail["pass"], round(detail["score"], 6), detail["reason"]) == (
        False,
        0.2,
        "Maximum classification score 0.80 >= 0.75",
    )
    body = b'{"inputs":"Hi","parameters":{"aggregation_strategy":"simple"},"options":{"use_cache":true,"wait_for_model":false}}'
    assert served.requests == [("/", body, None)]
