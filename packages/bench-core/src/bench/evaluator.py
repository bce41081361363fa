"""The evaluator API plugin authors implement: a config model and an evaluate method."""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import ConfigDict

from bench.evidence import Evidence
from bench.vocabulary.documented import Documented
from bench.vocabulary.models import Response, Task

if TYPE_CHECKING:
    from bench.llm.client import LLMClient


class EvaluatorConfig(Documented):
    """Base of every evaluator's settings; unknown fields are errors."""

    # defer_build: a type's schema is built when a suite first uses it, not at start-up.
    # allow_inf_nan: YAML's .inf and .nan are never a sensible setting (RELIABILITY N08).
    model_config = ConfigDict(extra="forbid", defer_build=True, allow_inf_nan=False)


@dataclass(frozen=True)
class Sample:
    """What an evaluator judges: the task, the full response and the text under evaluation.

    ``output`` is the response text, or the error text when the task expected an error; with a
    ``target:`` evidence reference it is the referenced value instead. ``expected`` is the value
    of the evaluator's ``expected_from:`` reference, when it has one.
    """

    task: Task
    response: Response
    output: str
    is_error: bool = False
    #: The run's LLM client; LLM-backed evaluators make every model call through it.
    llm: LLMClient | None = None
    expected: str | None = None
    #: The ``expected_from`` value as data (a list of references stays a list).
    expected_value: Any = None
    #: The evaluator's ``target:`` reference, for types that resolve it themselves.
    target: str | None = None
    #: How long the target took to answer (ms): the latency the system reported, else the
    #: runner's timing of the call; ``None`` for a recorded ``response:``.
    latency_ms: float | None = None

    @property
    def evidence(self) -> Evidence:
        """Resolves further evidence references (``file:``, ``artifact.*``, ...) for this sample."""
        return Evidence(self.task, self.response, self.output)


@dataclass
class Result:
    """An evaluator's verdict. ``score`` is on 0..1 or ``None`` when the check has no degree."""

    passed: bool
    score: float | None = None
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)


ConfigT = TypeVar("ConfigT", bound=EvaluatorConfig)


class Evaluator(Generic[ConfigT]):
    """Base class of an evaluator type.

    Subclasses set ``name`` (and optionally ``aliases``), a nested ``Config`` model whose fields
    are the type's settings, and implement ``evaluate`` (plain or ``async``). One instance is made
    per evaluator written in a suite and shared by every task that uses it, so ``evaluate`` must
    not keep per-task state on ``self``.
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    Config: ClassVar[type[EvaluatorConfig]] = EvaluatorConfig
    #: "min": ``threshold`` is the lowest passing score; "max": the highest (toxicity, bias).
    threshold_direction: ClassVar[Literal["min", "max"]] = "min"
    #: True for types whose ``prepare`` should receive samples in batches before evaluation.
    batches: ClassVar[bool] = False
    #: True for types that report suite-level figures (``aggregate_rows``).
    aggregates: ClassVar[bool] = False
    #: True for types that re-decide a group's rows together once they all ran (``evaluate_group``).
    groups: ClassVar[bool] = False
    #: True for types that resolve their own ``target:`` (a missing file is a verdict for them).
    resolves_target: ClassVar[bool] = False
    #: For a plain (sync) ``evaluate`` that can be slow on big input: above this many characters
    #: of input (the output plus the expected text) it runs in a worker process that the evaluator
    #: deadline, or an interrupted run, kills (0: always). ``None``: it runs on the event loop.
    #: The worker gets a copy of the instance, so ``evaluate`` must keep no state on ``self``;
    #: stateful types call ``bench.execution.killable.run_killable`` on their slow part instead.
    isolate_above: ClassVar[int | None] = None
    #: A complete suite (YAML) that uses this type; the reference docs show it and tests run it.
    example: ClassVar[str] = ""
    #: Modules the example needs beyond the plugin's own dependencies (an optional extra).
    example_requires: ClassVar[tuple[str, ...]] = ()
    #: Files the example needs next to the suite (relative path -> text).
    example_files: ClassVar[dict[str, str]] = {}
    #: Settings that name a host path relative to ``folder``. Set in a row of a tasks file (data,
    #: not the trusted suite file), such a path must stay inside the suite's folder (B06).
    path_settings: ClassVar[tuple[str, ...]] = ()
    #: Settings that select this type for a mapping written without ``type:`` (bench's shorthand:
    #: ``{prompt: ...}`` is an LLM judge). When keys of several types are present, the type whose
    #: settings accept all of them is chosen. Subclasses inherit it: set ``()`` to opt out.
    infer_from: ClassVar[tuple[str, ...]] = ()
    #: AI Eval's task-level ``expected:`` block: the setting that the block's entry named after this
    #: type fills (``value``). The type then checks that entry, and an ``evaluators:`` entry of this
    #: type without its own value takes it from the block. Subclasses inherit it: set ``None`` to opt out.
    expected_block: ClassVar[str | None] = None
    #: Settings whose text is filled from the task's vars at load, as a prompt is (``{name}``):
    #: the value a check compares with, so one evaluator serves tasks whose vars differ
    #: (``value: "{capital}"``). Text, or a list of texts; set ``()`` to opt out.
    var_settings: ClassVar[tuple[str, ...]] = ("value", "expected")
    #: Of the ``var_settings``, those that hold regular expressions: a var's value goes in escaped
    #: (``re.escape``), so ``{city}`` with ``St. Louis`` matches that text only.
    var_patterns: ClassVar[tuple[str, ...]] = ()
    #: Behavioural signals set this: the metric collector their score is published under
    #: (``behavioral_recovery_score``). A scorecard's ``behavioral`` dimension weighs every
    #: evaluator of a type that sets it.
    signal_collector: ClassVar[str | None] = None
    #: Resource tags an executor may route on (``"gpu"``: it runs a local model that a GPU speeds
    #: up); the ray executor sends the tasks judged by it to a worker pool of that tag.
    needs: ClassVar[frozenset[str]] = frozenset()
    #: True for types that hold several checks, some model-graded: in an offline run they are
    #: called even when a model they name is remote, run the checks that need none, and skip the
    #: others themselves (``bench.llm.offline_skip``). Other types that call a remote model are
    #: skipped whole, with the reason (docs/offline.md).
    skips_offline_checks: ClassVar[bool] = False
    #: The folder of the file that configured this evaluator (a suite, a definition file);
    #: relative paths in its settings start here. None for one built outside a suite.
    folder: Path | None = None

    def __init__(self, config: ConfigT) -> None:
        self.config = config

    @classmethod
    def configured(cls, config: ConfigT, folder: Path | None) -> Evaluator[ConfigT]:
        """An instance as a suite makes one: ``folder`` is set before ``__init__`` runs, so an
        ``__init__`` may read ``self.folder``, and a subclass's ``__init__`` still takes ``config``
        alone."""
        instance = cls.__new__(cls)
        instance.folder = folder
        cls.__init__(instance, config)
        return instance

    def check(self, task: Task) -> None:
        """Refuse, at validate time, a task this evaluator cannot judge (raise ValueError)."""

    def resource_needs(self) -> frozenset[str]:
        """This configured evaluator's resource tags: ``needs``, unless its settings change them
        (a model computed by an API needs no GPU here)."""
        return self.needs

    def in_groups(self) -> bool:
        """Whether this configured evaluator re-decides its groups (``evaluate_group``): ``groups``,
        unless its settings say otherwise (a type whose comparisons are optional)."""
        return self.groups

    def llm_calls(self) -> list[tuple[str, int]]:
        """(model, calls per task) this evaluator makes; used for dry runs and price checks."""
        return []

    @classmethod
    async def prepare(cls, items: list[tuple[Evaluator[Any], Sample]]) -> None:
        """Receive many samples at once, before they are evaluated one by one.

        For types that set ``batches = True`` the runner reads tasks ahead in chunks and calls this
        with every (evaluator instance, sample) pair of the chunk whose response is already known —
        across tasks and instances — so expensive work (encoding sentences, say) is done in
        batches and ``evaluate`` finds it done. An error here is ignored: ``evaluate`` redoes the
        work and reports it.
        """

    @classmethod
    def aggregate_rows(cls, config: Any, rows: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
        """Suite-level figures (corpus BLEU, say) from what this evaluator recorded for each task.

        Called once per evaluator name at the end of a run, for types with ``aggregates = True``.
        ``config`` is the evaluator's settings; ``rows`` streams, in plan order, the stored outcome
        record (``name``, ``type``, ``passed``, ``score``, ``reason``, ``details``) of every task of
        the run where it reached a verdict, tasks kept by ``--resume`` included. Put what the figures
        need into ``details`` (a score, or mergeable statistics such as n-gram counts) and reduce
        ``rows`` as they come: nothing of the run is held in the instances.
        """
        return None

    @classmethod
    def aggregate(cls, instances: list[Evaluator[Any]]) -> dict[str, Any] | None:
        """Deprecated: suite-level figures from the state of the instances that ran.

        Used only for a type with ``aggregates = True`` that does not override ``aggregate_rows``.
        It sees the tasks evaluated by this process only (after ``--resume``, the re-run ones), and
        the runner keeps one instance per task for it; implement ``aggregate_rows`` instead.
        """
        return None

    def evaluate_group(
        self, rows: list[tuple[Sample, Result | None]]
    ) -> list[Result | None] | Awaitable[list[Result | None]]:
        """Re-decide a group's rows together, for types with ``groups = True``: one verdict per
        row, in order, which replaces this evaluator's verdict on that row (None: keep it).

        Each row is a ``Sample`` (the task; the stored response text, or its error) with the run's
        LLM client, and this evaluator's own verdict on the row (None where it reached none).

        A group is the runs of one task on every prompt and target column (tasks that share a
        ``group:``, else the variants of one task), one repeat at a time. The run calls it once per
        group after each of its rows finished, from the stored rows, so tasks kept by ``--resume``
        or run by another executor's workers count too; it is called on the first row's instance.
        A row whose own verdict is None keeps its error.
        """
        raise NotImplementedError(f"{type(self).__name__}.evaluate_group")

    def evaluate(self, sample: Sample) -> Result | Awaitable[Result]:
        """Judge one sample; raise ``EvaluatorError`` when no verdict can be reached."""
        raise NotImplementedError(f"{type(self).__name__}.evaluate")


def from_rows(kind: type[Evaluator[Any]]) -> bool:
    """Whether ``kind`` computes its figures from stored rows (``aggregate_rows``), not instances:
    of the two hooks, the one its closest class defines wins, and ``Evaluator``'s own is no hook."""
    for klass in kind.__mro__:
        if "aggregate_rows" in vars(klass):
            return klass is not Evaluator
        if "aggregate" in vars(klass):
            return False
    return False
