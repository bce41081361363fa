"""Suite settings for model calls: ``llm:``, ``pricing:``, ``runtime_limits:``, ``judge_limits:``."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

from bench.vocabulary.documented import Documented


class _Strict(Documented):
    model_config = ConfigDict(defer_build=True, extra="forbid", allow_inf_nan=False)


class ModelLimits(_Strict):
    """Limits for one model."""

    concurrency: PositiveInt | None = None
    """Most calls in flight to this model."""
    rpm: PositiveInt | None = None
    """Requests per minute."""
    tpm: PositiveInt | None = None
    """Tokens per minute (estimated before the call from the prompt and max_tokens)."""
    batch: bool | None = None
    """Send this model's calls through its provider's batch API (about half the price, answers
    within hours); None: as ``llm.batch`` says. ``true`` on a model whose provider has none is refused."""


class LLMSettings(_Strict):
    """How bench calls models (the suite's ``llm:`` block)."""

    cache: bool = True
    """Replay earlier answers from the response cache (``--no-cache`` turns it off)."""
    max_attempts: PositiveInt = 4
    """Attempts per call, the first included, for rate limits, 5xx, timeouts and dropped connections."""
    attempt_timeout: PositiveFloat = 60.0
    """Seconds one attempt may take before it is abandoned and retried."""
    max_wait: PositiveFloat = 60.0
    """Longest wait between attempts, ``Retry-After`` included."""
    concurrency: PositiveInt = 16
    """Calls in flight per provider; halved on a rate limit, grown back on success. Unset, the
    run's tasks in flight (``-j``, or the suite's ``concurrency:``) set it; without those, 16."""
    queue_timeout: PositiveFloat = 300.0
    """Longest wait for a call slot (concurrency, rpm, tpm) before the call fails."""
    max_consecutive_failures: PositiveInt = 5
    """Calls to one provider that may fail in a row before the run stops starting calls."""
    models: dict[str, ModelLimits] = Field(default_factory=dict)
    """Per-model limits, keyed by the model name as written in the suite."""
    batch: bool = False
    """Send calls to models whose provider has a batch API (``openai/``, ``groq/``,
    ``together_ai/``, ``anthropic/``) through it, the others live (``bench run --batch``; docs/batch.md)."""
    batch_poll_s: PositiveFloat = 30.0
    """Seconds between two looks at a batch that has not ended."""
    batch_settle_s: PositiveFloat = 0.5
    """Seconds without a new call before a model's pending calls are submitted as one batch."""
    transport: Literal["auto", "litellm"] = "auto"
    """``auto``: OpenAI-protocol providers (``openai/``, ``hosted_vllm/``, ``groq/``,
    ``openrouter/``, ``together_ai/``, ``deepseek/``) are called over HTTP directly, the rest
    through litellm; ``litellm``: every call through litellm
    (``BENCH_LLM_TRANSPORT=litellm`` does the same)."""


def sized_for_run(
    settings: LLMSettings, tasks_in_flight: int | None, source: str = "-j"
) -> tuple[LLMSettings, str | None]:
    """The settings a run calls models with, and a start-up note when two limits disagree.

    The run's tasks in flight (``source``: ``-j``, or the suite's ``concurrency:``) also set the
    model calls in flight, unless the suite's ``llm:`` block sets ``concurrency`` itself: then that
    one wins, and the note says so. Without either the default (16) stays.
    """
    if tasks_in_flight is None:
        return settings, None
    if "concurrency" not in settings.model_fields_set:
        return settings.model_copy(update={"concurrency": tasks_in_flight}), None
    if settings.concurrency == tasks_in_flight:
        return settings, None
    return settings, (
        f"model calls in flight: at most {settings.concurrency} (the suite's llm.concurrency), "
        f"tasks in flight: {tasks_in_flight} ({source})"
    )


class PriceRow(_Strict):
    """Token prices for one model, overriding litellm's cost map."""

    model: str | None = None
    provider_key: str | None = None
    provider_model_id: str | None = None
    input_cost_per_million_tokens: float = Field(ge=0)
    output_cost_per_million_tokens: float = Field(ge=0)

    @model_validator(mode="after")
    def _named(self) -> PriceRow:
        if self.model is None:
            if not (self.provider_key and self.provider_model_id):
                raise ValueError("give model, or provider_key and provider_model_id")
            self.model = f"{self.provider_key}/{self.provider_model_id}"
        return self


class Pricing(_Strict):
    """The suite's ``pricing:`` block (AgentClash ``pricing.models[]``)."""

    models: list[PriceRow] = Field(default_factory=list)


class RuntimeLimits(_Strict):
    """Run budgets (AgentClash ``runtime_limits``): the run stops starting calls when one is reached."""

    max_total_tokens: PositiveInt | None = None
    max_cost_usd: PositiveFloat | None = None
    max_duration_ms: PositiveInt | None = None
    max_simulator_tokens: PositiveInt | None = None
    """Most tokens the simulated users' calls together may use (counted apart, within the totals)."""
    max_simulator_cost_usd: PositiveFloat | None = None
    """Most dollars the simulated users' calls together may spend."""


class JudgeLimits(_Strict):
    """Judge budgets (AgentClash ``judge_limits``)."""

    max_samples_per_judge: PositiveInt = 10
    """Most samples one judge may take per task; larger ``samples:`` are refused."""
    max_calls_usd: PositiveFloat | None = None
    """Most dollars all judge calls together may spend."""
    max_tokens: PositiveInt | None = None
    """Most tokens all judge calls together may use."""
