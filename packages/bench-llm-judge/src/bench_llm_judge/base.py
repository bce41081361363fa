"""What every judge shares: the model (or a panel of models), samples, and their aggregation."""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, Field, PositiveInt, model_validator

from bench import (
    Evaluator,
    EvaluatorConfig,
    EvaluatorError,
    LLMClient,
    Result,
    RunStopped,
    Sample,
    ask_verdict,
    data_rule,
)
from bench_llm_judge import prompts
from bench_llm_judge.prompts import PROMPT_VERSION


class JudgeConfig(EvaluatorConfig):
    """Settings every judge takes."""

    model: str | None = None
    """The judge model (litellm name). Required: a judge has no default model."""
    models: list[str] | None = None
    """A panel of judge models instead of one; combined by ``panel``."""
    panel: Literal["majority", "unanimous", "mean", "median"] = "majority"
    """How a panel's verdicts combine: pass by majority or unanimity, or by the mean/median score."""
    samples: PositiveInt = 1
    """Verdicts per model per task (at most ``judge_limits.max_samples_per_judge``)."""
    aggregate: Literal["mean", "majority"] = "mean"
    """How samples of one model combine: the mean score, or the majority of pass/fail votes."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server for the judge."""
    api_key_env: str | None = None
    """Environment variable holding the judge's API key (default: litellm's own)."""
    temperature: float | None = None
    max_tokens: PositiveInt | None = None
    structured: Literal["auto", "tool", "json"] = "auto"
    """How the verdict is asked for: a forced tool call, JSON mode, or whichever the model supports."""

    @model_validator(mode="after")
    def _one_judge(self) -> JudgeConfig:
        if self.model is None and not self.models:
            raise ValueError("model is required: a judge has no default model")
        if self.model is not None and self.models:
            raise ValueError("give model or models (a panel), not both")
        return self

    @property
    def judges(self) -> list[str]:
        return list(self.models or [self.model or ""])


class Verdict(BaseModel):
    """A judge's verdict on one response."""

    reason: str = Field(description="One or two sentences explaining the verdict.")
    score: float = Field(ge=0, description="The score, on the scale the instructions give.")
    passed: bool = Field(description="Whether the response passes.")


@dataclass
class Vote:
    model: str
    sample: int
    passed: bool
    score: float
    reason: str
    extra: dict[str, Any] = field(default_factory=dict)


C = TypeVar("C", bound=JudgeConfig)


class JudgeEvaluator(Evaluator[C]):
    """Base of the judges: subclasses build the messages and read one verdict into a Vote."""

    schema: ClassVar[type[BaseModel]] = Verdict

    def llm_calls(self) -> list[tuple[str, int]]:
        return [(model, self.config.samples) for model in self.config.judges]

    def messages(self, sample: Sample) -> list[dict[str, Any]]:
        raise NotImplementedError

    @staticmethod
    def conversation(tag: str, body: str) -> list[dict[str, Any]]:
        """The judge's messages: the shared system prompt with the data rule for ``tag``, then ``body``."""
        return [
            {"role": "system", "content": f"{prompts.SYSTEM}\n{data_rule(tag)}"},
            {"role": "user", "content": body},
        ]

    def vote(self, model: str, index: int, verdict: Any) -> Vote:
        raise NotImplementedError

    async def _one(self, llm: LLMClient, model: str, index: int, messages: list[dict[str, Any]]) -> Vote:
        config = self.config
        params = {
            k: v
            for k, v in {"temperature": config.temperature, "max_tokens": config.max_tokens}.items()
            if v is not None
        }
        verdict, _raw = await ask_verdict(
            llm,
            self.schema,
            messages,
            model=model,
            api_base=config.api_base,
            api_key_env=config.api_key_env,
            index=index,
            mode=config.structured,
            params=params,
        )
        return self.vote(model, index, verdict)

    async def evaluate(self, sample: Sample) -> Result:
        if sample.llm is None:
            raise EvaluatorError(f"{self.name} needs bench's LLM client, and this run has none")
        config = self.config
        limit = sample.llm.budget.judges.max_samples_per_judge
        samples = min(config.samples, limit)
        messages = self.messages(sample)
        jobs = [self._one(sample.llm, model, i, messages) for model in config.judges for i in range(samples)]
        outcomes = await asyncio.gather(*jobs, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, RunStopped):
                raise outcome
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                if isinstance(outcome, EvaluatorError):
                    raise outcome
                raise EvaluatorError(f"{self.name}: {type(outcome).__name__}: {outcome}") from outcome
        votes = [o for o in outcomes if isinstance(o, Vote)]
        return self._combine(votes, clamped=samples < config.samples)

    def _combine(self, votes: list[Vote], clamped: bool) -> Result:
        config = self.config
        per_model: dict[str, tuple[bool, float]] = {}
        for model in config.judges:
            mine = [v for v in votes if v.model == model]
            yes = sum(v.passed for v in mine)
            if config.aggregate == "majority":
                per_model[model] = (yes * 2 > len(mine), yes / len(mine))
            else:
                score = statistics.fmean(v.score for v in mine)
                per_model[model] = (score >= 0.5, score)
        passes = [p for p, _ in per_model.values()]
        scores = [s for _, s in per_model.values()]
        if len(per_model) == 1:
            passed, score = passes[0], scores[0]
        elif config.panel == "majority":
            passed, score = sum(passes) * 2 > len(passes), statistics.fmean(scores)
        elif config.panel == "unanimous":
            passed, score = all(passes), min(scores)
        elif config.panel == "median":
            score = statistics.median(scores)
            passed = score >= 0.5
        else:
            score = statistics.fmean(scores)
            passed = score >= 0.5
        all_scores = [v.score for v in votes]
        details: dict[str, Any] = {
            "prompt_version": PROMPT_VERSION,
            "verdicts": [
                {
                    "model": v.model,
                    "sample": v.sample,
                    "passed": v.passed,
                    "score": round(v.score, 4),
                    "reason": v.reason,
                    **v.extra,
                }
                for v in votes
            ],
        }
        if len(votes) > 1:
            details["spread"] = {
                "min": round(min(all_scores), 4),
                "max": round(max(all_scores), 4),
                "stdev": round(statistics.pstdev(all_scores), 4),
            }
        if len(per_model) > 1:
            details["panel"] = {m: {"passed": p, "score": round(s, 4)} for m, (p, s) in per_model.items()}
            details["disagreement"] = len(set(passes)) > 1
        if clamped:
            details["samples_clamped_to"] = len(votes) // len(per_model)
        lead = next((v for v in votes if v.passed == passed), votes[0])
        reason = lead.reason
        if len(per_model) > 1:
            reason = (
                f"panel {sum(passes)}/{len(passes)} pass"
                + (" (judges disagree)" if details["disagreement"] else "")
                + f": {reason}"
            )
        return Result(passed=passed, score=min(1.0, max(0.0, score)), reason=reason, details=details)
