"""Registers bench-rag's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl

# Registered by name and import path: a class is imported when a suite first uses it,
# so bench's start-up does not import every class of the plugin.
EVALUATORS = {
    "faithfulness": "bench_rag.evaluators:Faithfulness",
    "relevancy": "bench_rag.evaluators:Relevancy",
    "answer_relevancy": "bench_rag.evaluators:Relevancy",
    "precision": "bench_rag.evaluators:Precision",
    "context_precision": "bench_rag.evaluators:Precision",
    "recall": "bench_rag.evaluators:Recall",
    "context_recall": "bench_rag.evaluators:Recall",
}


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for name, path in EVALUATORS.items():
        # none claims a mapping's keys: such a mapping need not import them to ask
        register(name, path, infer_from=())
