"""A loaded suite, ready to run: tasks with their evaluators resolved and configured."""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from bench.evaluator import Evaluator
from bench.llm.providers import credentials
from bench.llm.providers.credentials import Endpoint
from bench.llm.settings import JudgeLimits, LLMSettings, Pricing, RuntimeLimits
from bench.scoring.scorecard import Scorecard
from bench.target import Target
from bench.vocabulary.compact import HexColumn, KeyTable, TextColumn, hex_or_text
from bench.vocabulary.models import Task
from bench.vocabulary.run_key import RunKey
from bench.workspace.disk import disk_of, disk_tag, repo_need

if TYPE_CHECKING:
    from bench.suite.variables.prompts import PromptVariant


@dataclass(frozen=True)
class CalibrationBar:
    """The labels a judge is checked against, and the Cohen's kappa it must reach."""

    labels: Path
    min_kappa: float


@dataclass(eq=False)
class BoundEvaluator:
    """An evaluator instance plus the settings bench applies around it."""

    name: str
    type: str
    distribution: str
    instance: Evaluator[Any]
    is_async: bool
    weight: float = 1.0
    threshold: float | None = None
    threshold_direction: Literal["min", "max"] = "min"
    negate: bool = False
    expect_error: bool = False
    origin: str = ""
    spec: dict[str, Any] = field(default_factory=dict)
    #: Evidence references (bench.evidence): what is judged, and what it is compared against.
    target: str | None = None
    expected_from: str | None = None
    calibration: CalibrationBar | None = None
    #: A conversation: what it judges, the last reply, each reply or the whole transcript.
    over: Literal["last_turn", "each_turn", "transcript"] = "last_turn"
    #: A scripted turn's own check: that turn's number among the scripted turns (1-based).
    turn: int | None = None


@dataclass(eq=False)
class PlannedTask:
    """A task and the evaluators that judge it; ``digest`` changes when either changes."""

    task: Task
    evaluators: list[BoundEvaluator]
    digest: str
    line: int | None = None
    #: How many times the task runs (``repeat:``).
    repeats: int = 1
    scorecard: Scorecard | None = None
    #: Which of the suite's ``targets:`` runs it (None: the suite's ``target:``).
    target_label: str | None = None
    #: Judged over its repeats: passes when pass@k reaches this (bench.scoring.pass_at_k).
    pass_at_k: float | None = None
    #: The task's prompt from each of the suite's ``prompts:`` it runs on (none: it runs as built).
    prompt_variants: tuple[PromptVariant, ...] = ()
    #: The resource tags the task declares (``resources:``): it runs only where they are provided.
    resources: frozenset[str] = frozenset()

    @property
    def expects_error(self) -> bool:
        return any(e.expect_error for e in self.evaluators)

    @property
    def key(self) -> str:
        """What the run store files the result under: the id, then ``id@N`` for repeat N > 0."""
        task = self.task
        return task.id if not task.repeat else RunKey(task.id, task.repeat).key()

    def with_repeat(self, repeat: int) -> PlannedTask:
        """The same task as its ``repeat``-th run (a distinct cache key for model calls)."""
        task = self.task.model_copy(update={"repeat": repeat})
        return dataclasses.replace(self, task=task)

    def on_prompt(self, variant: PromptVariant) -> PlannedTask:
        """The same task on one of the suite's prompts: its id gains ``[label]``."""
        update = {
            "id": f"{self.task.id}[{variant.label}]",
            "prompt": variant.text,
            "prompt_label": variant.label,
            "group": self.task.group or self.task.id,
        }
        task = self.task.model_copy(update=update)
        return dataclasses.replace(self, task=task, digest=variant.digest, prompt_variants=())

    def on_target(self, label: str, digest: str) -> PlannedTask:
        """The same task run by the suite's target ``label``: its id gains ``[label]``."""
        update = {"id": f"{self.task.id}[{label}]", "group": self.task.group or self.task.id}
        task = self.task.model_copy(update=update)
        return dataclasses.replace(self, task=task, target_label=label, digest=digest)


@dataclass(frozen=True)
class PlanRow:
    """One task as the suite wrote it (a source row, not a run): what a worker rebuilds it from.

    ``raw`` is the row as parsed from the tasks file or the suite (plain JSON/YAML data), ``digest``
    the digest the validating load computed for it, ``keys`` the run keys it expands into, in
    plan order (one per repeat, per target of the suite's ``targets:`` when it names none).
    ``needs`` are the resource tags its runs need (``task_needs``): an executor may route on them.
    Rows are picklable, so a driver can hand them to workers as plain data.
    """

    index: int
    raw: Any
    digest: str
    keys: tuple[str, ...]
    needs: frozenset[str] = frozenset()


#: The tag of a task that runs in a workspace (a ``repo:`` copied for its agent).
WORKSPACE = "workspace"


def task_needs(planned: PlannedTask, evaluator_needs: frozenset[str] | None = None) -> frozenset[str]:
    """The resource tags a task's runs need: its evaluators' (``Evaluator.resource_needs``, or
    ``evaluator_needs`` when known), plus ``"workspace"`` when its target runs in a copy of a
    ``repo:``, with the disk that copy takes (``disk=BYTES``: the repository's size on disk,
    unless the task declares its own)."""
    found = evaluator_needs
    if found is None:
        found = frozenset().union(*(e.instance.resource_needs() for e in planned.evaluators))
    repo = planned.task.repo
    if repo is not None and planned.task.response is None:
        found |= {WORKSPACE}
        size = None if disk_of(planned.resources) else repo_need(repo.source)
        if size:
            found |= {disk_tag(size)}
    return found | planned.resources if planned.resources else found


class RowNeeds:
    """Each source row's ``needs``, as an index into the few distinct sets a suite has (two bytes
    a row, whatever the tags)."""

    def __init__(self) -> None:
        self.kinds: list[frozenset[str]] = [frozenset()]
        #: The tags some task declares in ``resources:`` (``Plan.required``).
        self.declared: set[str] = set()
        self._index: dict[frozenset[str], int] = {frozenset(): 0}
        self.per_row = array("H")

    def add(self, needs: frozenset[str]) -> None:
        """Append the next row's needs."""
        kind = self._index.get(needs)
        if kind is None:
            kind = self._index[needs] = len(self.kinds)
            self.kinds.append(needs)
        self.per_row.append(kind)

    def of(self, row: int) -> frozenset[str]:
        return self.kinds[self.per_row[row]] if row < len(self.per_row) else self.kinds[0]


class TaskList:
    """The suite's tasks, validated once; kept built when few, rebuilt on demand when many.

    A configured task costs a few kilobytes, so a run of a million would not fit in memory. Up to
    ``KEEP_LIMIT`` tasks the loader keeps them built (the fastest way to run them); beyond that it
    keeps only each task's id and digest and rebuilds the tasks one at a time whenever they are
    iterated, so memory stays bounded however large the suite. ``ids`` and ``digests`` are
    sequences of strings, one per run; the loader keeps them compact (``bench.vocabulary.compact``:
    about 15 and 8 bytes a run rather than 60 and 73 as a list of ``str``).
    """

    KEEP_LIMIT = 10_000

    def __init__(
        self,
        ids: Sequence[str],
        digests: Sequence[str],
        build: Callable[[], Iterator[PlannedTask]],
        built: list[PlannedTask] | None = None,
        rows: Callable[[], Iterator[tuple[int, Any, str]]] | None = None,
        runs_per_row: array[int] | None = None,
        needs: RowNeeds | None = None,
    ) -> None:
        self.ids = ids
        self.digests = digests
        self._build = build
        self._built = built
        #: The source rows again, as ``(index, raw, task digest)`` (no validation).
        self._rows = rows
        #: How many runs (keys) each source row expands into.
        self._runs_per_row = runs_per_row if runs_per_row is not None else array("I")
        #: What each source row's runs need (``PlanRow.needs``).
        self._needs = needs if needs is not None else RowNeeds()

    @property
    def kept(self) -> bool:
        """Whether the tasks are held built in memory (False: rebuilt on each iteration)."""
        return self._built is not None

    def __len__(self) -> int:
        return len(self.ids)

    def task_count(self) -> int:
        """How many tasks these runs are of: a task's repeats count once."""
        return len({RunKey.parse(key).id for key in self.ids})

    def __iter__(self) -> Iterator[PlannedTask]:
        return iter(self._built) if self._built is not None else self._build()

    def __getitem__(self, index: int) -> PlannedTask:
        for i, planned in enumerate(self):
            if i == index:
                return planned
        raise IndexError(index)

    def rows(self, start: int = 0) -> Iterator[PlanRow]:
        """The source rows from row ``start`` on, in plan order, read again from the suite."""
        if self._rows is None:
            raise ValueError("these tasks were not loaded from a suite file: they have no rows")
        first = sum(self._runs_per_row[:start])
        for index, raw, digest in self._rows():
            runs = self._runs_per_row[index]
            if index >= start and runs:  # a row a selection left out (or --target) has no runs
                keys = tuple(self.ids[first : first + runs])
                yield PlanRow(index, raw, digest, keys, self._needs.of(index))
                first += runs

    def row_needs(self, selected: set[str] | None = None) -> set[frozenset[str]]:
        """The distinct ``needs`` of the rows that have runs, of ``selected`` when given (the keys
        a resumed run has left); no row is read."""
        needs = self._needs
        if len(needs.kinds) == 1:  # no row needs anything
            return {needs.kinds[0]}
        return set(self.needs_runs(selected))

    @property
    def declared(self) -> set[str]:
        """The tags some task declares in ``resources:``."""
        return self._needs.declared

    def needs_runs(self, selected: set[str] | None = None) -> dict[frozenset[str], int]:
        """How many runs (of ``selected`` when given) each distinct ``needs`` has; no row is read."""
        needs, found, first = self._needs, dict[frozenset[str], int](), 0
        for kind, runs in zip(needs.per_row, self._runs_per_row, strict=True):
            keys = self.ids[first : first + runs]
            count = len(keys) if selected is None else sum(key in selected for key in keys)
            if count:
                found[needs.kinds[kind]] = found.get(needs.kinds[kind], 0) + count
            first += runs
        return found

    def narrowed(
        self,
        positions: list[int],
        built: list[PlannedTask] | None,
        rebuild: Callable[[], Iterator[PlannedTask]],
    ) -> TaskList:
        """These tasks cut down to the runs at ``positions`` (ascending): the rows stay, each with
        the runs it keeps, so ``rows()`` hands out only what was chosen."""
        per_row = array("I", [0]) * len(self._runs_per_row)
        row, end = 0, 0  # the runs before ``end`` belong to rows before ``row``
        for position in positions if per_row else ():
            while position >= end:
                end += self._runs_per_row[row]
                row += 1
            per_row[row - 1] += 1
        digests = (self.digests[i] for i in positions)
        return TaskList(
            TextColumn(self.ids[i] for i in positions),
            HexColumn(digests) if isinstance(self.digests, HexColumn) else hex_or_text(list(digests)),
            rebuild,
            built,
            self._rows,
            per_row,
            self._needs,
        )


class IdRows:
    """Each task id's row, for the duplicate check: a ``dict`` while there are no more tasks than
    are kept built (faster, and small beside them), then a ``KeyTable`` (a dict of a million ids
    held ~120 MiB)."""

    def __init__(self) -> None:
        self._few: dict[str, int] | None = {}
        self._many = KeyTable()

    def setdefault(self, task_id: str, row: int) -> int:
        """The row of ``task_id``; ``row`` (now recorded) when it has none."""
        few = self._few
        if few is None:
            return self._many.setdefault(task_id, row)
        found = few.setdefault(task_id, row)
        if len(few) > TaskList.KEEP_LIMIT:
            for key, value in few.items():
                self._many[key] = value
            self._few = None
        return found


class TaskIndex:
    """What a validating load keeps of each task: its runs' keys and digests, and the figures the
    plan reports; the runs themselves only up to ``TaskList.KEEP_LIMIT``."""

    def __init__(self) -> None:
        self.ids = TextColumn()  # one key per run of a task (id, id@1, ... with repeats)
        self.digests = HexColumn()
        self.task_digests = HexColumn()  # one per task as written
        self.runs_per_row = array("I")
        self.row_needs = RowNeeds()
        self.built: list[PlannedTask] | None = []
        self.needs_target = 0
        self.endpoints: set[Endpoint] = set()
        self.max_repeat = 1
        #: Whether any evaluator has a calibration bar of its own (``Plan.calibrated``).
        self.calibrated = False
        self.seen = IdRows()
        self.pass_at_k: dict[str, float] = {}
        #: The evaluator instances of the task added last, and what they need.
        self._instances: list[Evaluator[Any]] = []
        self._instance_ids: list[int] | None = None
        self._evaluator_needs: frozenset[str] = frozenset()

    def add(self, planned: PlannedTask, runs: Iterable[PlannedTask]) -> None:
        """Keep what identifies the task ``planned`` and each of its ``runs``."""
        self.task_digests.append(planned.digest)
        evaluators = planned.evaluators
        instances = [e.instance for e in evaluators]
        if [id(one) for one in instances] != self._instance_ids:
            # What the evaluators call, need and are calibrated against comes with their
            # instances (bound from the same entries): tasks that share them are asked once
            # (bench.suite.evaluators.placing). The instances are held, so their ids stay theirs.
            self._instances, self._instance_ids = instances, [id(one) for one in instances]
            self._evaluator_needs = frozenset().union(*(one.resource_needs() for one in instances))
            self.endpoints |= endpoints(evaluators)
            self.calibrated = self.calibrated or any(e.calibration is not None for e in evaluators)
        self.max_repeat = max(self.max_repeat, planned.repeats)
        before = len(self.ids)
        for run in runs:
            if run.pass_at_k is not None and run.task.repeat == 0:
                self.pass_at_k[run.task.id] = run.pass_at_k
            self.ids.append(run.key)
            self.digests.append(run.digest)
            self.needs_target += run.task.response is None
            if self.built is not None:
                self.built.append(run)
                if len(self.built) > TaskList.KEEP_LIMIT:
                    self.built = None  # too many to hold: rebuild them one at a time as they run
        self.runs_per_row.append(len(self.ids) - before)
        self.row_needs.add(task_needs(planned, self._evaluator_needs))
        if planned.resources:
            self.row_needs.declared |= planned.resources

    def task_list(
        self, rebuild: Callable[[], Iterator[PlannedTask]], rows: Callable[[], Iterator[tuple[int, Any, str]]]
    ) -> TaskList:
        """The plan's tasks: those kept, else ``rebuild``; ``rows``: the source rows again."""
        return TaskList(self.ids, self.digests, rebuild, self.built, rows, self.runs_per_row, self.row_needs)


def endpoints(components: Iterable[Target[Any] | BoundEvaluator]) -> set[Endpoint]:
    """The endpoints (model, API base, key variable) these targets and evaluators call."""
    found: set[Endpoint] = set()
    for one in components:
        found |= credentials.endpoints(one.instance if isinstance(one, BoundEvaluator) else one)
    return found


@dataclass
class Plan:
    """Everything ``bench run`` needs, with no YAML left to read."""

    name: str
    path: Path
    target_type: str
    target: Target[Any] | None
    tasks: TaskList
    #: The suite's ``targets:`` by label (empty when it has one ``target:`` or none).
    targets: dict[str, Target[Any]] = field(default_factory=dict)
    #: ``--target``: the mapping that replaced the file's targets (a resumed run must give it again).
    target_override: dict[str, Any] | None = None
    #: Task id -> its pass@k threshold, for the tasks judged over their repeats.
    pass_at_k: dict[str, float] = field(default_factory=dict)
    named_evaluators: dict[str, BoundEvaluator] = field(default_factory=dict)
    #: Evaluators with suite-level figures, by (name, type): one instance each (its settings).
    aggregating: dict[tuple[str, str], Evaluator[Any]] = field(default_factory=dict)
    #: Whether some evaluator re-decides groups of rows together (``Evaluator.groups``).
    grouping: bool = False
    concurrency: int | None = None
    referenced_files: list[Path] = field(default_factory=list)
    #: How many tasks have no recorded response (so the target must be called).
    needs_target: int = 0
    llm: LLMSettings = field(default_factory=LLMSettings)
    pricing: Pricing = field(default_factory=Pricing)
    runtime_limits: RuntimeLimits = field(default_factory=RuntimeLimits)
    judge_limits: JudgeLimits = field(default_factory=JudgeLimits)
    #: The most runs any task has (``repeat:``).
    max_repeat: int = 1
    #: The suite-level scorecard's strategy, when the suite has one.
    scorecard_strategy: str | None = None
    #: Declared metric keys -> collector names (scorecard ``metric`` dimensions).
    metrics: dict[str, str] = field(default_factory=dict)
    #: Behavioural signal types (installed) -> the metric collector of each one's score.
    signals: Mapping[str, str] = field(default_factory=dict)
    #: What evaluators see and reports keep of a response, in bytes (``max_response_bytes:``).
    max_response_bytes: int = 10 * 1024 * 1024
    #: Prompts that write a task's var as ``{{name}}`` (sent as text): warnings to print.
    template_warnings: list[str] = field(default_factory=list)
    #: Every model the run calls, where, and with which key (checked before the first task).
    endpoints: set[Endpoint] = field(default_factory=set)
    #: The suite-wide calibration bar of judges (``calibration:``).
    calibration: CalibrationBar | None = None
    #: Whether any task's evaluator may have a calibration bar of its own: False only when the
    #: validating load saw none, so without ``calibration`` no judge is checked and the tasks
    #: need not be walked (a large plan rebuilds each one).
    calibrated: bool = True
    #: Rebuilds one source row's runs without validating it again (see ``build``).
    expand: Callable[[PlanRow], Iterable[PlannedTask]] | None = field(default=None, repr=False)

    def rows(self, start: int = 0) -> Iterator[PlanRow]:
        """The plan's source rows from row ``start`` on, in plan order (``PlanRow``)."""
        return self.tasks.rows(start)

    def row_needs(self, selected: set[str] | None = None) -> set[frozenset[str]]:
        """The distinct ``PlanRow.needs`` of the rows to run (what an executor must provide for),
        or of those with a key in ``selected`` (``Job.selected``)."""
        return self.tasks.row_needs(selected)

    def needs_runs(self, selected: set[str] | None = None) -> dict[frozenset[str], int]:
        """How many runs to run (of ``selected`` when given) each distinct ``PlanRow.needs`` has."""
        return self.tasks.needs_runs(selected)

    @property
    def required(self) -> frozenset[str]:
        """The tags tasks declare in ``resources:``: unlike the tags evaluators imply, a task that
        declares one runs only where it is provided."""
        return frozenset(self.tasks.declared)

    def build(self, rows: Iterable[PlanRow]) -> list[PlannedTask]:
        """The runs of ``rows``, rebuilt as the validating load built them (no second validation:
        the load that made the rows checked them). Works on a header-only plan
        (``load_suite(path, tasks="lazy")``), which is what a worker holds."""
        if self.expand is None:
            raise ValueError("this plan cannot rebuild tasks from rows")
        return [run for row in rows for run in self.expand(row)]


def all_targets(plan: Plan) -> list[Target[Any]]:
    """Every target the plan may call: its ``target`` and each of its ``targets``."""
    return ([plan.target] if plan.target is not None else []) + list(plan.targets.values())
