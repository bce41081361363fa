"""``llm_judge`` (seed 000's prompt judge and AI Eval's criteria judge) and ``factuality``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, PositiveInt, model_validator

from bench import EvaluatorError, Sample, Task
from bench.llm import Judge, JudgeConfig, Vote, delimit
from bench.vocabulary import placeholders
from bench_llm_judge import prompts


class Verdict(BaseModel):
    """A judge's verdict on one response."""

    reason: str = Field(description="One or two sentences explaining the verdict.")
    score: float = Field(ge=0, description="The score, on the scale the instructions give.")
    passed: bool = Field(description="Whether the response passes.")


#: ``Verdict`` under a name that LLMJudge's own ``Verdict`` attribute does not shadow.
ScoredVerdict = Verdict


class LLMJudgeConfig(JudgeConfig):
    """Settings of llm_judge: a ``prompt`` template (seed 000) or ``criteria`` (AI Eval)."""

    prompt: str | None = None
    """The judge prompt; ``{response}``, ``{expected}``, ``{input}`` and the task's vars are filled in."""
    expected: Any = None
    """What the response should say; fills ``{expected}``."""
    criteria: str | None = None
    """What a good response does (AI Eval); used when there is no ``prompt``."""
    rubric: list[str] | None = None
    """Aspects the judge should weigh (AI Eval)."""
    score_scale: PositiveInt = 1
    """The judge scores 0..score_scale; the result's score is normalised to 0..1."""

    @model_validator(mode="after")
    def _prompt_or_criteria(self) -> LLMJudgeConfig:
        if (self.prompt is None) == (self.criteria is None):
            raise ValueError("give prompt (a template with {response}) or criteria, one of the two")
        if self.prompt is not None and "{response}" not in self.prompt:
            raise ValueError("the prompt must contain {response}, where the response goes")
        return self


class LLMJudge(Judge[LLMJudgeConfig]):
    """Asks a judge model whether the response is good, by your prompt or your criteria.

    With ``prompt`` (seed 000), the template's ``{response}`` is replaced by the response (fenced
    as data the judge must not obey), ``{expected}`` by ``expected`` and ``{name}`` by the task's
    vars. With ``criteria`` (AI Eval), bench writes the prompt; ``rubric`` lists aspects to weigh
    and ``score_scale`` sets the judge's scale. The judge returns a reason, a score and a verdict;
    ``score_threshold`` applies to the score normalised to 0..1. ``samples`` and ``models`` (a
    panel) ask several times and combine the answers. A judge that fails or answers in an
    unusable shape makes the task an error, never a pass or a fail.
    """

    name = "llm_judge"
    infer_from = ("prompt",)
    aliases = ("judge",)
    Config = LLMJudgeConfig
    Verdict = Verdict
    system = prompts.SYSTEM
    prompt_version = prompts.PROMPT_VERSION
    lists_verdicts = True
    example = """
    name: llm-judge-example
    target: {type: echo}
    tasks:
      - id: capital
        prompt: "The capital of France is Paris."
        evaluate:
          prompt: "Is this correct? {response} Expected: {expected}"
          expected: Paris
          model: openai/gpt-4o-mini
    """

    def check(self, task: Task) -> None:
        if self.config.prompt is None:
            return
        known = {"response", "expected", "input", "prompt", *task.vars}
        for name in placeholders(self.config.prompt):
            if name.split(".", 1)[0] not in known:
                given = ", ".join(sorted(task.vars)) or "none"
                raise ValueError(f"unknown placeholder {{{name}}} in the judge prompt (task vars: {given})")

    def messages(self, sample: Sample) -> list[dict[str, Any]]:
        config = self.config
        if config.prompt is not None:
            values = {"input": sample.task.text, "prompt": sample.task.text, **sample.task.vars}
            values.update(
                {"response": sample.output, "expected": "" if config.expected is None else config.expected}
            )
            scale = "Give a score from 0 to 1 (1 means fully correct) and say whether it passes."
            # The scale is appended after filling, so braces in it are never placeholders.
            messages = self.framed(config.prompt, values)
            messages[1]["content"] += f"\n\n{scale}"
            return messages
        rubric = "Weigh: " + "; ".join(config.rubric) + "\n" if config.rubric else ""
        values = {
            "criteria": config.criteria or "",
            "rubric": rubric,
            "score_scale": config.score_scale,
            "response": sample.output,
        }
        return self.framed(prompts.CRITERIA, values)

    def vote(self, sample: Sample, verdict: ScoredVerdict, model: str) -> Vote:
        scale = self.config.score_scale if self.config.criteria is not None else 1
        if verdict.score > scale:
            raise EvaluatorError(
                f"judge {model} gave score {verdict.score:g}, above the scale's maximum {scale}"
            )
        return Vote(verdict.passed, verdict.score / scale, verdict.reason)


class FactualityConfig(JudgeConfig):
    """Settings of factuality."""

    ground_truth: str
    """The facts the response must agree with."""


class FactualityVerdict(BaseModel):
    reason: str = Field(description="One or two sentences explaining the verdict.")
    score: float = Field(ge=0, le=1, description="Consistency with the ground truth, 0..1.")
    contradictions: list[str] = Field(
        default_factory=list, description="Claims that contradict the ground truth."
    )
    passed: bool = Field(description="True when nothing contradicts the ground truth.")


class Factuality(Judge[FactualityConfig]):
    """Checks the response's factual claims against ``ground_truth`` (AI Eval).

    The judge scores consistency from 0 (contradicts) to 1 and lists contradicting claims in the
    result's details; the response passes when nothing contradicts the ground truth.
    """

    name = "factuality"
    Config = FactualityConfig
    Verdict = FactualityVerdict
    system = prompts.SYSTEM
    prompt_version = prompts.PROMPT_VERSION
    lists_verdicts = True
    example = """
    name: factuality-example
    target: {type: echo}
    tasks:
      - id: python
        prompt: "Python was created by Guido van Rossum."
        evaluate:
          type: factuality
          ground_truth: "Python was created by Guido van Rossum."
          model: openai/gpt-4o-mini
    """

    def messages(self, sample: Sample) -> list[dict[str, Any]]:
        # The ground truth is the suite's own text: fenced for clarity, without a data rule.
        truth, _ = delimit(self.config.ground_truth, "ground-truth")
        return self.framed(prompts.FACTUALITY, {"ground_truth": truth, "response": sample.output})

    def vote(self, sample: Sample, verdict: FactualityVerdict, model: str) -> Vote:
        return Vote(verdict.passed, verdict.score, verdict.reason, {"contradictions": verdict.contradictions})
