"""Registers bench-nlp-metrics' evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl
from bench_nlp_metrics.generation import BleuScore, ChrfScore, RougeScore
from bench_nlp_metrics.metrics import Bleu, Chrf, Rouge, SquadExactMatch, Ter, TokenF1
from bench_nlp_metrics.similarity import Similarity


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for evaluator in (
        Bleu,
        Chrf,
        Ter,
        Rouge,
        TokenF1,
        SquadExactMatch,
        Similarity,
        BleuScore,
        RougeScore,
        ChrfScore,
    ):
        register(evaluator)
