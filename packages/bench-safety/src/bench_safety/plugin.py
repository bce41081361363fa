"""Registers bench-safety's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl
from bench_safety.judged import Bias, Hallucination, Toxicity
from bench_safety.pii import Pii


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for evaluator in (Toxicity, Bias, Hallucination, Pii):
        register(evaluator)
