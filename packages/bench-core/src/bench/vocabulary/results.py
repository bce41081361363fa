"""Result records: one per evaluator, one per task, and the run's summary."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bench.vocabulary.models import ToolCall, Usage
from bench.vocabulary.run_key import RunKey

TaskStatus = Literal["passed", "failed", "error", "interrupted", "waiting"]
PASSED: TaskStatus = "passed"
FAILED: TaskStatus = "failed"
ERROR: TaskStatus = "error"
INTERRUPTED: TaskStatus = "interrupted"
#: A conversation stopped at a person's turn, its transcript kept: answered, ``--resume`` goes on.
WAITING: TaskStatus = "waiting"
FINISHED_STATUSES = frozenset({PASSED, FAILED})
#: The key of an outcome's ``details`` saying why its check did not apply (a conversation's turn
#: rightly never played): such an outcome is neither a pass nor an error and decides nothing.
NOT_APPLICABLE = "not_applicable"


def verdict_word(outcome: dict[str, Any]) -> str:
    """An outcome's (as a result file keeps it) verdict in a word, for reports: ``error``,
    ``not applicable``, ``passed`` or ``failed``."""
    if outcome.get("error"):
        return "error"
    if NOT_APPLICABLE in (outcome.get("details") or {}):
        return "not applicable"
    return "passed" if outcome.get("passed") else "failed"


def falls_short(outcome: dict[str, Any]) -> bool:
    """Whether an outcome (as a result file keeps it) is an error or a failure: a check that
    did not apply is neither."""
    return verdict_word(outcome) in ("error", "failed")


def _unset(value: Any) -> bool:
    return value is None


class EvaluatorOutcome(BaseModel):
    """One evaluator's verdict on one task. ``error`` set means no verdict was reached."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    name: str
    type: str
    passed: bool
    score: float | None = None
    reason: str = ""
    error: str | None = None
    weight: float = 1.0
    details: dict[str, Any] = Field(default_factory=dict)


class TaskResult(BaseModel):
    """A finished task: its response, every evaluator's verdict and the overall status."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    id: str
    #: Which run of the task this is (0..repeat-1).
    repeat: int = 0
    status: TaskStatus
    passed: bool
    score: float | None = None
    response: str | None = None
    #: ``response`` is incomplete; ``truncation`` says why (a token limit, a cut stream, a cap).
    truncated: bool = False
    truncation: str | None = None
    #: Size in bytes and sha256 of the whole response, when ``response`` is not all of it.
    response_bytes: int | None = None
    response_sha256: str | None = None
    error: str | None = None
    evaluators: list[EvaluatorOutcome] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    duration_ms: float = 0.0
    digest: str = ""
    #: The scorecard's verdict, when the suite or task has one (it decides ``passed``).
    scorecard: dict[str, Any] | None = None
    #: The task's workspace, when it ran in one: the change (files, lines), escapes, captures.
    workspace: dict[str, Any] | None = None
    # What the task asked (execution/inputs.py), so a reader puts the question next to its answer.
    #: The rendered prompt (its head when over the cap: then ``prompt_bytes``/``prompt_sha256``).
    prompt: str | None = None
    prompt_bytes: int | None = None
    prompt_sha256: str | None = None
    #: The task's chat input, when it is a conversation.
    messages: list[dict[str, Any]] | None = None
    vars: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    tags: list[str] = Field(default_factory=list)
    #: The target that answered: ``type``, and ``model`` and ``label`` when it has them.
    target: dict[str, Any] | None = None
    #: The prompt variant (the suite's ``prompts:``) the task ran on, when it ran on one.
    prompt_label: str | None = Field(default=None, exclude_if=_unset)
    #: Inputs left out for being over the cap: name -> {bytes, sha256}.
    input_omitted: dict[str, dict[str, Any]] | None = None
    # Written only when set, so records without them read as before.
    #: The response's OpenAI-style messages (an imported trace's steps), when the run kept them.
    trajectory: list[dict[str, Any]] | None = Field(default=None, exclude_if=_unset)
    #: What another tool recorded of this task beside bench's fields (``bench import``): its
    #: name, its own verdict and scores, and its row's fields bench has no place for.
    imported: dict[str, Any] | None = Field(default=None, exclude_if=_unset)
    #: A conversation's transcript: ``messages`` (OpenAI-style), ``turns`` (who spoke each user
    #: turn, tool calls) and ``simulator`` (the simulated user's calls, cached ones apart).
    conversation: dict[str, Any] | None = Field(default=None, exclude_if=_unset)
    #: What went wrong with the task's ``after_task`` command (``timed out after 60 s``, ``exited
    #: with code 3``, ``cannot start ...``); it never changes the verdict. Unset when it went well.
    after_task: str | None = Field(default=None, exclude_if=_unset)

    @property
    def key(self) -> str:
        """What the run store files this result under: the id, then ``id@N`` for repeat N > 0."""
        return RunKey(self.id, self.repeat).key()


@dataclass
class Summary:
    """Counts of task outcomes in a run."""

    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    interrupted: int = 0
    #: Conversations waiting for a person's turn (docs/conversations.md).
    waiting: int = 0
    #: Tasks never started (the run was interrupted or stopped by a budget first).
    not_run: int = 0

    def add(self, status: str) -> None:
        self.total += 1
        if status == PASSED:
            self.passed += 1
        elif status == FAILED:
            self.failed += 1
        elif status == ERROR:
            self.errors += 1
        elif status == WAITING:
            self.waiting += 1
        else:
            self.interrupted += 1

    def moved(self, before: str, after: str) -> None:
        """A task counted as ``before`` is ``after`` now (its group re-decided it)."""
        for status, step in ((before, -1), (after, 1)):
            if status == PASSED:
                self.passed += step
            elif status == FAILED:
                self.failed += step
            elif status == ERROR:
                self.errors += step
            else:
                self.interrupted += step

    def as_dict(self) -> dict[str, int]:
        return {
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "interrupted": self.interrupted,
            **({"waiting": self.waiting} if self.waiting else {}),
            **({"not_run": self.not_run} if self.not_run else {}),
        }


@dataclass
class RunReport:
    """What reporters receive: the run's identity, its summary and a way to read each result.

    ``tasks`` is a callable returning a fresh iterator of task results as plain dicts in suite
    order, so a reporter streams them instead of holding a whole large run in memory;
    ``task_lines`` gives the same results as JSON text, for writers that copy them verbatim.
    """

    suite: str
    run_id: str
    summary: Summary
    tasks: Callable[[], Iterator[dict[str, Any]]]
    started_at: str = ""
    finished_at: str = ""
    duration_s: float = 0.0
    stopped: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    task_lines: Callable[[], Iterator[str]] | None = None

    @property
    def failures(self) -> int:
        """What fails the run: failed runs, with tasks judged by pass@k counted by their verdict."""
        judged = self.extra.get("pass_at_k")
        if not judged:
            return self.summary.failed
        return self.summary.failed - int(judged["failed_runs"]) + int(judged["failed"])

    @property
    def passed(self) -> bool:
        s = self.summary
        if self.extra.get("pass_at_k"):
            done = s.total > 0 and not s.errors and not s.interrupted and not s.waiting
            return done and self.failures == 0
        return s.total > 0 and s.passed == s.total

    def head(self) -> dict[str, Any]:
        """The run's identity and summary: every field of a JSON report but ``tasks``."""
        return {
            "suite": self.suite,
            "run_id": self.run_id,
            "passed": self.passed,
            "summary": self.summary.as_dict(),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "duration_s": round(self.duration_s, 3),
            "stopped": self.stopped,
            **self.extra,
        }

    def lines(self) -> Iterator[str]:
        """Each task's result as JSON text, in suite order (``task_lines`` when given)."""
        from bench.vocabulary import jsonio

        return self.task_lines() if self.task_lines else map(jsonio.dumps, self.tasks())
