"""bleu and rouge score exactly as sacrebleu and rouge-score do on the same pairs, though bench
counts shared references once and remembers the words it stemmed (what makes 10,000 tasks run at
the speed of the libraries' own loop)."""

from __future__ import annotations

import pytest
import sacrebleu
from nltk.stem import porter
from rouge_score import rouge_scorer

from bench.testing import run_evaluator

REFERENCES = [
    "The capital of France is Paris.",
    "Returns are accepted within 30 days of purchase.",
    "Running dogs were jumping happily over the sleeping cats.",
]
#: The benchmark's pairs (a reference and its reworded response), and words stemmed differently.
PAIRS = [(f"{ref[:-1]}, as noted in item {i}.", ref) for i, ref in enumerate(REFERENCES * 2)] + [
    ("The runner runs; runners ran.", "A running run by the runners."),
    ("Generalizations generalize generally.", "General generalization."),
    ("", "Nothing was said."),
    ("Nothing was said.", ""),
    ("", ""),
    ("...", "!?"),
    # numbers (a number is its own stem), dots, commas and dashes beside digits (13a's rules)
    ("In 2024, 1,500.5 units sold in 12-3 days - 4.", "In 2023 1500 units were sold, in 12 days."),
    ("Item 10000 of 20000: 3.14-2.71=0.43", "item 10000: 3.14 - 2.71 = 0.43"),
    # unicode: accents, CJK, a line separator, tabs and newlines
    ("Caf\u00e9 cr\u00e8me, \u4e2d\u6587\u2028text\there.", "Le caf\u00e9 cr\u00e8me \u4e2d\u6587 text here"),
    ("line one\nline two\n\nline three", "line one\nline three"),
    ("A &amp; B &lt;skipped&gt; <skipped> end-\nof line", "A & B end of line"),
]
#: A response and several references (the best counts for ROUGE; BLEU takes them together).
MULTI = [
    ("The cat sat on the mat.", ["A cat was sitting on a mat.", "The cat sat on the mat!", "Dogs."]),
    ("Running runners ran 42 km.", ["", "Runners run 42 kilometres.", "running runners"]),
    ("", ["Something.", "Anything."]),
]


@pytest.mark.parametrize("rouge_type", ["rouge1", "rouge2", "rougeL", "rougeLsum"])
@pytest.mark.parametrize("stem", [True, False])
def test_rouge_scores_as_rouge_score_on_the_same_pairs(rouge_type: str, stem: bool):
    library = rouge_scorer.RougeScorer([rouge_type], use_stemmer=stem)
    for hypothesis, reference in PAIRS:
        expected = library.score(reference, hypothesis)[rouge_type]
        config = {"type": "rouge", "reference": reference, "rouge_type": rouge_type, "use_stemmer": stem}
        outcome = run_evaluator(config, hypothesis)
        assert outcome.score == expected.fmeasure, (hypothesis, reference)
        assert outcome.details[rouge_type] == {
            "precision": round(expected.precision, 6),
            "recall": round(expected.recall, 6),
            "fmeasure": round(expected.fmeasure, 6),
        }


def test_bleu_scores_as_sacrebleu_on_the_same_pairs():
    for hypothesis, reference in PAIRS:
        expected = sacrebleu.sentence_bleu(hypothesis, [reference])
        outcome = run_evaluator({"type": "bleu", "reference": reference}, hypothesis)
        assert outcome.score == min(1.0, expected.score / 100), (hypothesis, reference)
        assert outcome.details["bleu"] == round(expected.score, 4)


@pytest.fixture
def stemmed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The words rouge-score's Porter stemmer is asked to stem from now on."""
    words: list[str] = []
    step = porter.PorterStemmer._step1a

    def counted(self: porter.PorterStemmer, word: str) -> str:
        words.append(word)
        return step(self, word)

    monkeypatch.setattr(porter.PorterStemmer, "_step1a", counted)
    return words


def test_rouge_stems_each_distinct_word_once(stemmed: list[str]):
    for i in range(3):  # words no other test uses: nothing stemmed before
        run_evaluator(
            {"type": "rouge", "reference": "quaffled zorblings"}, f"zorblings quaffled zorblings {i}"
        )
    assert sorted(stemmed) == ["quaffled", "zorblings"]


def test_rouge_tokenizes_a_shared_reference_once(monkeypatch: pytest.MonkeyPatch):
    from rouge_score import tokenize

    reference = "Plimbled vorts were snarfing."  # a text no other test scores: not seen before
    library = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    expected = [library.score(reference, f"vorts snarfing {i}")["rougeL"].fmeasure for i in range(3)]
    tokenized: list[str] = []
    real = tokenize.tokenize

    def counted(text: str, stemmer: object) -> list[str]:
        tokenized.append(text)
        return real(text, stemmer)

    monkeypatch.setattr(tokenize, "tokenize", counted)
    scores = [
        run_evaluator({"type": "rouge", "reference": reference}, f"vorts snarfing {i}").score
        for i in range(3)
    ]
    assert scores == expected
    assert tokenized.count(reference) == 1


@pytest.mark.parametrize("rouge_type", ["rouge1", "rougeL"])
def test_rouge_with_several_references_scores_as_rouge_scores_best(rouge_type: str):
    library = rouge_scorer.RougeScorer([rouge_type], use_stemmer=True)
    for hypothesis, refs in MULTI:
        best = max((library.score(r, hypothesis)[rouge_type] for r in refs), key=lambda s: s.fmeasure)
        outcome = run_evaluator({"type": "rouge", "reference": refs, "rouge_type": rouge_type}, hypothesis)
        assert outcome.score == best.fmeasure, (hypothesis, refs)


def test_bleu_with_several_references_scores_as_sacrebleu():
    for hypothesis, refs in MULTI:
        expected = sacrebleu.sentence_bleu(hypothesis, refs)
        outcome = run_evaluator({"type": "bleu", "reference": refs}, hypothesis)
        assert outcome.score == min(1.0, expected.score / 100), (hypothesis, refs)
        assert outcome.details["bp"] == round(expected.bp, 4)


def test_rouge_stems_no_number(stemmed: list[str]):
    reference, response = (
        "zwoggled 73519 blorfing",
        "zwoggled 86240 blorfing 2025",
    )  # words no other test uses
    expected = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True).score(reference, response)["rougeL"]
    stemmed.clear()  # what the library's own scorer stemmed
    outcome = run_evaluator({"type": "rouge", "reference": reference}, response)
    assert outcome.score == expected.fmeasure
    assert sorted(stemmed) == ["blorfing", "zwoggled"]
