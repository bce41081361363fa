"""Registers bench-rag's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl
from bench_rag.evaluators import Faithfulness, Precision, Recall, Relevancy


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for evaluator in (Faithfulness, Relevancy, Precision, Recall):
        register(evaluator)
