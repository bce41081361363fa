"""AgentClash's ``bleu_score``, ``rouge_score`` and ``chrf_score`` as evaluator types.

bench's ``bleu``/``rouge``/``chrf`` are sacrebleu's and rouge-score's; these compute AgentClash's
own values with AgentClash's keys, so a pack's verdicts stay AgentClash's.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from bench import Result
from bench_nlp_metrics import agentclash
from bench_nlp_metrics.metrics import CorpusMetric, ReferenceConfig


class GenerationConfig(ReferenceConfig):
    """Keys every AgentClash text metric has."""

    case_insensitive: bool = False
    """Compare case-folded text."""
    normalize: bool = False
    """Trim the text and collapse its whitespace first."""


class BleuScoreConfig(GenerationConfig):
    """Settings of bleu_score."""

    max_ngram: int = Field(default=4, gt=0)
    """The longest n-gram counted (fewer when the response is shorter)."""
    smoothing: Literal["none", "method1"] = "none"
    """``method1``: an n-gram order (above 1) with no match counts 1/(total+1) instead of 0."""


class RougeScoreConfig(GenerationConfig):
    """Settings of rouge_score."""

    variant: Literal["rouge-1", "rouge-2", "rouge-l"] = "rouge-l"
    """Unigrams, bigrams or the longest common subsequence of whitespace tokens."""
    rouge_type: Literal["rouge1", "rouge2", "rougeL"] | None = None
    """bench's spelling of ``variant`` (``rougeL`` is ``rouge-l``)."""
    beta: float = Field(default=1.0, gt=0)
    """Recall's weight in the F score."""

    @model_validator(mode="after")
    def _spelling(self) -> RougeScoreConfig:
        if self.rouge_type is not None:
            variants: dict[str, Literal["rouge-1", "rouge-2", "rouge-l"]] = {
                "rouge1": "rouge-1",
                "rouge2": "rouge-2",
                "rougeL": "rouge-l",
            }
            self.variant = variants[self.rouge_type]
        return self


class ChrfScoreConfig(GenerationConfig):
    """Settings of chrf_score."""

    char_order: int = Field(default=6, gt=0)
    """The longest character n-gram (fewer when a text is shorter)."""
    beta: float = Field(default=2.0, gt=0)
    """Recall's weight in the F score."""


class _Generation(CorpusMetric):
    def verdict(self, hypothesis: str, refs: list[str], score: float, details: dict[str, Any]) -> Result:
        result = super().verdict(hypothesis, refs, score, details)
        result.passed = (result.score or 0.0) >= agentclash.DEFAULT_THRESHOLD
        return result

    def texts(self, hypothesis: str, refs: list[str]) -> tuple[str, list[str]]:
        c = self.config
        return agentclash.generation_text(hypothesis, c.case_insensitive, c.normalize), [
            agentclash.generation_text(r, c.case_insensitive, c.normalize) for r in refs
        ]


class BleuScore(_Generation):
    """AgentClash's BLEU: whitespace tokens, clipped n-gram precisions, brevity penalty; passes at 0.3."""

    name = "bleu_score"
    Config = BleuScoreConfig
    example = """
    name: bleu-score-example
    tasks:
      - id: translation
        response: "the cat sits on the mat"
        evaluate:
          type: bleu_score
          reference: ["a dog runs outside", "the cat sits on the mat"]
          smoothing: method1
    """

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        hyp, texts = self.texts(hypothesis, refs)
        value = agentclash.bleu(
            hyp.split(), [t.split() for t in texts], self.config.max_ngram, self.config.smoothing
        )
        return value, {"smoothing": self.config.smoothing, "max_ngram": self.config.max_ngram}


class RougeScore(_Generation):
    """AgentClash's ROUGE-1/2/L over whitespace tokens (no stemming); best reference; passes at 0.3."""

    name = "rouge_score"
    Config = RougeScoreConfig
    example = """
    name: rouge-score-example
    tasks:
      - id: summary
        response: "the cat sat on the mat"
        evaluate: {type: rouge_score, reference: "the cat slept on the rug", variant: rouge-l, threshold: 0.4}
    """

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        c = self.config
        hyp, texts = self.texts(hypothesis, refs)
        p, r, f = max(
            (agentclash.rouge(hyp.split(), t.split(), c.variant, c.beta) for t in texts), key=lambda x: x[2]
        )
        return f, {"variant": c.variant, "precision": round(p, 6), "recall": round(r, 6)}


class ChrfScore(_Generation):
    """AgentClash's chrF: character n-grams without spaces, F(beta); best reference; passes at 0.3."""

    name = "chrf_score"
    Config = ChrfScoreConfig
    example = """
    name: chrf-score-example
    tasks:
      - id: word
        response: "kitten"
        evaluate: {type: chrf_score, reference: "kitten", char_order: 4}
    """

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        c = self.config
        hyp, texts = self.texts(hypothesis, refs)
        return max(agentclash.chrf(hyp, t, c.char_order, c.beta) for t in texts), {"char_order": c.char_order}
