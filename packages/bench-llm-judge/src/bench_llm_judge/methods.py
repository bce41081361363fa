"""``agentclash_judge``: AgentClash's per-response judge methods, ``rubric``, ``assertion`` and ``reference``.

The aggregation is AgentClash's (``backend/internal/scoring/judge/assertion.go``, ``rubric.go``):
each model is asked ``samples`` times; an assertion model's verdict is the majority of its YES/NO
answers (a tie is NO), a rubric model's score the median of its normalised scores; several
models combine by ``consensus``. A call that fails counts as an error and an UNKNOWN or
``unable_to_judge`` answer as an abstention; when no model has a verdict, when ``unanimous``
models disagree, or (rubric, reference) when more than half the calls abstained or failed, the
judge has no verdict and the task is an error, never a pass or a fail.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from bench import EvaluatorError, Result, Sample
from bench.llm import Judge, LLMClient, RunStopped, ask_verdict, delimit, framed
from bench_llm_judge import prompts
from bench_llm_judge.agentclash_spec import UNANIMOUS_TOLERANCE, AgentClashJudgeConfig, MethodConfig


class AssertionVerdict(BaseModel):
    """A judge's answer to an assertion about one response."""

    answer: Literal["UNKNOWN", "NO", "YES"] = Field(
        description="YES, NO, or UNKNOWN when it cannot be settled."
    )
    reason: str = Field(description="One sentence explaining the answer.")


class RubricVerdict(BaseModel):
    """A judge's rubric score of one response, or its abstention."""

    reasoning: str = Field(description="A short reasoning for the score.")
    score: float | None = Field(default=None, description="The score on the rubric's scale.")
    unable_to_judge: bool = Field(default=False, description="True when the response cannot be judged.")
    reason: str = Field(default="", description="Why it cannot be judged (with unable_to_judge).")


@dataclass
class Call:
    """One (model, sample) call: its value (a verdict or a normalised score), or why there is none."""

    model: str
    sample: int
    value: Any = None
    reason: str = ""
    error: bool = False


def system_message(config: AgentClashJudgeConfig) -> str:
    """The judge's system message: bench's opening, then the default and the pack's anti-gaming rules."""
    clauses = [*prompts.ANTI_GAMING, *(c.strip() for c in config.anti_gaming_clauses if c.strip())]
    return prompts.SYSTEM + "Rules:\n" + "".join(f"- {c}\n" for c in clauses)


async def ask_all(
    config: AgentClashJudgeConfig,
    llm: LLMClient,
    verdict: type[BaseModel],
    messages: list[dict[str, Any]],
    read: Any,
    samples: int,
) -> list[Call]:
    """Ask every model ``samples`` times; ``read(verdict)`` gives ``(value, reason)``, None: abstain."""
    params = {
        k: v
        for k, v in {"temperature": config.temperature, "max_tokens": config.max_tokens}.items()
        if v is not None
    }

    async def one(model: str, index: int) -> Call:
        try:
            answer, _raw = await ask_verdict(
                llm,
                verdict,
                messages,
                model=model,
                api_base=config.api_base,
                api_key_env=config.api_key_env,
                index=index,
                mode=config.structured,
                params=params,
            )
        except RunStopped:
            raise
        except EvaluatorError as exc:
            return Call(model, index, reason=f"response did not parse: {exc}")
        except Exception as exc:  # a failed call counts as an error, as in AgentClash
            return Call(model, index, reason=f"provider call failed: {exc}", error=True)
        value, reason = read(answer)
        return Call(model, index, value, reason)

    return list(await asyncio.gather(*(one(m, i) for m in config.judges for i in range(samples))))


def spread(values: list[float]) -> float:
    return max(values) - min(values) if values else 0.0


@dataclass
class Aggregate:
    """A judge's combined verdict: a value, or ``None`` with the reason there is none."""

    value: Any
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


def _confidence_from_rate(total: int, failed: int) -> str:
    if total <= 0:
        return "low"
    if failed == 0:
        return "high"
    return "medium" if failed / total < 0.5 else "low"


def aggregate_assertion(config: AgentClashJudgeConfig, calls: list[Call]) -> Aggregate:
    """Per model, the majority of YES/NO (a tie is NO); across models, ``consensus``."""
    tallies: dict[str, dict[str, Any]] = {}
    for c in calls:
        t = tallies.setdefault(c.model, {"yes": 0, "no": 0, "abstain": 0, "errors": 0})
        key = "errors" if c.error else "abstain" if c.value is None else "yes" if c.value else "no"
        t[key] += 1
    verdicts = {}
    for model, t in tallies.items():
        if t["yes"] or t["no"]:
            t["verdict"] = t["yes"] > t["no"]
            verdicts[model] = t["verdict"]
    failed = sum(t["abstain"] + t["errors"] for t in tallies.values())
    details: dict[str, Any] = {"tallies": tallies, "confidence": _confidence_from_rate(len(calls), failed)}
    if not verdicts:
        return Aggregate(None, "every model abstained or errored on assertion", details)
    yes = sum(verdicts.values())
    no = len(verdicts) - yes
    reason = ""
    if len(verdicts) == 1:
        final = next(iter(verdicts.values()))
    else:
        assert config.consensus is not None  # the settings require it with several models
        if config.consensus.aggregation == "majority_vote":
            final = yes > no
            reason = f"majority_vote: {yes}/{len(verdicts)} models YES" + (
                "" if final else " (tie or majority NO → NO)"
            )
        elif yes == len(verdicts) or no == len(verdicts):
            final = yes == len(verdicts)
            reason = f"unanimous: all models {'YES' if final else 'NO'}"
        else:
            return Aggregate(None, f"unanimous required but models disagree: {yes} YES, {no} NO", details)
        if config.consensus.flag_on_disagreement and yes and no:
            details["disagreement"] = True
            reason += f"; models disagree: {yes} YES, {no} NO"
    details["final_verdict"] = final
    return Aggregate(final, reason, details)


def aggregate_rubric(config: AgentClashJudgeConfig, calls: list[Call]) -> Aggregate:
    """Per model, the median score; across models, ``consensus``; unavailable when most calls failed."""
    stats: dict[str, dict[str, Any]] = {}
    for c in calls:
        s = stats.setdefault(c.model, {"samples": [], "abstain": 0, "errors": 0})
        if c.error:
            s["errors"] += 1
        elif c.value is None:
            s["abstain"] += 1
        else:
            s["samples"].append(c.value)
    medians: dict[str, float] = {}
    worst = 0.0
    for model, s in stats.items():
        if s["samples"]:
            s["median"] = statistics.median(s["samples"])
            s["variance"] = statistics.pvariance(s["samples"])
            medians[model] = s["median"]
            worst = max(worst, s["variance"])
    failed = sum(s["abstain"] + s["errors"] for s in stats.values())
    details: dict[str, Any] = {"stats": stats, "variance": worst}
    if not medians:
        return Aggregate(None, "every model abstained or errored on rubric", {**details, "confidence": "low"})
    values = list(medians.values())
    reason = ""
    if len(values) == 1:
        score = values[0]
    else:
        assert config.consensus is not None
        consensus = config.consensus
        if consensus.aggregation == "median":
            score, reason = statistics.median(values), f"median across {len(values)} models"
        elif consensus.aggregation == "mean":
            score, reason = statistics.fmean(values), f"mean across {len(values)} models"
        else:
            threshold = consensus.min_agreement_threshold or UNANIMOUS_TOLERANCE
            if spread(values) > threshold:
                return Aggregate(
                    None,
                    "unanimous required but models disagree: "
                    f"spread {spread(values):.4f} > threshold {threshold:.4f}",
                    {**details, "confidence": "low"},
                )
            score = statistics.fmean(values)
            reason = f"unanimous (spread {spread(values):.4f} ≤ {threshold:.4f})"
        if consensus.flag_on_disagreement and spread(values) > consensus.min_agreement_threshold:
            details["disagreement"] = True
            limit = consensus.min_agreement_threshold
            reason += f"; models disagree: spread {spread(values):.4f} > threshold {limit:.4f}"
    if failed / len(calls) > 0.5:
        return Aggregate(
            None, "more than half of rubric samples abstained or errored", {**details, "confidence": "low"}
        )
    valid = len(calls) - failed
    confidence = "medium" if valid == 1 else "high" if worst < 0.01 else "medium" if worst < 0.05 else "low"
    return Aggregate(score, reason, {**details, "confidence": confidence})


class AgentClashJudge(Judge[MethodConfig]):
    """AgentClash's judge methods on one response: ``rubric``, ``assertion`` (with ``expect``), ``reference``.

    ``rubric`` scores the response on ``score_scale`` (default 1..5), normalised to 0..1;
    ``reference`` does the same with a gold answer shown (``reference``, or the evaluator's
    ``expected_from`` value); ``assertion`` asks YES/NO about a claim and passes when the answer
    is ``expect``. ``samples`` (default 3, at most 10) per model; several ``models`` need
    ``consensus``. Every prompt carries the default anti-gaming rules and the pack's own.
    """

    name = "agentclash_judge"
    Config = MethodConfig
    Verdict = RubricVerdict
    prompt_version = prompts.AGENTCLASH_VERSION
    example = """
    name: agentclash-judge-example
    target: {type: echo}
    tasks:
      - id: capital
        prompt: "The capital of France is Paris."
        evaluate:
          type: agentclash_judge
          mode: assertion
          assertion: The response names Paris as the capital of France.
          model: openai/gpt-4o-mini
    """

    def llm_calls(self) -> list[tuple[str, int]]:
        return [(model, self.config.samples) for model in self.config.judges]

    def reference_text(self, sample: Sample) -> str:
        return (self.config.reference or sample.expected or "").strip()

    def messages(self, sample: Sample) -> list[dict[str, Any]]:
        config = self.config
        system = system_message(config)
        if config.mode == "assertion":
            values = {
                "assertion": config.assertion or "",
                "task": sample.task.text,
                "response": sample.output,
            }
            return framed(prompts.METHOD_ASSERTION, values, ("response",), system)
        scale = config.score_scale
        low, high = (scale.min, scale.max) if scale else (1.0, 5.0)
        reference = ""
        if config.mode == "reference":
            block, _tag = delimit(self.reference_text(sample), "reference")
            reference = prompts.METHOD_REFERENCE.replace("{reference_text}", block)
        values = {
            "rubric": config.rubric or "",
            "low": f"{low:g}",
            "high": f"{high:g}",
            "reference": reference,
            "response": sample.output,
        }
        return framed(prompts.METHOD_RUBRIC, values, ("response",), system)

    def normalise(self, raw: float) -> float:
        scale = self.config.score_scale
        low, high = (scale.min, scale.max) if scale else (1.0, 5.0)
        return min(1.0, max(0.0, (raw - low) / (high - low)))

    async def evaluate(self, sample: Sample) -> Result:
        if sample.llm is None:
            raise EvaluatorError(f"{self.name} needs bench's LLM client, and this run has none")
        config = self.config
        if config.mode == "reference" and not self.reference_text(sample):
            raise EvaluatorError("reference text unavailable: give reference or expected_from")
        samples = min(config.samples, sample.llm.budget.judges.max_samples_per_judge)
        messages = self.messages(sample)
        warnings = []
        if config.mode == "assertion":
            calls = await ask_all(config, sample.llm, AssertionVerdict, messages, _read_assertion, samples)
            result = aggregate_assertion(config, calls)
        else:
            calls = await ask_all(config, sample.llm, RubricVerdict, messages, self._read_rubric, samples)
            result = aggregate_rubric(config, calls)
            words = len((config.rubric or "").split())
            if words < 15:
                warnings.append(
                    f"rubric is fewer than 15 words ({words}); vague rubrics produce inconsistent judgments"
                )
        if result.value is None:
            raise EvaluatorError(f"{self.name} ({config.mode}): {result.reason}")
        details: dict[str, Any] = {
            "mode": config.mode,
            "prompt_version": self.version,
            "samples": samples,
            **result.details,
            "calls": [
                {"model": c.model, "sample": c.sample, "value": c.value, "reason": c.reason} for c in calls
            ],
        }
        if warnings:
            details["warnings"] = warnings
        if config.consensus is not None:
            details["consensus"] = config.consensus.model_dump()
        lead = next((c.reason for c in calls if c.value == result.value), "")
        reason = "; ".join(r for r in (result.reason, lead) if r)
        if config.mode == "assertion":
            details["expected"] = config.expect
            passed = result.value == config.expect
            return Result(passed, 1.0 if passed else 0.0, reason, details)
        return Result(self.passes(result.value), result.value, reason, details)

    def _read_rubric(self, verdict: RubricVerdict) -> tuple[float | None, str]:
        if verdict.unable_to_judge or verdict.score is None:
            return None, "unknown: " + (verdict.reason or verdict.reasoning)
        return self.normalise(verdict.score), verdict.reasoning


def _read_assertion(verdict: AssertionVerdict) -> tuple[bool | None, str]:
    if verdict.answer == "UNKNOWN":
        return None, "unknown: " + verdict.reason
    return verdict.answer == "YES", verdict.reason
