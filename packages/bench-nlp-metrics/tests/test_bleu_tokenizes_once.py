"""A bleu task tokenizes its texts once: the sentence score and the corpus statistics come from
the same n-gram counts (twice, with a new sacrebleu metric object per task, was most of the
overhead over calling sacrebleu directly)."""

from __future__ import annotations

import pytest
import sacrebleu
from sacrebleu.metrics.bleu import BLEU

from bench.testing import run_evaluator

PAIRS = [
    ("The dog bit the man.", ["The dog bit the man.", "The dog had bit the man."]),
    ("It was not unexpected.", ["No one was surprised."]),
    ("the man bit him first", ["The man had bitten the dog."]),
]


def test_bleu_extracts_each_tasks_statistics_once(monkeypatch: pytest.MonkeyPatch):
    calls = []
    extract = BLEU._extract_corpus_statistics

    def counted(self: BLEU, *args: object) -> object:
        calls.append(1)
        return extract(self, *args)

    monkeypatch.setattr(BLEU, "_extract_corpus_statistics", counted)
    for hypothesis, refs in PAIRS:
        run_evaluator({"type": "bleu", "reference": refs, "smooth_method": "floor"}, hypothesis)
    assert len(calls) == len(PAIRS)


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_bleu_scores_as_sacrebleus_sentence_bleu(smooth: str):
    for hypothesis, refs in PAIRS:
        outcome = run_evaluator({"type": "bleu", "reference": refs, "smooth_method": smooth}, hypothesis)
        expected = sacrebleu.sentence_bleu(hypothesis, refs, smooth_method=smooth)
        assert outcome.details["bleu"] == round(expected.score, 4)
        assert outcome.details["bp"] == round(expected.bp, 4)
        assert outcome.score == min(1.0, expected.score / 100)
