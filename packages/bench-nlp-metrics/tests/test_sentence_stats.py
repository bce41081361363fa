"""bench's faster ROUGE-L subsequence gives what rouge-score gives, on seeded random inputs built
to hit its edge cases (repeated tokens, empty and one-token texts, texts longer than a machine
word of bits)."""

from __future__ import annotations

import random

from rouge_score import rouge_scorer

from bench_nlp_metrics import sentence_stats


def _token_lists(seed: int, count: int, vocabulary: int, longest: int) -> list[list[str]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocabulary)]
    return [[rng.choice(words) for _ in range(rng.randint(0, longest))] for _ in range(count)]


def test_lcs_length_is_rouge_scores_table_corner():
    texts = _token_lists(seed=1, count=400, vocabulary=6, longest=90)  # past 64 tokens: big ints
    for first, second in zip(texts[::2], texts[1::2], strict=True):
        expected = rouge_scorer._lcs_table(first, second)[-1][-1]
        assert sentence_stats.lcs_length(first, second) == expected, (first, second)
        assert sentence_stats.lcs_length(second, first) == expected


def test_rouge_l_is_rouge_scores_score_lcs():
    texts = [*_token_lists(seed=2, count=200, vocabulary=5, longest=12), [], ["w1"], ["w1"], []]
    for target, prediction in zip(texts[::2], texts[1::2], strict=True):
        assert sentence_stats.rouge_l(target, prediction) == rouge_scorer._score_lcs(target, prediction)
