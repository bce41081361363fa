"""promptfoo's classifier: a Hugging Face text-classification model the user serves
(``config.apiEndpoint``), asked as promptfoo's provider asks it; Hugging Face's hosted API is not."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bench.testing import run_evaluator

MODEL = "huggingface:text-classification:facebook/roberta-hate-speech-dynabench-r4-target"


@pytest.fixture
def served() -> Iterator[dict[str, Any]]:
    """A local text-classification endpoint answering Hugging Face's shape; ``requests`` are kept."""
    state: dict[str, Any] = {
        "answer": [[{"label": "nothate", "score": 0.9}, {"label": "hate", "score": 0.1}]]
    }
    state["requests"] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state["requests"].append((json.loads(body), self.headers.get("Authorization")))
            data = json.dumps(state["answer"]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}/classify"
    yield state
    server.shutdown()
    server.server_close()


def check(assertion: dict[str, Any], url: str | None) -> Any:
    provider: dict[str, Any] = {"id": MODEL}
    if url is not None:
        provider["config"] = {"apiEndpoint": url}
    return run_evaluator(
        {"type": "promptfoo", "assert": [{**assertion, "provider": provider}]}, "Hello there"
    )


def test_classifier_asks_the_served_model_as_promptfoo_does(served, monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf-test")
    out = check({"type": "classifier", "value": "nothate", "threshold": 0.5}, served["url"])
    assert (out.passed, out.score, out.reason) == (True, 0.9, "All assertions passed")
    assert served["requests"] == [({"inputs": "Hello there", "parameters": {}}, "Bearer hf-test")]
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
    out = check(assertion, served["url"])
    detail = out.details["assertions"][0]
    assert (detail["pass"], round(detail["score"], 6), detail["reason"]) == (passed, score, reason)


def test_an_error_answer_fails_the_check_as_promptfoo_does(served) -> None:
    served["answer"] = {"error": "Model is loading"}
    out = check({"type": "classifier"}, served["url"])
    assert (out.passed, out.details["assertions"][0]["reason"]) == (False, "API call error: Model is loading")


def test_classifier_without_a_served_model_is_an_error_saying_why() -> None:
    out = check({"type": "classifier"}, None)
    assert out.error == (
        "classifier: did not run: promptfoo asks Hugging Face's hosted Inference API for "
        "'facebook/roberta-hate-speech-dynabench-r4-target' (router.huggingface.co), which bench does not "
        "call; serve the model and give its URL as the provider's config.apiEndpoint"
    )


def test_a_classifier_endpoint_that_is_no_http_url_is_refused() -> None:
    out = check({"type": "classifier"}, "file:///etc/passwd")
    assert out.error == "classifier: config.apiEndpoint must be an http(s) URL, not 'file:///etc/passwd'"


def test_an_offline_run_skips_a_classifier_served_off_this_machine(tmp_path) -> None:
    from bench.testing import run_suite

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
