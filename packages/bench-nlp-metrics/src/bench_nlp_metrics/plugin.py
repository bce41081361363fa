"""Registers bench-nlp-metrics' evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench import hookimpl
from bench_nlp_metrics.metrics import Bleu, Chrf, Rouge, SquadExactMatch, Ter, TokenF1
from bench_nlp_metrics.similarity import Similarity


@hookimpl
def bench_register_evaluators(register: Callable[[Any], None]) -> None:
    for evaluator in (Bleu, Chrf, Ter, Rouge, TokenF1, SquadExactMatch, Similarity):
        register(evaluator)
