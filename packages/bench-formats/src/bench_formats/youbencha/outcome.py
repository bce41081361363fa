"""A youBencha evaluator that skipped: it does not fail the task, and says why and what it means."""

from __future__ import annotations

from bench import Evaluator, EvaluatorConfig, Result, Sample

#: The overall youBencha outcome of a test case with a skipped evaluator and no failed one.
PARTIAL_NOTE = "youBencha outcome: partial unless another evaluator failed"


class SkippedConfig(EvaluatorConfig):
    """Settings of youbencha-skipped."""

    evaluator: str
    """The youBencha evaluator that skipped."""
    reason: str
    """youBencha's message for the skip."""


class Skipped(Evaluator[SkippedConfig]):
    """A youBencha evaluator that youBencha would skip (status ``skipped``): passes with no score.

    youBencha's overall outcome is ``failed`` when any evaluator failed, ``passed`` when all
    passed, and otherwise ``partial``: bench's task passes, and this result's details say
    ``youbencha_status: skipped`` and ``youbencha_outcome: partial``.
    """

    name = "youbencha-skipped"
    Config = SkippedConfig
    example = """
    name: youbencha-skipped-example
    tasks:
      - id: lint
        response: "done"
        evaluate:
          - {type: youbencha-skipped, evaluator: lint, reason: "Unknown evaluator: lint"}
    """

    def evaluate(self, sample: Sample) -> Result:
        return skipped(self.config.evaluator, self.config.reason)


def skipped(evaluator: str, reason: str) -> Result:
    """The result of a skipped youBencha evaluator."""
    return Result(
        True,
        None,
        f"skipped: {reason} ({PARTIAL_NOTE})",
        {
            "youbencha_evaluator": evaluator,
            "youbencha_status": "skipped",
            "youbencha_outcome": "partial",
            "message": reason,
        },
    )
