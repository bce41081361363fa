"""What a run will call, before it runs: models, call counts, and an upper-bound cost."""

from __future__ import annotations

from bench.llm.accounting import Estimate, ModelEstimate, Prices
from bench.llm.batch.protocols import protocol_of
from bench.suite.plan import Plan
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.models import Task

__all__ = ["Estimate", "ModelEstimate", "check_prices", "estimate"]

#: Assumed completion length when a call sets no max_tokens (an estimate, stated in the output).
DEFAULT_OUTPUT_TOKENS = 512
#: Tokens a judge prompt adds around the task text (instructions, rubric, delimiters).
JUDGE_OVERHEAD_TOKENS = 400


def estimate(plan: Plan, prices: Prices, batch: bool = False) -> Estimate:
    """Count every model call the plan would make (target and evaluators), pricing each model
    live and, for the models a batch run (``batch``, or the suite's ``batch: true``) sends in a
    batch, at the batch price too."""
    result = Estimate()
    target_calls = plan.target.llm_calls() if plan.target is not None else []
    calls_of = {label: target.llm_calls() for label, target in plan.targets.items()}
    for planned in plan.tasks:
        task_tokens = len(planned.task.text) // 4 + 1
        turns = 1
        if planned.task.conversation is not None and planned.task.response is None:
            turns, task_tokens = _conversation(planned.task, task_tokens, result)
        if planned.task.response is None:
            label = planned.target_label
            for model, calls in target_calls if label is None else calls_of[label]:
                result.add(model, calls * turns, task_tokens, DEFAULT_OUTPUT_TOKENS)
        for evaluator in planned.evaluators:
            per_task = turns if evaluator.over == "each_turn" else 1
            for model, calls in evaluator.instance.llm_calls():
                result.add(
                    model,
                    calls * per_task,
                    task_tokens + DEFAULT_OUTPUT_TOKENS + JUDGE_OVERHEAD_TOKENS,
                    DEFAULT_OUTPUT_TOKENS,
                )
    for row in result.models.values():
        rates = prices.per_token(row.model)
        row.cost_usd = None if rates is None else row.input_tokens * rates[0] + row.output_tokens * rates[1]
        if batched(plan, row.model, batch):
            row.batched = True
            row.batch_cost_usd = prices.cost(row.model, row.input_tokens, row.output_tokens, batch=True)
    return result


def batched(plan: Plan, model: str, batch: bool) -> bool:
    """Whether a run sends ``model``'s calls in a batch (its provider has a batch API)."""
    own = plan.llm.models.get(model)
    wanted = batch or plan.llm.batch or (own is not None and bool(own.batch))
    return wanted and protocol_of(model) is not None


def _conversation(task: Task, task_tokens: int, result: Estimate) -> tuple[int, int]:
    """A conversation at its longest: its turns, the tokens of its fullest history; each simulated
    user's calls (one per message it may write) are added to ``result``. The conversation's
    ``max_turns`` bounds its turns, and the simulated users' messages together."""
    assert task.conversation is not None
    cap = task.conversation.max_turns
    opening = 1 if task.prompt is not None or task.messages else 0
    left = None if cap is None else cap - opening
    calls = []
    for simulator in task.conversation.simulators():
        calls.append(simulator.max_turns if left is None else min(simulator.max_turns, left))
        left = None if left is None else left - calls[-1]
    turns = opening + len(task.conversation.scripted_turns()) + sum(calls)
    turns = turns if cap is None else min(turns, cap)
    history = task_tokens + turns * 2 * DEFAULT_OUTPUT_TOKENS
    for simulator, most in zip(task.conversation.simulators(), calls, strict=True):
        if most:
            result.add(simulator.model, most, history, DEFAULT_OUTPUT_TOKENS)
            result.simulator_calls += most
    return max(turns, 1), history


def check_prices(plan: Plan, prices: Prices) -> None:
    """With a dollar budget, every model must have a price, or the budget could not be kept."""
    budgets = []
    if plan.runtime_limits.max_cost_usd is not None:
        budgets.append("runtime_limits.max_cost_usd")
    if plan.judge_limits.max_calls_usd is not None:
        budgets.append("judge_limits.max_calls_usd")
    if plan.runtime_limits.max_simulator_cost_usd is not None:
        budgets.append("runtime_limits.max_simulator_cost_usd")
    if not budgets:
        return
    for model in estimate(plan, prices).models:
        if prices.per_token(model) is None:
            raise ConfigError(
                f"no price for {model}; add it to pricing.models or drop {' and '.join(budgets)}",
                file=plan.path,
            )
