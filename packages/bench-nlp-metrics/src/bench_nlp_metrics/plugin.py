"""Registers bench-nlp-metrics' evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl

# Registered by name and import path: a class is imported when a suite first uses it,
# so bench's start-up does not import every class of the plugin.
EVALUATORS = {
    "bleu": "bench_nlp_metrics.metrics:Bleu",
    "chrf": "bench_nlp_metrics.metrics:Chrf",
    "ter": "bench_nlp_metrics.metrics:Ter",
    "rouge": "bench_nlp_metrics.metrics:Rouge",
    "token_f1": "bench_nlp_metrics.metrics:TokenF1",
    "f1": "bench_nlp_metrics.metrics:TokenF1",
    "squad_exact_match": "bench_nlp_metrics.metrics:SquadExactMatch",
    "squad_em": "bench_nlp_metrics.metrics:SquadExactMatch",
    "similarity": "bench_nlp_metrics.similarity:Similarity",
    "semantic_similarity": "bench_nlp_metrics.similarity:Similarity",
    "bleu_score": "bench_nlp_metrics.generation:BleuScore",
    "rouge_score": "bench_nlp_metrics.generation:RougeScore",
    "chrf_score": "bench_nlp_metrics.generation:ChrfScore",
}


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for name, path in EVALUATORS.items():
        # none claims a mapping's keys: such a mapping need not import them to ask
        register(name, path, infer_from=())
