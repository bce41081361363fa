"""Registers bench-llm-judge's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench import hookimpl
from bench_llm_judge.agentic import AgenticJudge
from bench_llm_judge.judges import Factuality, LLMJudge


@hookimpl
def bench_register_evaluators(register: Callable[[Any], None]) -> None:
    for evaluator in (LLMJudge, Factuality, AgenticJudge):
        register(evaluator)
