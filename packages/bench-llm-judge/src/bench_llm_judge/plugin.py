"""Registers bench-llm-judge's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl

# Registered by name and import path: a class is imported when a suite first uses it,
# so bench's start-up does not import every class of the plugin.
EVALUATORS = {
    "llm_judge": "bench_llm_judge.judges:LLMJudge",
    "judge": "bench_llm_judge.judges:LLMJudge",
    "factuality": "bench_llm_judge.judges:Factuality",
    "agentic-judge": "bench_llm_judge.agentic:AgenticJudge",
    "agentclash_judge": "bench_llm_judge.methods:AgentClashJudge",
    "pairwise": "bench_llm_judge.rankers:Pairwise",
    "n_wise": "bench_llm_judge.rankers:NWise",
    "conversation_completeness": "bench_llm_judge.conversation:Completeness",
    "role_adherence": "bench_llm_judge.conversation:RoleAdherence",
    "knowledge_retention": "bench_llm_judge.conversation:KnowledgeRetention",
    "turn_relevancy": "bench_llm_judge.conversation:TurnRelevancy",
}


#: Each class's ``infer_from`` (the rest claim none), declared so that a mapping written without
#: ``type:`` does not import every class to ask which claims its keys.
INFER_FROM = {"bench_llm_judge.judges:LLMJudge": ("prompt",)}


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for name, path in EVALUATORS.items():
        register(name, path, infer_from=INFER_FROM.get(path, ()))
