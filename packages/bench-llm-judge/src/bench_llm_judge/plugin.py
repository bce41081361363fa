"""Registers bench-llm-judge's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl
from bench_llm_judge.agentic import AgenticJudge
from bench_llm_judge.conversation import CONVERSATION_JUDGES
from bench_llm_judge.judges import Factuality, LLMJudge
from bench_llm_judge.methods import AgentClashJudge
from bench_llm_judge.rankers import NWise, Pairwise


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for evaluator in (
        LLMJudge,
        Factuality,
        AgenticJudge,
        AgentClashJudge,
        Pairwise,
        NWise,
        *CONVERSATION_JUDGES,
    ):
        register(evaluator)
