"""A bleu task tokenizes its texts once: the sentence score and the corpus statistics come from
the same n-gram counts (twice, with a new sacrebleu metric object per task, was most of the
overhead over calling sacrebleu directly), and tasks that share references count their n-grams
once."""

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


def test_bleu_tokenizes_each_hypothesis_once_and_shared_references_once(monkeypatch: pytest.MonkeyPatch):
    tokenized: list[str] = []
    preprocess = BLEU._preprocess_segment

    def counted(self: BLEU, sent: str) -> str:
        tokenized.append(sent)
        return preprocess(self, sent)

    monkeypatch.setattr(BLEU, "_preprocess_segment", counted)
    reference = "A reference only this test uses, shared by three tasks."
    hypotheses = [f"A hypothesis of task {i}, scored against the shared reference." for i in range(3)]
    for hypothesis in hypotheses:
        run_evaluator({"type": "bleu", "reference": reference, "smooth_method": "floor"}, hypothesis)
    assert sorted(tokenized) == sorted([*hypotheses, reference])


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
def test_bleu_scores_as_sacrebleus_sentence_bleu(smooth: str):
    for hypothesis, refs in PAIRS:
        outcome = run_evaluator({"type": "bleu", "reference": refs, "smooth_method": smooth}, hypothesis)
        expected = sacrebleu.sentence_bleu(hypothesis, refs, smooth_method=smooth)
        assert outcome.details["bleu"] == round(expected.score, 4)
        assert outcome.details["bp"] == round(expected.bp, 4)
        assert outcome.score == min(1.0, expected.score / 100)
