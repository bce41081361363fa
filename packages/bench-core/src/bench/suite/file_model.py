"""Pydantic models of the suite file as a user writes it (before evaluators are resolved)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveFloat,
    PositiveInt,
    field_validator,
)

from bench.llm.settings import JudgeLimits, LLMSettings, Pricing, RuntimeLimits
from bench.scoring.scorecard import MAX_WEIGHT, MetricDeclaration, Scorecard
from bench.target import ResourceTag
from bench.vocabulary.models import MIB, AfterTask, CaptureCheck, Conversation, Message, Response, ToolMock


class Strict(BaseModel):
    # allow_inf_nan: YAML's .inf and .nan are numbers to PyYAML, never sensible settings (N08).
    model_config = ConfigDict(defer_build=True, extra="forbid", allow_inf_nan=False)


class Defaults(Strict):
    """Values every task inherits unless it sets its own."""

    timeout: PositiveFloat | None = None
    #: Resource tags every task needs besides its own ``resources:``.
    resources: list[ResourceTag] = Field(default_factory=list)
    vars: dict[str, Any] = Field(default_factory=dict)
    workspace: str | None = None


class PromptEntry(Strict):
    """One of the suite's ``prompts:``: a ``{name}`` template, inline or in a file, and its label."""

    #: What results and reports name the variant by (default: the file, else ``prompt N``).
    label: str | None = Field(default=None, min_length=1)
    template: str | None = None
    #: A file holding the template, relative to the suite's folder.
    file: str | None = Field(default=None, min_length=1)


class SuiteFile(Strict):
    """The top level of a suite file."""

    #: Where editors find the suite's JSON Schema (``bench schema``); bench ignores it.
    schema_: str | None = Field(default=None, alias="$schema")
    name: str | None = None
    description: str | None = None
    version: str | None = None
    target: dict[str, Any] | None = None
    #: Several targets, each with a unique ``label``: a task runs on the one its ``target:``
    #: names, or on each of them when it names none (its id then ends in ``[label]``).
    targets: list[dict[str, Any]] | None = Field(default=None, min_length=1)
    #: Prompt variants: each task runs once per prompt (and per target), its id ending in
    #: ``[label]``; a template sees the task's vars and its own prompt as ``{prompt}``.
    prompts: list[str | PromptEntry] | None = Field(default=None, min_length=1)
    defaults: Defaults = Field(default_factory=Defaults)
    #: Values every task's ``vars`` start from (a task's own vars and ``--var`` win).
    vars: dict[str, Any] = Field(default_factory=dict)
    concurrency: PositiveInt | None = None
    #: Run every task this many times (``--repeat`` overrides it).
    repeat: PositiveInt | None = None
    #: Judge each task over its repeats: it passes when pass@k reaches this (AI Eval's trials).
    pass_at_k: float | None = Field(default=None, ge=0, le=1)
    evaluators: dict[str, Any] = Field(default_factory=dict)
    tasks: list[Any] | str
    llm: LLMSettings = Field(default_factory=LLMSettings)
    pricing: Pricing = Field(default_factory=Pricing)
    runtime_limits: RuntimeLimits = Field(default_factory=RuntimeLimits)
    judge_limits: JudgeLimits = Field(default_factory=JudgeLimits)
    #: AgentClash: which kinds of evaluators the suite may use.
    judge_mode: Literal["deterministic", "llm_judge", "hybrid"] | None = None
    #: AgentClash: named metrics (a collector under a key) for scorecard dimensions.
    metrics: list[MetricDeclaration] = Field(default_factory=list)
    scorecard: Scorecard | None = None
    #: The calibration bar of every judge that sets none of its own.
    calibration: Calibration | None = None
    #: youBencha: the repository every task runs in (a git URL or a local path) and its branch/ref.
    repo: str | None = None
    branch: str | None = None
    ref: str | None = None
    #: Where each task's workspace is made and kept (relative to the suite), as
    #: ``NAME-YYYY-MM-DD-MS/src-modified``; default: a temporary folder (docs/agents.md).
    workspace_dir: str | None = Field(default=None, min_length=1)
    #: NAME above (default ``run``).
    workspace_name: str | None = Field(default=None, max_length=100, pattern=r"^[a-zA-Z0-9][a-zA-Z0-9._-]*$")
    #: AgentClash: what to capture from each task's workspace after the target ran.
    post_execution_checks: list[CaptureCheck] = Field(default_factory=list)
    #: Cap on all bytes captured from one run of a task.
    max_capture_bytes: PositiveInt = 10 * MIB
    #: A command run after each task is decided, in its workspace (docs/plugins.md).
    after_task: AfterTask | None = None
    #: Cap on the response text evaluators see and reports keep (the head; full size and sha256
    #: are recorded).
    max_response_bytes: PositiveInt = 10 * MIB


class TaskSpec(Strict):
    """One task as written: its input, optional recorded response and its evaluators."""

    id: str
    description: str | None = None
    prompt: str | None = None
    input: str | list[Message] | dict[str, Any] | None = None
    vars: dict[str, Any] = Field(default_factory=dict)
    response: str | Response | None = None
    timeout: PositiveFloat | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: Labels that ``bench run -k`` selects on (``-k "math and not slow"``).
    tags: list[str] = Field(default_factory=list)
    #: Resource tags the task needs where it runs (``container``, ``gpu``, a custom one): an
    #: executor with worker pools runs it only on a pool that provides them (docs/scale.md).
    resources: list[ResourceTag] = Field(default_factory=list)
    evaluate: str | dict[str, Any] | list[str | dict[str, Any]] | None = None
    evaluators: list[dict[str, Any]] | None = None
    expected: Any = None
    #: AgentClash case fields, read by evidence references (``case.inputs.name``).
    inputs: dict[str, Any] = Field(default_factory=dict)
    expectations: dict[str, Any] = Field(default_factory=dict)
    #: A directory (relative to the suite) that file evaluators read.
    workspace: str | None = None
    #: Run this task this many times (default: the suite's ``repeat``, else 1).
    repeat: PositiveInt | None = None
    #: Judge this task over its repeats by pass@k (default: the suite's ``pass_at_k``).
    pass_at_k: float | None = Field(default=None, ge=0, le=1)
    #: The ``label`` of the suite's ``targets:`` entry that runs this task (default: each of them).
    target: str | None = None
    #: The ``label`` of the suite's ``prompts:`` entry this task runs on (default: each of them);
    #: in a suite without ``prompts:``, the label of the variant the task's own prompt is.
    prompt_label: str | None = Field(default=None, min_length=1)
    #: Tasks with the same ``group`` are decided together by evaluators that compare the rows of
    #: a group (default: a task's runs on the suite's prompts and targets form its group).
    group: str | None = Field(default=None, min_length=1)
    #: This task's own scorecard (default: the suite's).
    scorecard: Scorecard | None = None
    #: This task's repository, branch and ref (default: the suite's).
    repo: str | None = None
    branch: str | None = None
    ref: str | None = None
    #: Captures for this task, added to the suite's.
    post_execution_checks: list[CaptureCheck] = Field(default_factory=list)
    #: This task's after-task command (default: the suite's).
    after_task: AfterTask | None = None
    #: Tools offered to the model besides the target's own (``litellm``), in either spec form.
    tools: list[dict[str, Any]] = Field(default_factory=list)
    #: Mocked tools answering this task's tool calls, before the target's own (``litellm``).
    tool_mocks: list[ToolMock] = Field(default_factory=list)
    #: The most model turns of this task's mocked tool loop (default: the target's ``max_steps``).
    max_steps: PositiveInt | None = None
    #: A multi-turn task: scripted user turns, a simulated user, or both in phases
    #: (docs/conversations.md).
    conversation: Conversation | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _integer_id(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class Calibration(Strict):
    """A judge's calibration bar: its Cohen's kappa against human labels must reach ``min_kappa``."""

    labels: str
    """Human labels (JSONL or CSV), relative to the suite's folder."""
    min_kappa: float = Field(default=0.6, ge=-1, le=1)


class EvaluatorCommon(Strict):
    """Settings that belong to every evaluator, whatever its type."""

    name: str | None = None
    key: str | None = None
    type: str | None = None
    description: str | None = None
    weight: float = Field(default=1.0, ge=0, le=MAX_WEIGHT)
    #: Scores are on 0..1, so are the thresholds that judge them.
    threshold: float | None = Field(default=None, ge=0, le=1)
    score_threshold: float | None = Field(default=None, ge=0, le=1)
    negate: bool = False
    expect_error: bool = False
    target: str | None = None
    expected_from: str | None = None
    #: A judge only: the labels it is checked against and the bar (``bench run --require-calibration``).
    calibration: Calibration | None = None
    #: A conversation: judge the last assistant reply, each reply, or the whole transcript.
    over: Literal["last_turn", "each_turn", "transcript"] = "last_turn"


class DefinitionFile(Strict):
    """A youBencha evaluator definition file: ``name``, ``description``, ``config``."""

    name: str
    description: str | None = None
    config: dict[str, Any] | None = None
