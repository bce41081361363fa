"""Registers bench-safety's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench import hookimpl
from bench_safety.judged import Bias, Hallucination, Toxicity
from bench_safety.pii import Pii


@hookimpl
def bench_register_evaluators(register: Callable[[Any], None]) -> None:
    for evaluator in (Toxicity, Bias, Hallucination, Pii):
        register(evaluator)
