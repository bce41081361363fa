"""Registers bench-rag's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench import hookimpl
from bench_rag.evaluators import Faithfulness, Precision, Recall, Relevancy


@hookimpl
def bench_register_evaluators(register: Callable[[Any], None]) -> None:
    for evaluator in (Faithfulness, Relevancy, Precision, Recall):
        register(evaluator)
