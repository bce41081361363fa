"""bench's faster BLEU statistics, ROUGE-L subsequence and 13a regexp pass give what sacrebleu and
rouge-score give, on seeded random inputs built to hit their edge cases (repeated tokens, empty
and one-token texts, texts longer than a machine word of bits, digits beside dots and dashes)."""

from __future__ import annotations

import random

import pytest
from rouge_score import rouge_scorer
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

from bench.testing import run_evaluator
from bench_nlp_metrics import sentence_stats, tokenizer_13a
from bench_nlp_metrics.metrics import _sentence_bleu


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


def test_bleu_statistics_are_sacrebleus_segment_statistics():
    metric = BLEU(effective_order=True)
    texts = _token_lists(seed=3, count=300, vocabulary=4, longest=14)  # few words: n-grams repeat
    for i in range(0, 300, 3):
        hypothesis, refs = texts[i], [" ".join(t) for t in texts[i + 1 : i + 3]]
        counted = metric._extract_reference_info(refs)
        expected = metric._compute_segment_statistics(" ".join(hypothesis), counted)
        ref_len = metric._get_closest_ref_len(len(hypothesis), counted["ref_lens"])
        found = sentence_stats.bleu_statistics(hypothesis, counted["ref_ngrams"], ref_len, 4)
        assert found == expected, (hypothesis, refs)


#: Characters the 13a rules treat differently: digits, dots, commas and dashes side by side.
ALPHABET = "ab9 0.,-/&;:'\"()\t\n\u00e9\u4e2d\u2028$%"


def test_the_faster_regexp_pass_gives_sacrebleus_text():
    rng = random.Random(4)
    library, faster = TokenizerRegexp(), _sentence_bleu("13a", False, "exp").tokenizer._post_tokenizer
    lines = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 24))) for _ in range(3_000)]
    for line in [*lines, "", " ", "1.5, 2,5 3-4 a-b x.y, z . "]:
        assert faster(line) == library(line), repr(line)


def test_bleu_applies_no_template_of_sacrebleus_regexp_pass(monkeypatch: pytest.MonkeyPatch):
    """The 13a regexp pass is bench's (one translate and three substitutions), not sacrebleu's
    template expansion per match (a third of BLEU's time on one-line pairs)."""
    called: list[str] = []
    real = TokenizerRegexp.__call__

    def counted(self: TokenizerRegexp, line: str) -> str:
        called.append(line)
        return real(self, line)

    monkeypatch.setattr(TokenizerRegexp, "__call__", counted)
    outcome = run_evaluator({"type": "bleu", "reference": "Seen by no other test, 12-3."}, "No test, 12-3.")
    assert outcome.details["bleu"] > 0
    assert called == []


def test_other_tokenizers_and_changed_rules_keep_sacrebleus_pass():
    assert not tokenizer_13a.speed_up(BLEU(tokenize="intl").tokenizer)
    drifted = BLEU(tokenize="13a").tokenizer
    drifted._post_tokenizer._re = drifted._post_tokenizer._re[:3]  # a sacrebleu with other rules
    assert not tokenizer_13a.speed_up(drifted)
    assert type(drifted._post_tokenizer) is TokenizerRegexp
    assert tokenizer_13a.speed_up(BLEU(tokenize="13a").tokenizer)


@pytest.mark.parametrize(("words", "capped"), [(2_000, False), (2_001, True)])
def test_rouge_l_caps_one_letter_words_past_the_limit(words: int, capped: bool):
    # 2,001 one-letter words are 4,001 characters: the shortest text the word count must cut
    text = " ".join("ab"[i % 2] for i in range(words))
    outcome = run_evaluator({"type": "rouge", "reference": text}, text)
    assert ("capped" in outcome.details) is capped
    assert outcome.score == 1.0
