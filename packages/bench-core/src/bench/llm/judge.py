"""The one base of every judge: a model (or a panel of models) asked for structured verdicts.

A judge builds its messages (by default a prompt template, which the user may replace with
``prompt:``), asks each model ``samples`` times for a verdict shaped like its pydantic
``Verdict`` (``bench.llm.verdict.ask_verdict``), reads each verdict into a ``Vote`` and combines
the votes: the samples of one model by ``aggregate``, the models of a panel by ``panel``.
Untrusted text (the response, retrieved context) is wrapped in per-call delimiters that it
cannot close, and the system message tells the judge that it is data (RELIABILITY H06). Every
call goes through the run's LLM client.
"""

from __future__ import annotations

import asyncio
import dataclasses
import statistics
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, Field, PositiveInt, model_validator

from bench.evaluator import Evaluator, EvaluatorConfig, Result, Sample
from bench.llm.client import LLMClient
from bench.llm.verdict import ask_verdict, data_rule, delimit, schema_text
from bench.vocabulary.errors import EvaluatorError, RunStopped
from bench.vocabulary.models import Task
from bench.vocabulary.templates import MissingPlaceholder, placeholders, render_repeated

#: The opening of a judge's system message; the data rules follow it directly.
SYSTEM = "You are a careful evaluator. "


def framed(
    template: str, values: dict[str, Any], untrusted: tuple[str, ...], system: str = SYSTEM
) -> list[dict[str, str]]:
    """Judge messages: the template filled, ``untrusted`` values delimited as data (H06).

    The system message is ``system`` followed by one rule per untrusted value, saying that its
    block is data to judge, not instructions.
    """
    rules, filled = [], {}
    for name, value in values.items():
        if name in untrusted:
            block, tag = delimit(value, name)
            filled[name] = block
            rules.append(data_rule(tag))
        else:
            filled[name] = value
    try:
        text = render_repeated(template, filled)  # a judge's template, filled at every call
    except MissingPlaceholder as exc:
        raise EvaluatorError(f"the prompt needs {{{exc.name}}}, which this task does not provide") from None
    return [
        {"role": "system", "content": system + " ".join(rules)},
        {"role": "user", "content": text},
    ]


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

    #: Whether a model is required (an evaluator whose judge is optional sets False).
    judge_required: ClassVar[bool] = True

    @model_validator(mode="after")
    def _one_judge(self) -> JudgeConfig:
        if self.model is None and not self.models:
            if self.judge_required:
                raise ValueError("model is required: a judge has no default model")
            return self
        if self.model is not None and self.models:
            raise ValueError("give model or models (a panel), not both")
        if any(not name.strip() for name in self.judges):
            raise ValueError("the judge model is empty")
        return self

    @property
    def judges(self) -> list[str]:
        """The judge models: the panel, or the one model."""
        return list(self.models or [self.model or ""])


class TemplateJudgeConfig(JudgeConfig):
    """Settings of a judge whose built-in prompt template the user may replace."""

    prompt: str | None = None
    """Replace the built-in prompt template (see the type's placeholders)."""
    temperature: float | None = Field(default=0.0, ge=0, le=2)
    """Sampling temperature of the judge (0: as repeatable as the model allows)."""


@dataclass
class Vote:
    """One verdict read: pass or fail, a score, a reason and what else the judge reported."""

    passed: bool
    score: float
    reason: str
    details: dict[str, Any] = field(default_factory=dict)
    #: Which model gave it, and which of its samples it is (set by ``Judge``).
    model: str = ""
    sample: int = 0


ConfigT = TypeVar("ConfigT", bound=JudgeConfig)


class Judge(Evaluator[ConfigT], Generic[ConfigT]):
    """An evaluator that asks one model or a panel, ``samples`` times each, for a ``Verdict``.

    Subclasses give ``Verdict`` and ``vote`` (one verdict read into a ``Vote``), and either a
    ``template`` with its ``fields`` or their own ``messages``.
    """

    #: The pydantic model of one verdict.
    Verdict: ClassVar[type[BaseModel]]
    #: The built-in template and its version (recorded in every result's details).
    template: ClassVar[str] = ""
    prompt_version: ClassVar[str] = "1"
    #: Placeholders the template may use; ``untrusted`` ones are delimited as data.
    fields: ClassVar[tuple[str, ...]] = ("response",)
    untrusted: ClassVar[tuple[str, ...]] = ("response",)
    #: The opening of the system message (``framed`` appends the data rules).
    system: ClassVar[str] = SYSTEM
    #: List every verdict in the details even when there is only one (else one model asked once
    #: reports its vote's details as they are, with ``judge`` and ``prompt_version``).
    lists_verdicts: ClassVar[bool] = False

    def __init__(self, config: ConfigT) -> None:
        super().__init__(config)
        # A verdict that is not valid JSON is read through json_repair (``verdict._parse``):
        # imported with the suite, not at such an answer, where its ~25 ms (argparse included)
        # would hold up every other answer waiting on the loop.
        import json_repair  # noqa: F401

        # Likewise the verdict's JSON Schema (~3 ms, pydantic imports included), built once per
        # class: at the first judge call it held up the whole first round.
        verdict_class = getattr(self, "Verdict", None)
        if isinstance(verdict_class, type) and issubclass(verdict_class, BaseModel):
            schema_text(verdict_class)

    def check(self, task: Task) -> None:
        custom = self.custom_prompt()
        if custom is None:
            return
        unknown = [p for p in placeholders(custom) if p not in self.fields]
        if unknown:
            raise ValueError(
                f"unknown placeholder {{{unknown[0]}}} in prompt; {self.name} fills {', '.join(self.fields)}"
            )

    def llm_calls(self) -> list[tuple[str, int]]:
        return [(model, self.config.samples) for model in self.config.judges]

    def custom_prompt(self) -> str | None:
        """The user's replacement of the built-in template, if any."""
        custom = getattr(self.config, "prompt", None)
        return custom if self.template and isinstance(custom, str) else None

    @property
    def version(self) -> str:
        """The prompt's version: the built-in template's, or ``custom``."""
        return "custom" if self.custom_prompt() is not None else self.prompt_version

    def values(self, sample: Sample) -> dict[str, str]:
        """The placeholder values for one sample (subclasses add theirs)."""
        return {"response": sample.output}

    def messages(self, sample: Sample) -> list[dict[str, Any]]:
        """The judge's messages for one sample: the template filled, untrusted values framed."""
        return self.framed(self.custom_prompt() or self.template, self.values(sample))

    def framed(self, template: str, values: dict[str, Any]) -> list[dict[str, Any]]:
        """``framed`` with this judge's untrusted fields and system prompt."""
        return framed(template, values, self.untrusted, self.system)

    def vote(self, sample: Sample, verdict: Any, model: str) -> Vote:
        """Read one verdict of ``model``."""
        raise NotImplementedError

    def settings_details(self) -> dict[str, Any]:
        """Details every result of this judge carries, however many verdicts it combines."""
        return {}

    def passes(self, score: float) -> bool:
        """Whether a combined score passes (lower is better for ``threshold_direction: max``)."""
        return score <= 0.5 if self.threshold_direction == "max" else score >= 0.5

    async def ask(
        self, sample: Sample, llm: LLMClient, model: str, index: int, messages: list[dict[str, Any]]
    ) -> Any:
        """Ask ``model`` once for a verdict on ``sample`` (sample number ``index``)."""
        config = self.config
        params = {
            k: v
            for k, v in {"temperature": config.temperature, "max_tokens": config.max_tokens}.items()
            if v is not None
        }
        verdict, _raw = await ask_verdict(
            llm,
            self.Verdict,
            messages,
            model=model,
            api_base=config.api_base,
            api_key_env=config.api_key_env,
            index=index,
            mode=config.structured,
            params=params,
        )
        return verdict

    async def _one(
        self, sample: Sample, llm: LLMClient, model: str, index: int, messages: list[dict[str, Any]]
    ) -> Vote:
        verdict = await self.ask(sample, llm, model, index, messages)
        return dataclasses.replace(self.vote(sample, verdict, model), model=model, sample=index)

    async def evaluate(self, sample: Sample) -> Result:
        if sample.llm is None:
            raise EvaluatorError(f"{self.name} needs bench's LLM client, and this run has none")
        config = self.config
        samples = min(config.samples, sample.llm.budget.judges.max_samples_per_judge)
        messages = self.messages(sample)
        llm = sample.llm
        jobs = [self._one(sample, llm, model, i, messages) for model in config.judges for i in range(samples)]
        votes = await self._votes(jobs)
        if len(votes) == 1 and not self.lists_verdicts:
            vote = votes[0]
            details = {"judge": vote.model, "prompt_version": self.version, **vote.details}
            details.update(self.settings_details())
            return Result(vote.passed, vote.score, vote.reason, details)
        return self.combine(votes, clamped=samples < config.samples)

    async def _votes(self, jobs: list[Coroutine[Any, Any, Vote]]) -> list[Vote]:
        """The jobs' votes; a stopped run stops this, else the first error is the evaluator's.

        One job (one model, asked once: the common case) is awaited in this task: a task of
        its own would cost the loop a task's scheduling per judge call."""
        if len(jobs) == 1:
            try:
                return [await jobs[0]]
            except (RunStopped, EvaluatorError):
                raise
            except Exception as exc:
                raise EvaluatorError(f"{self.name}: {type(exc).__name__}: {exc}") from exc
        outcomes = await asyncio.gather(*jobs, return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, RunStopped):
                raise outcome
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                if isinstance(outcome, EvaluatorError):
                    raise outcome
                raise EvaluatorError(f"{self.name}: {type(outcome).__name__}: {outcome}") from outcome
        return [o for o in outcomes if isinstance(o, Vote)]

    def combine(self, votes: list[Vote], clamped: bool) -> Result:
        """One result from the votes: samples by ``aggregate``, then models by ``panel``."""
        config = self.config
        per_model: dict[str, tuple[bool, float]] = {}
        for model in config.judges:
            mine = [v for v in votes if v.model == model]
            yes = sum(v.passed for v in mine)
            if config.aggregate == "majority":
                per_model[model] = (yes * 2 > len(mine), yes / len(mine))
            else:
                score = statistics.fmean(v.score for v in mine)
                per_model[model] = (self.passes(score), score)
        passes = [p for p, _ in per_model.values()]
        scores = [s for _, s in per_model.values()]
        if len(per_model) == 1:
            passed, score = passes[0], scores[0]
        elif config.panel == "majority":
            passed, score = sum(passes) * 2 > len(passes), statistics.fmean(scores)
        elif config.panel == "unanimous":
            passed = all(passes)
            score = max(scores) if self.threshold_direction == "max" else min(scores)
        else:
            score = statistics.median(scores) if config.panel == "median" else statistics.fmean(scores)
            passed = self.passes(score)
        all_scores = [v.score for v in votes]
        details: dict[str, Any] = {
            "prompt_version": self.version,
            "verdicts": [
                {
                    "model": v.model,
                    "sample": v.sample,
                    "passed": v.passed,
                    "score": round(v.score, 4),
                    "reason": v.reason,
                    **v.details,
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
        details.update(self.settings_details())
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


__all__ = ["Judge", "JudgeConfig", "TemplateJudgeConfig", "Vote", "framed"]
