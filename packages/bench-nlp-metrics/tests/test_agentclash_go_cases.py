"""AgentClash's own Go tests (runtime/scoring, 439e20b) for token_f1, bleu_score, rouge_score, chrf_score.

Each case id names the Go test and subtest it comes from; expected values are the Go test's.
"""

from __future__ import annotations

import pytest

from bench import BenchError
from bench.testing import run_evaluator

F1 = [  # (response, reference, config, passed, score): arithmetic in the Go test's comments
    (
        "TestValidateTokenF1/exact_match_scores_one",
        "eiffel tower in paris",
        "eiffel tower in paris",
        {},
        True,
        1.0,
    ),
    # P=2/2, R=2/3 -> F1 = 0.8 < 0.9
    (
        "TestValidateTokenF1/partial_overlap",
        "eiffel tower",
        "eiffel tower paris",
        {"threshold": 0.9},
        False,
        0.8,
    ),
    # bag overlap 1: P=1/3, R=1/2 -> F1 = 0.4 < 0.5
    (
        "TestValidateTokenF1/duplicate_tokens",
        "paris paris paris",
        "paris tower",
        {"threshold": 0.5},
        False,
        0.4,
    ),
    ("TestValidateTokenF1/no_overlap_scores_zero", "louvre museum", "eiffel tower", {}, False, 0.0),
    (
        "TestValidateTokenF1/normalization_removes_articles_and_punctuation",
        "The Eiffel Tower!",
        "eiffel tower",
        {"threshold": 1.0, "normalize": True, "remove_articles": True, "remove_punctuation": True},
        True,
        1.0,
    ),
    ("TestValidateTokenF1/empty_prediction_scores_zero", "", "eiffel tower", {}, False, 0.0),
    ("TestValidateTokenF1/both_empty_scores_one", "", "", {}, True, 1.0),
]


@pytest.mark.parametrize(
    ("case", "response", "reference", "config", "passed", "score"), F1, ids=[c[0] for c in F1]
)
def test_token_f1(case, response, reference, config, passed, score):
    outcome = run_evaluator({"type": "token_f1", "reference": reference, **config}, response)
    assert (outcome.passed, round(outcome.score, 3)) == (passed, score), outcome.reason


def test_token_f1_agentclash_keys_apply_only_the_steps_asked_for():
    # normalize: false and no other step: case and punctuation count (AgentClash's default pipeline is empty)
    outcome = run_evaluator(
        {"type": "token_f1", "reference": "eiffel tower", "normalize": False}, "The Eiffel Tower!"
    )
    assert outcome.score == 0.0


def test_token_f1_threshold_range_TestLoadEvaluationSpecRejectsInvalidTokenF1Config():
    # AgentClash: "evaluation_spec.validators[0].config.threshold must be between 0 and 1"
    with pytest.raises(BenchError) as caught:
        run_evaluator({"type": "token_f1", "reference": "a", "threshold": 1.5}, "a")
    assert (
        str(caught.value)
        == "<test>: threshold: Input should be less than or equal to 1 (got 1.5); allowed: 0 to 1"
    )


BLEU = [  # (case, response, reference(s), config, passed, low, high)
    (
        "TestValidateBLEUScore/exact_match_scores_one",
        "the cat is on the mat",
        "the cat is on the mat",
        {},
        True,
        1,
        1,
    ),
    (
        "TestValidateBLEUScore/no_overlap_scores_near_zero",
        "alpha beta gamma",
        "delta epsilon zeta",
        {},
        False,
        0,
        0,
    ),
    (
        "TestValidateBLEUScore/method1_does_not_smooth_unigram_zero_overlap",
        "alpha beta gamma",
        "delta epsilon zeta",
        {"smoothing": "method1"},
        False,
        0,
        0,
    ),
    # candidate 2 tokens, orders 2: p1 = 1, p2 = 1; BP = exp(1 - 6/2) = 0.135
    (
        "TestValidateBLEUScore/brevity_penalty_reduces_score",
        "the cat",
        "the cat is on the mat",
        {"threshold": 0.05, "smoothing": "method1"},
        True,
        0.05,
        0.5,
    ),
    (
        "TestValidateBLEUScore/multi_reference_uses_best_reference",
        "the cat sits on the mat",
        ["a dog runs outside", "the cat sits on the mat"],
        {},
        True,
        1,
        1,
    ),
    (
        "TestValidateBLEUScore/threshold_can_fail_partial_match",
        "the cat is here",
        "the dog is there",
        {"threshold": 0.7, "smoothing": "method1"},
        False,
        0,
        0.7,
    ),
]


@pytest.mark.parametrize(
    ("case", "response", "ref", "config", "passed", "low", "high"), BLEU, ids=[c[0] for c in BLEU]
)
def test_bleu_score(case, response, ref, config, passed, low, high):
    outcome = run_evaluator({"type": "bleu_score", "reference": ref, **config}, response)
    assert outcome.passed is passed, outcome.reason
    assert low <= outcome.score <= high


ROUGE = [
    (
        "TestValidateROUGEScore/rouge_1_exact_match",
        "the cat sat on the mat",
        "the cat sat on the mat",
        "rouge-1",
        {},
        1,
        1,
    ),
    (
        "TestValidateROUGEScore/rouge_2_low_overlap",
        "alpha beta gamma",
        "alpha zeta theta",
        "rouge-2",
        {},
        0,
        0.4,
    ),
    # LCS "the cat on the" = 4 of 6 both ways: F1 = 0.667
    (
        "TestValidateROUGEScore/rouge_l_partial_sequence_match",
        "the cat sat on the mat",
        "the cat slept on the rug",
        "rouge-l",
        {"threshold": 0.4},
        0.4,
        0.8,
    ),
]


@pytest.mark.parametrize(
    ("case", "response", "ref", "variant", "config", "low", "high"), ROUGE, ids=[c[0] for c in ROUGE]
)
def test_rouge_score(case, response, ref, variant, config, low, high):
    outcome = run_evaluator({"type": "rouge_score", "reference": ref, "variant": variant, **config}, response)
    assert low <= outcome.score <= high, outcome.reason


CHRF = [
    ("TestValidateChrFScore/exact_match_scores_one", "kitten", "kitten", 1, 1),
    ("TestValidateChrFScore/unicode_text_supported", "こんにちは世界", "こんにちは世界", 1, 1),
    ("TestValidateChrFScore/low_overlap_scores_low", "abcdef", "uvwxyz", 0, 0.05),
    ("TestValidateChrFScore/short_inputs_do_not_inflate_missing_orders", "ab", "cd", 0, 0),
]


@pytest.mark.parametrize(("case", "response", "ref", "low", "high"), CHRF, ids=[c[0] for c in CHRF])
def test_chrf_score(case, response, ref, low, high):
    outcome = run_evaluator({"type": "chrf_score", "reference": ref}, response)
    assert low <= outcome.score <= high, outcome.reason


REFUSED = [  # TestLoadEvaluationSpecRejectsInvalidGenerationMetricConfig: each key refused at load
    ("bleu_score", {"max_ngram": 0}, "max_ngram: Input should be greater than 0 (got 0)"),
    ("bleu_score", {"smoothing": "bogus"}, "smoothing: Input should be 'none' or 'method1' (got 'bogus')"),
    (
        "rouge_score",
        {"variant": "rouge-x"},
        "variant: Input should be 'rouge-1', 'rouge-2' or 'rouge-l' (got 'rouge-x')",
    ),
    ("rouge_score", {"beta": 0}, "beta: Input should be greater than 0 (got 0)"),
    ("chrf_score", {"char_order": 0}, "char_order: Input should be greater than 0 (got 0)"),
    ("chrf_score", {"beta": -1}, "beta: Input should be greater than 0 (got -1)"),
]


@pytest.mark.parametrize(
    ("kind", "config", "message"), REFUSED, ids=[f"{k}-{next(iter(c))}" for k, c, _ in REFUSED]
)
def test_invalid_generation_config_TestLoadEvaluationSpecRejectsInvalidGenerationMetricConfig(
    kind, config, message
):
    with pytest.raises(BenchError) as caught:
        run_evaluator({"type": kind, "reference": "hello", **config}, "hello")
    assert str(caught.value).startswith(f"<test>: {message}")


def test_agentclash_keys_accepted_TestLoadEvaluationSpecAcceptsGenerationMetricValidators():
    for kind, config in (
        ("bleu_score", {"max_ngram": 4, "smoothing": "method1", "threshold": 0.2}),
        ("rouge_score", {"variant": "rouge-l", "threshold": 0.3}),
        ("chrf_score", {"char_order": 4, "threshold": 0.4}),
        (
            "token_f1",
            {"threshold": 0.5, "normalize": True, "remove_articles": True, "remove_punctuation": True},
        ),
    ):
        assert run_evaluator({"type": kind, "reference": "hello world", **config}, "hello world").passed
