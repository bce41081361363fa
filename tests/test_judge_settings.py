"""Every judge of every package is built on the one judge base: one model or a panel, checked alike."""

from __future__ import annotations

import pytest

from bench.testing import run_evaluator
from bench.vocabulary.errors import BenchError


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"type": "faithfulness", "context": "c"},
            "<test>: Value error, model is required: a judge has no default model (got {'context': 'c'}) "
            "[evaluator 'faithfulness' from bench-rag]",
        ),
        (
            {"type": "bias", "model": "openai/a", "models": ["openai/b"]},
            "<test>: Value error, give model or models (a panel), not both "
            "(got {'model': 'openai/a', 'models': ['openai/b']}) [evaluator 'bias' from bench-safety]",
        ),
        (
            {"type": "llm_judge", "criteria": "x", "models": ["openai/a", " "]},
            "<test>: Value error, the judge model is empty (got {'criteria': 'x', 'models': ['openai/a', ' ']}) "
            "[evaluator 'llm_judge' from bench-llm-judge]",
        ),
    ],
)
def test_every_judge_takes_one_model_or_a_panel(settings, message):
    with pytest.raises(BenchError) as raised:
        run_evaluator(settings, "x")
    assert str(raised.value) == message
