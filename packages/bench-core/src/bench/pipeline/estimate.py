"""What a run will call, before it runs: models, call counts, and an upper-bound cost."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.llm.accounting import Prices
from bench.suite.plan import Plan
from bench.vocabulary.errors import ConfigError

#: Assumed completion length when a call sets no max_tokens (an estimate, stated in the output).
DEFAULT_OUTPUT_TOKENS = 512
#: Tokens a judge prompt adds around the task text (instructions, rubric, delimiters).
JUDGE_OVERHEAD_TOKENS = 400


@dataclass
class ModelEstimate:
    model: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0


@dataclass
class Estimate:
    """Calls and cost per model for a whole plan."""

    models: dict[str, ModelEstimate] = field(default_factory=dict)

    def add(self, model: str, calls: int, input_tokens: int, output_tokens: int) -> None:
        row = self.models.setdefault(model, ModelEstimate(model))
        row.calls += calls
        row.input_tokens += input_tokens * calls
        row.output_tokens += output_tokens * calls

    @property
    def calls(self) -> int:
        return sum(row.calls for row in self.models.values())

    @property
    def cost_usd(self) -> float | None:
        costs = [row.cost_usd for row in self.models.values()]
        return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


def estimate(plan: Plan, prices: Prices) -> Estimate:
    """Count every model call the plan would make (target and evaluators), pricing each model."""
    result = Estimate()
    target_calls = plan.target.llm_calls() if plan.target is not None else []
    calls_of = {label: target.llm_calls() for label, target in plan.targets.items()}
    for planned in plan.tasks:
        task_tokens = len(planned.task.text) // 4 + 1
        if planned.task.response is None:
            label = planned.target_label
            for model, calls in target_calls if label is None else calls_of[label]:
                result.add(model, calls, task_tokens, DEFAULT_OUTPUT_TOKENS)
        for evaluator in planned.evaluators:
            for model, calls in evaluator.instance.llm_calls():
                result.add(
                    model,
                    calls,
                    task_tokens + DEFAULT_OUTPUT_TOKENS + JUDGE_OVERHEAD_TOKENS,
                    DEFAULT_OUTPUT_TOKENS,
                )
    for row in result.models.values():
        rates = prices.per_token(row.model)
        row.cost_usd = None if rates is None else row.input_tokens * rates[0] + row.output_tokens * rates[1]
    return result


def check_prices(plan: Plan, prices: Prices) -> None:
    """With a dollar budget, every model must have a price, or the budget could not be kept."""
    budgets = []
    if plan.runtime_limits.max_cost_usd is not None:
        budgets.append("runtime_limits.max_cost_usd")
    if plan.judge_limits.max_calls_usd is not None:
        budgets.append("judge_limits.max_calls_usd")
    if not budgets:
        return
    for model in estimate(plan, prices).models:
        if prices.per_token(model) is None:
            raise ConfigError(
                f"no price for {model}; add it to pricing.models or drop {' and '.join(budgets)}",
                file=plan.path,
            )
