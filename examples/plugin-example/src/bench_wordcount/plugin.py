"""The word_count evaluator: is the response's length within bounds?"""

from __future__ import annotations

from pydantic import model_validator

import bench


class WordCountConfig(bench.EvaluatorConfig):
    """Settings of word_count."""

    min_words: int = 0
    """Fewest words allowed."""
    max_words: int | None = None
    """Most words allowed (no limit when unset)."""

    @model_validator(mode="after")
    def _bounds(self) -> WordCountConfig:
        if self.max_words is not None and self.max_words < self.min_words:
            raise ValueError("max_words is smaller than min_words")
        return self


class WordCount(bench.Evaluator[WordCountConfig]):
    """Passes when the response has between min_words and max_words words."""

    name = "word_count"
    aliases = ("words",)
    Config = WordCountConfig
    example = """
    name: word-count-example
    tasks:
      - id: short
        response: "Paris is the capital of France."
        evaluate: {type: word_count, min_words: 3, max_words: 10}
    """

    def evaluate(self, sample: bench.Sample) -> bench.Result:
        words = len(sample.output.split())
        low, high = self.config.min_words, self.config.max_words
        passed = words >= low and (high is None or words <= high)
        bounds = f"{low}..{high if high is not None else '∞'}"
        return bench.Result(
            passed=passed, reason=f"{words} words (allowed {bounds})", details={"words": words}
        )


@bench.hookimpl
def bench_register_evaluators(register: bench.RegisterEvaluator) -> None:
    register(WordCount)
