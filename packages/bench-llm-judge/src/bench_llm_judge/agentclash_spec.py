"""The settings of AgentClash's judge methods (``llm_judges`` in its evaluation spec), checked by its rules.

Defaults, the samples ceiling and the refusal messages are AgentClash's
(``backend/internal/scoring/spec.go`` and ``validation_judges.go``); a message names the field
it is about, as AgentClash's validation errors do.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bench.llm import JudgeConfig

#: AgentClash's ``JudgeMaxSamplesCeiling``: no spec may ask for more samples per model.
MAX_SAMPLES = 10
#: AgentClash's ``JudgeDefaultSamples`` (``samples: 0`` or omitted).
DEFAULT_SAMPLES = 3
MODES = ("rubric", "assertion", "n_wise", "reference")
NUMERIC_MODES = ("rubric", "reference", "n_wise")
#: The default tolerance of numeric ``unanimous`` when ``min_agreement_threshold`` is 0.
UNANIMOUS_TOLERANCE = 0.05


class ScoreScale(BaseModel):
    """The range a rubric or reference judge scores on; normalised to 0..1."""

    model_config = ConfigDict(extra="forbid")
    min: float = 1
    max: float = 5


class Consensus(BaseModel):
    """How the verdicts of several models combine."""

    model_config = ConfigDict(extra="forbid")
    aggregation: str
    """median, mean (numeric modes), majority_vote (assertion) or unanimous (both)."""
    min_agreement_threshold: float = 0
    """The largest spread between the models' scores counted as agreement (0..1)."""
    flag_on_disagreement: bool = False
    """Flag the result when the models disagree, even when the aggregation succeeds."""


class AgentClashJudgeConfig(JudgeConfig):
    """Settings shared by AgentClash's judge methods."""

    samples: int = DEFAULT_SAMPLES
    """Verdicts per model (0 means the default, 3; at most 10)."""
    consensus: Consensus | None = None
    """Required with several ``models``; refused with one."""
    anti_gaming_clauses: list[str] = Field(default_factory=list)
    """Rules added to the judge's built-in anti-gaming rules (which cannot be removed)."""
    timeout_ms: int | None = None
    """Accepted for AgentClash packs; bench's own LLM timeouts apply."""

    #: The mode these settings are for (``agentclash_judge`` reads it from ``mode``).
    fixed_mode: ClassVar[str] = ""

    def effective_mode(self) -> str:
        return self.fixed_mode

    def check_mode(self) -> None:
        """The mode's own fields (AgentClash checks them before the models)."""

    @model_validator(mode="after")
    def _one_judge(self) -> AgentClashJudgeConfig:  # replaces JudgeConfig's check: AgentClash's messages
        self.check_mode()
        mode = self.effective_mode()
        has_one, has_many = bool((self.model or "").strip()), bool(self.models)
        if not has_one and not has_many:
            raise ValueError("model: must set exactly one of model or models")
        if has_one and has_many:
            raise ValueError("models: must set exactly one of model or models, not both")
        for k, name in enumerate(self.models or []):
            if not name.strip():
                raise ValueError(f"models[{k}]: must be a non-empty model identifier")
        if self.samples < 0:
            raise ValueError("samples: must be greater than or equal to 0")
        if self.samples > MAX_SAMPLES:
            raise ValueError(f"samples: must be at most {MAX_SAMPLES}")
        if self.samples == 0:
            self.samples = DEFAULT_SAMPLES
        if has_many and len(self.models or []) > 1:
            if self.consensus is None:
                raise ValueError("consensus: is required when multiple models are declared")
            _check_consensus(mode, self.consensus)
        elif self.consensus is not None:
            raise ValueError("consensus: is only valid when multiple models are declared")
        if self.timeout_ms is not None and self.timeout_ms <= 0:
            raise ValueError("timeout_ms: must be greater than 0")
        return self


def _check_consensus(mode: str, consensus: Consensus) -> None:
    aggregation = consensus.aggregation
    if aggregation not in ("median", "mean", "majority_vote", "unanimous"):
        raise ValueError("consensus.aggregation: must be one of median, mean, majority_vote, unanimous")
    if aggregation in ("median", "mean") and mode == "assertion":
        raise ValueError(
            f'consensus.aggregation: "{aggregation}" aggregation is only valid for numeric modes '
            "(rubric, reference, n_wise)"
        )
    if aggregation == "majority_vote" and mode != "assertion":
        raise ValueError("consensus.aggregation: majority_vote aggregation is only valid for assertion mode")
    if not 0 <= consensus.min_agreement_threshold <= 1:
        raise ValueError("consensus.min_agreement_threshold: must be between 0 and 1")


class MethodConfig(AgentClashJudgeConfig):
    """Settings of ``agentclash_judge``: one of AgentClash's per-response methods."""

    mode: str
    """rubric, assertion or reference (n_wise ranks several runs: the ``n_wise`` type)."""
    rubric: str | None = None
    """What to score (rubric and reference modes)."""
    assertion: str | None = None
    """The claim about the response the judge answers YES or NO to (assertion mode)."""
    expect: bool = True
    """The answer that passes (assertion mode): ``false`` passes when the judge says NO."""
    reference: str | None = None
    """The gold answer (reference mode); without it, the evaluator's ``expected_from`` value."""
    score_scale: ScoreScale | None = None
    """The rubric's range (default 1..5)."""
    output_schema: dict[str, object] | None = None
    """Accepted for AgentClash packs; bench asks for its own structured verdict."""
    context_from: list[str] = Field(default_factory=list)
    """Accepted for AgentClash packs; not read."""

    def effective_mode(self) -> str:
        return self.mode

    def check_mode(self) -> None:
        if self.mode not in MODES:
            raise ValueError("mode: must be one of rubric, assertion, n_wise, reference")
        if self.mode == "n_wise":
            raise ValueError(
                "mode: n_wise ranks the responses of several runs; use it with "
                "bench compare RUN_A RUN_B --judge '{type: n_wise, ...}'"
            )
        if self.mode in ("rubric", "reference") and not (self.rubric or "").strip():
            raise ValueError(f"rubric: is required for {self.mode} mode")
        if self.mode == "assertion" and not (self.assertion or "").strip():
            raise ValueError("assertion: is required for assertion mode")
        if self.score_scale is not None and self.score_scale.min >= self.score_scale.max:
            raise ValueError("score_scale: min must be strictly less than max")
        for name in ("rubric", "assertion"):
            if "${secrets." in (getattr(self, name) or ""):
                raise ValueError(
                    f"{name}: must not contain ${{secrets.*}} references; "
                    "secrets are not allowed in judge prompt text"
                )


class NWiseConfig(AgentClashJudgeConfig):
    """Settings of ``n_wise``: rank several runs' responses to a task at once (AgentClash)."""

    prompt: str | None = None
    """What the ranking is about (required)."""
    position_debiasing: bool = False
    """Rotate the order across samples (needs samples >= the number of responses)."""
    fixed_mode: ClassVar[str] = "n_wise"

    def check_mode(self) -> None:
        if not (self.prompt or "").strip():
            raise ValueError("prompt: is required for n_wise mode")
