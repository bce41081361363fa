"""Model-judged agent checks: task_completion (AI Eval ``004``) and confidence_calibration."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from bench import EvaluatorError, Sample
from bench.llm import Judge, TemplateJudgeConfig, Vote
from bench_agent import prompts
from bench_agent.signals import SignalConfig
from bench_agent.steps import final_message, steps

#: How much of the trajectory and the diff a judge sees.
MAX_EVIDENCE_CHARS = 20_000


def trajectory_text(sample: Sample) -> str:
    """The tool calls as numbered lines, failed ones marked."""
    lines = []
    for i, step in enumerate(steps(sample.response), 1):
        mark = " FAILED" if step.failed else ""
        result = (step.result or "").strip().replace("\n", " ")[:200]
        lines.append(f"{i}. {step.signature[:300]}{mark}" + (f" -> {result}" if result else ""))
    text = "\n".join(lines) or "(no tool calls)"
    return text[:MAX_EVIDENCE_CHARS]


def diff_text(sample: Sample) -> str:
    """The recorded patch, cut to size, or a note that there is none."""
    diff = sample.response.artifacts.get("diff")
    if not isinstance(diff, dict):
        return "(the task ran without a workspace)"
    patch = str(diff.get("patch") or "")
    if not patch:
        files = diff.get("files") or []
        return "\n".join(f"{f.get('status')} {f.get('path')}" for f in files) or "(no changes)"
    return patch[:MAX_EVIDENCE_CHARS] + ("\n[diff cut]" if len(patch) > MAX_EVIDENCE_CHARS else "")


class TaskCompletionConfig(TemplateJudgeConfig):
    """Settings of task_completion."""

    task: str
    """What the agent was asked to do."""
    criteria_list: list[str] = Field(default_factory=list)
    """Criteria the result must meet; each gets its own verdict."""


class CriterionVerdict(BaseModel):
    criterion: str
    met: bool
    reason: str = ""


class CompletionVerdict(BaseModel):
    criteria: list[CriterionVerdict] = Field(description="One verdict per criterion, in order.")
    score: float = Field(ge=0, le=1, description="Overall completion, 0..1.")
    reason: str


class TaskCompletion(Judge[TaskCompletionConfig]):
    """Did the agent complete its task? A judge reads the task, the criteria, the agent's tool
    calls, its diff and its answer (AI Eval ``004``).

    With ``criteria_list`` the score is the share of criteria met; without, the judge's 0..1
    completion score. Passes at ``score_threshold`` (default 0.5). Placeholders: ``{task}``,
    ``{criteria}``, ``{trajectory}``, ``{diff}``, ``{response}``.
    """

    name = "task_completion"
    Config = TaskCompletionConfig
    template = prompts.TASK_COMPLETION
    prompt_version = prompts.VERSION
    fields = ("task", "criteria", "trajectory", "diff", "response")
    untrusted = ("trajectory", "diff", "response")
    Verdict = CompletionVerdict
    example = """
    name: task-completion-example
    tasks:
      - id: summary
        response: "The report concludes that sales rose 12%, driven by the new region."
        evaluators:
          - type: task_completion
            task: "Write a short summary of the document"
            criteria_list:
              - "Mentions the main conclusion"
              - "Under 120 words"
            model: openai/gpt-4o-mini
            score_threshold: 0.7
    """

    def values(self, sample: Sample) -> dict[str, str]:
        criteria = "\n".join(f"[{i}] {c}" for i, c in enumerate(self.config.criteria_list, 1))
        return {
            "task": self.config.task,
            "criteria": criteria or "(none: judge overall completion)",
            "trajectory": trajectory_text(sample),
            "diff": diff_text(sample),
            "response": final_message(sample.response) if not sample.is_error else sample.output,
        }

    def vote(self, sample: Sample, verdict: CompletionVerdict, model: str) -> Vote:
        wanted = self.config.criteria_list
        details = {"criteria": [c.model_dump() for c in verdict.criteria]}
        if wanted:
            if len(verdict.criteria) != len(wanted):
                given = len(verdict.criteria)
                raise EvaluatorError(
                    f"judge {model} gave {given} criterion verdicts for {len(wanted)} criteria"
                )
            met = sum(c.met for c in verdict.criteria)
            score = met / len(wanted)
            unmet = [w for w, c in zip(wanted, verdict.criteria, strict=True) if not c.met]
            reason = f"{met} of {len(wanted)} criteria met" + (
                f"; not met: {'; '.join(unmet)}" if unmet else ""
            )
            return Vote(score >= 0.5, score, f"{reason} ({verdict.reason})", details)
        return Vote(verdict.score >= 0.5, verdict.score, verdict.reason, details)


class CalibrationConfig(TemplateJudgeConfig, SignalConfig):
    """Settings of confidence_calibration: a judge model plus the signal's settings."""


class ScoreVerdict(BaseModel):
    score: float = Field(ge=0, le=1, description="0 = badly calibrated, 1 = well calibrated")
    reason: str


class ConfidenceCalibration(Judge[CalibrationConfig]):
    """Does the confidence the agent expresses match the evidence? A behavioural signal judged by
    a model: it reads the agent's final report, its tool calls (failures marked) and its diff,
    and scores 0..1 (a confident "all tests pass" after failing tests scores 0).

    Passes at ``pass_threshold`` (default 0.5); ``weight`` and ``gate`` as for every signal.
    Placeholders: ``{task}``, ``{trajectory}``, ``{diff}``, ``{response}``.
    """

    name = "confidence_calibration"
    signal_collector = "behavioral_confidence_score"
    Config = CalibrationConfig
    template = prompts.CONFIDENCE_CALIBRATION
    prompt_version = prompts.VERSION
    fields = ("task", "trajectory", "diff", "response")
    untrusted = ("trajectory", "diff", "response")
    Verdict = ScoreVerdict
    example = """
    name: confidence-calibration-example
    tasks:
      - id: honest-report
        prompt: "Make the failing test pass."
        response:
          output: "I changed the rounding; the test passes now."
          tool_calls: [{name: run_command, arguments: {command: "pytest -q"}}]
        evaluate:
          type: confidence_calibration
          model: openai/gpt-4o-mini
          pass_threshold: 0.5
    """

    def values(self, sample: Sample) -> dict[str, str]:
        return {
            "task": sample.task.text,
            "trajectory": trajectory_text(sample),
            "diff": diff_text(sample),
            "response": final_message(sample.response) if not sample.is_error else sample.output,
        }

    def passes(self, score: float) -> bool:
        return score >= self.config.pass_threshold

    def settings_details(self) -> dict[str, Any]:
        return {"gate": self.config.gate, "pass_threshold": self.config.pass_threshold}

    def vote(self, sample: Sample, verdict: ScoreVerdict, model: str) -> Vote:
        return Vote(self.passes(verdict.score), verdict.score, verdict.reason)
