"""Registers bench-safety's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl

# Registered by name and import path: a class is imported when a suite first uses it,
# so bench's start-up does not import every class of the plugin.
EVALUATORS = {
    "toxicity": "bench_safety.judged:Toxicity",
    "bias": "bench_safety.judged:Bias",
    "hallucination": "bench_safety.judged:Hallucination",
    "pii": "bench_safety.pii:Pii",
}


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for name, path in EVALUATORS.items():
        # none claims a mapping's keys: such a mapping need not import them to ask
        register(name, path, infer_from=())
