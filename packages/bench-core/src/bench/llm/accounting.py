"""Token and cost accounting, prices, and the budgets that stop a run."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, fields
from typing import Any

from bench.llm.providers.prices import info
from bench.llm.settings import JudgeLimits, Pricing, RuntimeLimits


class Prices:
    """Per-token prices: the suite's ``pricing.models`` rows first, then litellm's cost map."""

    def __init__(self, pricing: Pricing) -> None:
        self.rows = {row.model: row for row in pricing.models if row.model}

    def per_token(self, model: str) -> tuple[float, float] | None:
        """(input, output) dollars per token, or None when the model has no known price."""
        row = self.rows.get(model)
        if row is not None:
            return row.input_cost_per_million_tokens / 1e6, row.output_cost_per_million_tokens / 1e6
        listed = info(model)  # litellm's price map, read without importing litellm
        if listed is not None and "input_cost_per_token" in listed:
            return float(listed["input_cost_per_token"]), float(listed.get("output_cost_per_token", 0.0))
        return None

    def batch_per_token(self, model: str) -> tuple[float, float] | None:
        """(input, output) dollars per token through a provider's batch API: litellm's batch
        prices where its map has them (and the suite sets no price), else half the live price."""
        listed = info(model) if model not in self.rows else None
        if listed is not None and "input_cost_per_token_batches" in listed:
            batch_out = listed.get("output_cost_per_token_batches", 0.0)
            return float(listed["input_cost_per_token_batches"]), float(batch_out)
        rates = self.per_token(model)
        return None if rates is None else (rates[0] / 2, rates[1] / 2)

    def cost(
        self, model: str, input_tokens: int | None, output_tokens: int | None, batch: bool = False
    ) -> float | None:
        """Dollars for one call (at the batch price with ``batch``); None (unknown) when the model
        has no price — never 0."""
        rates = self.batch_per_token(model) if batch else self.per_token(model)
        if rates is None or input_tokens is None or output_tokens is None:
            return None
        return input_tokens * rates[0] + output_tokens * rates[1]


@dataclass
class ModelEstimate:
    """One model's calls in an ``Estimate``: tokens in and (at most) out, and their cost."""

    model: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    #: The same calls at the batch price; None when they would not go in a batch.
    batch_cost_usd: float | None = None
    batched: bool = False


@dataclass
class Estimate:
    """Calls and cost per model for a whole plan, before it runs (``bench run --dry-run``)."""

    models: dict[str, ModelEstimate] = field(default_factory=dict)
    #: Of ``calls``, those of simulated users (budgeted apart: ``max_simulator_cost_usd``).
    simulator_calls: int = 0

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

    @property
    def batched(self) -> bool:
        """Whether some of the calls would go in a batch (``--batch``)."""
        return any(row.batched for row in self.models.values())

    @property
    def batch_cost_usd(self) -> float | None:
        """The whole cost with the batched models at their batch price (the others live)."""
        costs = [row.batch_cost_usd if row.batched else row.cost_usd for row in self.models.values()]
        return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


@dataclass
class Totals:
    """Calls, tokens and dollars, for all calls and for judge calls."""

    calls: int = 0
    #: Requests sent, every retry included (RELIABILITY C16: equals the provider's count).
    attempts: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    judge_tokens: int = 0
    judge_cost_usd: float = 0.0
    #: A conversation's simulated user: its calls (cache replays not counted) and their cost.
    simulator_calls: int = 0
    simulator_tokens: int = 0
    simulator_cost_usd: float = 0.0
    by_model: dict[str, dict[str, float]] = field(default_factory=dict)

    def scalars(self) -> Totals:
        """A copy without ``by_model`` (what a coordinator sums and sends)."""
        return Totals(**{name: getattr(self, name) for name in _SCALARS})

    def add(self, other: Totals) -> None:
        """Add ``other``'s counts (not ``by_model``) to these."""
        for name in _SCALARS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def merge(self, other: Totals) -> None:
        """Add ``other``'s counts, ``by_model`` included (another process's calls of the run)."""
        self.add(other)
        for model, figures in other.by_model.items():
            mine = self.by_model.setdefault(model, {"calls": 0, "tokens": 0, "cost_usd": 0.0})
            for name, value in figures.items():
                mine[name] = mine.get(name, 0) + value

    def minus(self, other: Totals) -> Totals:
        """These counts less ``other``'s (not ``by_model``)."""
        return Totals(**{name: getattr(self, name) - getattr(other, name) for name in _SCALARS})

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "attempts": self.attempts,
            "cached": self.cached,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
            "cost_usd": round(self.cost_usd, 6) if not self.unpriced_calls else None,
            "priced_cost_usd": round(self.cost_usd, 6),
            "unpriced_calls": self.unpriced_calls,
            "by_model": self.by_model,
            **({"simulator": self._simulator()} if self.simulator_calls else {}),
        }

    def _simulator(self) -> dict[str, Any]:
        return {
            "calls": self.simulator_calls,
            "tokens": self.simulator_tokens,
            "cost_usd": round(self.simulator_cost_usd, 6),
        }


_SCALARS = tuple(f.name for f in fields(Totals) if f.name != "by_model")


class Budget:
    """Checks the run and judge budgets before a call; a reached budget stops new calls."""

    def __init__(self, runtime: RuntimeLimits, judges: JudgeLimits, totals: Totals) -> None:
        self.runtime = runtime
        self.judges = judges
        self.totals = totals
        #: Spend counted elsewhere: other clients' calls, as a coordinator last reported them.
        self.elsewhere: Totals | None = None
        self.started = time.monotonic()
        self.reached: str | None = None

    def exhausted(self, purpose: str = "target") -> str | None:
        """The name of the first budget reached, or None."""
        if self.reached:
            return self.reached
        r, t = self.runtime, self.totals
        if self.elsewhere is not None:
            t = self.elsewhere.scalars()
            t.add(self.totals)
        if r.max_total_tokens is not None and t.input_tokens + t.output_tokens >= r.max_total_tokens:
            self.reached = "runtime_limits.max_total_tokens"
        elif r.max_cost_usd is not None and t.cost_usd >= r.max_cost_usd:
            self.reached = "runtime_limits.max_cost_usd"
        elif r.max_duration_ms is not None and (time.monotonic() - self.started) * 1000 >= r.max_duration_ms:
            self.reached = "runtime_limits.max_duration_ms"
        elif purpose == "judge":
            j = self.judges
            if j.max_tokens is not None and t.judge_tokens >= j.max_tokens:
                self.reached = "judge_limits.max_tokens"
            elif j.max_calls_usd is not None and t.judge_cost_usd >= j.max_calls_usd:
                self.reached = "judge_limits.max_calls_usd"
        elif purpose == "simulator":
            if r.max_simulator_tokens is not None and t.simulator_tokens >= r.max_simulator_tokens:
                self.reached = "runtime_limits.max_simulator_tokens (the simulated user's calls)"
            elif r.max_simulator_cost_usd is not None and t.simulator_cost_usd >= r.max_simulator_cost_usd:
                self.reached = "runtime_limits.max_simulator_cost_usd (the simulated user's calls)"
        return self.reached
