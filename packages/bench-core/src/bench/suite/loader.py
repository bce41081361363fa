"""Load a suite file into a Plan: validate everything, resolve evaluators, build the target.

Errors are collected across tasks (up to ``MAX_ERRORS``) so one pass shows most problems; each
names the file, the line and column, and the field path. Each task is built by
``bench.suite.tasks``; the rows of a JSON Lines tasks file are read by ``bench.suite.rows``.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from bench.document import YamlDocument
from bench.llm.providers import credentials
from bench.llm.providers.credentials import Endpoint
from bench.plugins import catalogue
from bench.plugins.registry import Registry, get_registry
from bench.scoring.collectors import COLLECTORS, signal_collectors
from bench.scoring.labels import human_scores, read_labels
from bench.scoring.scorecard import Scorecard
from bench.scoring.scorecard import check as check_scorecard
from bench.suite.binding import Binder, digest
from bench.suite.file_model import SuiteFile
from bench.suite.native import NativeSuiteLoader
from bench.suite.plan import (
    BoundEvaluator,
    CalibrationBar,
    Plan,
    PlannedTask,
    PlanRow,
    RowNeeds,
    TaskList,
    task_needs,
)
from bench.suite.rows import RowRules, tasks_file
from bench.suite.tasks import TaskBuilder, validation_errors
from bench.suite.yamlstream import StreamedSuite
from bench.suite_loader import LoadOptions, SuiteLoader
from bench.target import SuiteContext, Target
from bench.vocabulary.compact import HexColumn, KeyTable, TextColumn
from bench.vocabulary.errors import ConfigError, FieldPath, InvalidSuite, did_you_mean

MAX_ERRORS = 50
DEFAULT_TARGET = "recorded"
NOT_A_SUITE = "a suite is a mapping with 'tasks:'"


class _SuiteBuilder:
    """Builds the plan of one suite: its settings, target, scorecard and every task."""

    def __init__(
        self,
        path: Path,
        doc: YamlDocument,
        registry: Registry,
        repeat: int | None = None,
        allow_outside_root: bool = False,
        progress: Callable[[int], None] | None = None,
        overrides: dict[str, str] | None = None,
        target_override: bool = False,
        only_label: str | None = None,
        need_target: bool = True,
    ) -> None:
        self.path = path
        #: False (``bench validate``, ``bench convert``): tasks without a response need no target
        #: to be valid; the plan counts them in ``needs_target``.
        self.need_target = need_target
        #: ``--target LABEL`` naming one of the suite's ``targets:``: only its runs are planned.
        self.only_label = only_label
        #: ``--target`` replaced the file's targets: tasks' ``target:`` labels no longer apply.
        self.target_override = target_override
        self.overrides = overrides
        self.rows = RowRules(path, allow_outside_root)
        self.repeat = repeat
        self.progress = progress
        self.doc = doc
        self.registry = registry
        self.binder = Binder(registry)
        self.errors: list[ConfigError] = []
        #: Evaluator type -> the metric collector of its score, for behavioural signals.
        self.signals = signal_collectors(p.cls for p in registry.evaluators.values())
        self.collectors = (*COLLECTORS, *self.signals.values())

    def fail(self, error: ConfigError) -> None:
        self.errors.append(error)
        if len(self.errors) >= MAX_ERRORS:
            raise InvalidSuite(self.errors)

    def build(self, lazy: bool = False) -> Plan:
        """The plan; ``lazy``: the header only (settings, targets, named evaluators), the tasks
        neither read nor validated, for a worker that rebuilds them from ``PlanRow``s."""
        data = self.doc.data
        if not is_suite_data(data):
            raise ConfigError(NOT_A_SUITE, file=self.path)
        try:
            suite = SuiteFile.model_validate(data, context={"collectors": self.collectors})
        except ValidationError as exc:
            raise InvalidSuite(validation_errors(self.doc, exc, SuiteFile, ())) from None
        if suite.vars and suite.defaults.vars:
            raise self.doc.error("give vars or defaults.vars, not both", ("vars",))
        name = suite.name or self.path.stem
        self.binder.bind_named(self.doc, suite.evaluators)
        self.metrics = self._metrics(suite)
        self.runtime_limits = suite.runtime_limits
        if suite.scorecard is not None:
            self._check_card(self.doc, ("scorecard",), suite.scorecard)
        if suite.target is not None and suite.targets is not None:
            raise self.doc.error("give target or targets, not both", ("targets",))
        target_type, target = self._target(suite, name)
        targets = self._targets(suite, name)
        if targets:
            target_type = ", ".join(sorted({t.name for t in targets.values()}))
        labels = list(targets)
        if self.only_label is not None:  # --target LABEL: the tasks of that target only
            targets = {self.only_label: targets[self.only_label]}
        tasks = TaskBuilder(
            self.path,
            suite,
            self.binder,
            self.rows,
            repeat=self.repeat,
            overrides=self.overrides,
            fail=self.fail,
            check_card=self._check_card,
            target_labels=labels,
            ignore_task_targets=self.target_override,
        )

        def source() -> tuple[YamlDocument, Iterable[Any]]:
            if isinstance(suite.tasks, str):
                rows_doc = tasks_file(self.doc, suite.tasks)
                return rows_doc, rows_doc.rows()
            if isinstance(self.doc, StreamedSuite):
                return self.doc.tasks, self.doc.tasks.rows()
            return self.doc, suite.tasks

        has_target = target is not None or bool(targets) or not self.need_target
        row_doc: list[YamlDocument] = []  # where rebuilt rows' errors point (made on first use)

        def expand(row: PlanRow) -> Iterable[PlannedTask]:
            # Already validated: no duplicate check, and the digest is the one computed then.
            if not row_doc:
                row_doc.append(self._task_doc(suite))
            built = tasks.build(row_doc[0], row.index, row.raw, None, has_target, row.digest)
            return _runs(built, labels, self.only_label)

        if lazy:
            plan = self._plan(
                suite, name, target_type, target, targets, tasks, TaskList([], [], lambda: iter(())), expand
            )
            for one in [*self.binder.named.values(), *targets.values(), *([target] if target else [])]:
                plan.endpoints |= credentials.endpoints(
                    one.instance if isinstance(one, BoundEvaluator) else one
                )
            return plan

        # Pass 1 validates every task and keeps only what identifies it.
        ids = TextColumn()  # one key per run of a task (id, id@1, ... with repeats)
        digests = HexColumn()
        task_digests = HexColumn()  # one per task as written
        runs_per_row = array("I")
        row_needs = RowNeeds()
        built: list[PlannedTask] | None = []
        needs_target = 0
        endpoints: set[Endpoint] = set()
        max_repeat = 1
        calibrated = False
        seen = KeyTable()  # task id -> its row (a dict of a million ids held ~120 MiB)
        pass_at_k: dict[str, float] = {}
        task_doc, written = source()
        for index, raw in enumerate(written):
            try:
                planned = tasks.build(task_doc, index, raw, seen, has_target=has_target)
            except ConfigError as exc:
                self.fail(exc)
                continue
            finally:
                if self.progress is not None:
                    self.progress(index + 1)
            task_digests.append(planned.digest)
            for evaluator in planned.evaluators:
                endpoints |= credentials.endpoints(evaluator.instance)
                calibrated = calibrated or evaluator.calibration is not None
            max_repeat = max(max_repeat, planned.repeats)
            before = len(ids)
            for run in _runs(planned, labels, self.only_label):
                if run.pass_at_k is not None and run.task.repeat == 0:
                    pass_at_k[run.task.id] = run.pass_at_k
                ids.append(run.key)
                digests.append(run.digest)
                needs_target += run.task.response is None
                if built is not None:
                    built.append(run)
                    if len(built) > TaskList.KEEP_LIMIT:
                        built = None  # too many to hold: rebuild them one at a time as they run
            runs_per_row.append(len(ids) - before)
            row_needs.add(task_needs(planned))
        if self.errors:
            raise InvalidSuite(self.errors)
        if not ids:
            raise self.doc.error("the suite has no tasks", ("tasks",))
        if needs_target:
            for one in [target, *targets.values()]:
                if one is not None:
                    endpoints |= credentials.endpoints(one)

        def source_rows() -> Iterator[tuple[int, Any, str]]:
            _, raws = source()
            for index, raw in enumerate(raws):
                yield index, raw, task_digests[index]

        def rebuild() -> Iterator[PlannedTask]:
            for index, raw, task_digest in source_rows():
                yield from expand(PlanRow(index, raw, task_digest, ()))

        task_list = TaskList(ids, digests, rebuild, built, source_rows, runs_per_row, row_needs)
        plan = self._plan(suite, name, target_type, target, targets, tasks, task_list, expand)
        plan.pass_at_k = pass_at_k
        plan.needs_target = needs_target
        plan.max_repeat = max_repeat
        plan.endpoints = endpoints
        plan.calibrated = calibrated
        return plan

    def _task_doc(self, suite: SuiteFile) -> YamlDocument:
        """The document a task's errors point into (the tasks file is not read here)."""
        if isinstance(suite.tasks, str):
            return tasks_file(self.doc, suite.tasks)
        return self.doc.tasks if isinstance(self.doc, StreamedSuite) else self.doc

    def _plan(
        self,
        suite: SuiteFile,
        name: str,
        target_type: str,
        target: Target[Any] | None,
        targets: dict[str, Target[Any]],
        tasks: TaskBuilder,
        task_list: TaskList,
        expand: Callable[[PlanRow], Iterable[PlannedTask]],
    ) -> Plan:
        return Plan(
            name=name,
            path=self.path,
            target_type=target_type,
            target=target,
            targets=targets,
            tasks=task_list,
            llm=suite.llm,
            pricing=suite.pricing,
            runtime_limits=suite.runtime_limits,
            judge_limits=suite.judge_limits,
            metrics=self.metrics,
            signals=self.signals,
            max_response_bytes=suite.max_response_bytes,
            scorecard_strategy=suite.scorecard.strategy if suite.scorecard is not None else None,
            named_evaluators=self.binder.named,
            aggregating=self.binder.aggregating,
            concurrency=suite.concurrency,
            referenced_files=list(self.binder.definitions),
            template_warnings=tasks.template_warnings.lines(),
            calibration=(
                None
                if suite.calibration is None
                else CalibrationBar(self.path.parent / suite.calibration.labels, suite.calibration.min_kappa)
            ),
            expand=expand,
        )

    def _target(self, suite: SuiteFile, name: str) -> tuple[str, Target[Any] | None]:
        spec = dict(suite.target or {})
        explicit = suite.target is not None
        type_name = spec.pop("type", None if explicit else DEFAULT_TARGET)
        if not explicit and not spec:
            self._target_class(type_name, ("target", "type"))  # the default type is registered
            return str(type_name), None
        return str(type_name), self._build_target(type_name, spec, name, ("target",))

    def _targets(self, suite: SuiteFile, name: str) -> dict[str, Target[Any]]:
        """The suite's ``targets:`` by label."""
        built: dict[str, Target[Any]] = {}
        for i, entry in enumerate(suite.targets or []):
            at: FieldPath = ("targets", i)
            if not isinstance(entry, dict):
                raise self.doc.error("a target is a mapping with 'label' and 'type'", at)
            spec = dict(entry)
            label = target_label(spec)
            given = spec.pop("label", None)
            if given is not None and (not isinstance(given, str) or not given):
                raise self.doc.error("a target's label is a non-empty string", (*at, "label"))
            if label is None:
                raise self.doc.error("required field missing: the target's type", (*at, "type"))
            if label in built:
                hint = "" if given is not None else " (give each target a label)"
                raise self.doc.error(f"target label '{label}' is used twice{hint}", (*at, "label"))
            target = self._build_target(spec.pop("type", None), spec, name, at)
            target.label = label
            built[label] = target
        return built

    def _target_class(self, type_name: Any, at: FieldPath) -> type[Target[Any]]:
        if not isinstance(type_name, str):
            raise self.doc.error("required field missing: the target's type", at)
        provided = self.registry.targets.get(type_name)
        if provided is None:
            hint = catalogue.hint("targets", type_name) or did_you_mean(type_name, self.registry.targets)
            raise self.doc.error(f"unknown target type '{type_name}'{hint}", at)
        cls: type[Target[Any]] = provided.cls
        return cls

    def _build_target(self, type_name: Any, spec: dict[str, Any], name: str, at: FieldPath) -> Target[Any]:
        cls = self._target_class(type_name, (*at, "type"))
        try:
            config = cls.Config.model_validate(spec)
        except ValidationError as exc:
            raise InvalidSuite(validation_errors(self.doc, exc, cls.Config, at)) from None
        return cls(config, SuiteContext(name=name, path=self.path))

    def _metrics(self, suite: SuiteFile) -> dict[str, str]:
        metrics: dict[str, str] = {}
        for i, metric in enumerate(suite.metrics):
            if metric.key in metrics:
                raise self.doc.error(f"metric key '{metric.key}' is used twice", ("metrics", i, "key"))
            if metric.key in self.binder.named:
                raise self.doc.error(
                    f"metric key '{metric.key}' is also an evaluator's name; keys must be unique across "
                    "evaluators, metrics and judges",
                    ("metrics", i, "key"),
                )
            metrics[metric.key] = metric.collector
        return metrics

    def _check_card(self, doc: YamlDocument, at: FieldPath, card: Scorecard) -> None:
        limits = self.runtime_limits
        problems = check_scorecard(
            card,
            metrics=self.metrics,
            max_duration_ms=limits.max_duration_ms,
            max_cost_usd=limits.max_cost_usd,
            collectors=self.collectors,
        )
        for path, message in problems:
            self.fail(doc.error(message, (*at, *path)))
        if problems:
            raise InvalidSuite(self.errors)
        for i, dim in enumerate(card.dims):
            if dim.source == "human_preference" and dim.labels:
                try:
                    dim.set_human(human_scores(read_labels(doc.path.parent / dim.labels)))
                except ConfigError as exc:
                    where = ConfigError(exc.message, file=dim.labels, line=exc.line).render()
                    self.fail(doc.error(where, (*at, "dimensions", i, "labels")))
                    raise InvalidSuite(self.errors) from None


def choose_loader(
    registry: Registry, path: Path, options: LoadOptions | None = None
) -> tuple[YamlDocument, list[str]]:
    """Read a suite file with the first registered loader that claims it: its document and warnings."""
    loader = pick_loader(registry, path, options)
    doc = loader.load(path)
    if isinstance(loader, NativeSuiteLoader) and not is_suite_data(doc.data):
        # bench's own loader takes every YAML file: say which other loaders looked at this one
        tried = [one for one in _loaders(registry, options) if one.priority > loader.priority]
        first = f"{NOT_A_SUITE}, and no other suite loader reads this file"
        raise ConfigError(unclaimed(first, tried, path), file=path)
    return doc, loader.warnings


def is_suite_data(data: Any) -> bool:
    """Whether a loaded document is a suite mapping (one with ``tasks:``)."""
    return isinstance(data, dict) and "tasks" in data


def _loaders(registry: Registry, options: LoadOptions | None) -> list[SuiteLoader]:
    """One instance of every registered loader, in the order they are asked (falling priority).

    Every provider of a clashing loader name is included, so the clash fails the suite
    whichever of them claims the file.
    """
    table = registry.suite_loaders
    providers = sorted(
        (provided for name in table for provided in table.providers(name)), key=lambda p: -p.cls.priority
    )
    return [provided.cls(options) for provided in providers]


def pick_loader(registry: Registry, path: Path, options: LoadOptions | None = None) -> SuiteLoader:
    """The first registered loader that claims ``path``."""
    loaders = _loaders(registry, options)
    for loader in loaders:
        if loader.claims(path):
            registry.suite_loaders.check(loader.name)  # a name two distributions register fails here
            return loader
    raise ConfigError(
        unclaimed("no suite loader reads this kind of file; expected .yaml, .yml or .json", loaders, path),
        file=path,
    )


def unclaimed(first: str, tried: list[SuiteLoader], path: Path) -> str:
    """The message for a file no loader reads: ``first``, the loaders tried, and why the
    nearest of them declined (the first of the nearest, in the order they were asked)."""
    message = f"{first} (tried {', '.join(loader.name for loader in tried)})"
    nearest: tuple[float, str, str] | None = None
    for loader in tried:
        found = loader.declines(path)
        if found is not None and (nearest is None or found[0] > nearest[0]):
            nearest = (found[0], loader.name, found[1])
    if nearest is not None:
        message += f"; the nearest, {nearest[1]}, declined: {nearest[2]}"
    return message


def _runs(planned: PlannedTask, labels: list[str], only: str | None = None) -> Iterable[PlannedTask]:
    """A task once per repeat (the task itself, then copies with repeat 1..K-1), and once per
    target of the suite's ``targets:`` when it names none of them; with ``only`` (``--target
    LABEL``), its runs on that target alone."""
    if planned.repeats == 1 and not labels and only is None:
        return (planned,)  # the common case, without a generator's cost (a million tasks)
    return _expanded(planned, labels, only)


def _expanded(planned: PlannedTask, labels: list[str], only: str | None) -> Iterator[PlannedTask]:
    chosen = [planned]
    if planned.target_label is None and labels:
        chosen = [planned.on_target(label, digest(planned.digest, label)) for label in labels]
    if only is not None:
        chosen = [run for run in chosen if run.target_label == only]
    for one in chosen:
        yield one
        for repeat in range(1, one.repeats):
            yield one.with_repeat(repeat)


def load_suite(
    path: Path | str,
    registry: Registry | None = None,
    *,
    repeat: int | None = None,
    allow_outside_root: bool = False,
    progress: Callable[[int], None] | None = None,
    variables: dict[str, str] | None = None,
    target: dict[str, Any] | None = None,
    tasks: Literal["validate", "lazy"] = "validate",
    need_target: bool = True,
) -> Plan:
    """Load and validate a suite file; raise ConfigError/InvalidSuite on any problem.

    ``repeat`` runs every task that many times, whatever the suite says. ``allow_outside_root``
    lets rows of a tasks file, and the files another tool's suite reads, lie outside the suite's
    folder. ``progress`` is called with the number of tasks checked so far, after each task.
    ``variables`` (``--var``) win over the suite's and each task's vars. ``target``
    (``--target``) replaces every target of the file.
    ``tasks="lazy"`` reads the header only (settings, targets, named evaluators) and neither reads
    nor validates the tasks: the plan has no tasks, and ``plan.build(rows)`` rebuilds the runs of
    ``PlanRow``s a validating load handed out (``plan.rows()``), as a worker of a cluster does.
    ``need_target=False`` accepts tasks with no response in a suite that names no target (they
    are counted in ``plan.needs_target``): the suite is valid, but cannot run as it is.
    """
    registry = registry if registry is not None else get_registry()
    path = Path(path)
    options = LoadOptions(target=target, allow_outside_root=allow_outside_root)
    doc, warnings = choose_loader(registry, path, options)
    label = apply_target(doc, target)
    replaced = target is not None and label is None
    plan = _SuiteBuilder(
        path, doc, registry, repeat, allow_outside_root, progress, variables, replaced, label, need_target
    ).build(lazy=tasks == "lazy")
    plan.template_warnings[:0] = warnings
    plan.target_override = target
    return plan


def build_plan(doc: YamlDocument, registry: Registry) -> Plan:
    """Validate a document a loader already read (``bench convert``), targets as written; a
    suite that names no target is valid (the user brings one to run it)."""
    return _SuiteBuilder(doc.path, doc, registry, need_target=False).build()


def apply_target(doc: YamlDocument, target: dict[str, Any] | None) -> str | None:
    """``--target`` on a loaded document: the label it selects among the suite's targets, or
    None after replacing every target with it (or when there is no ``--target``)."""
    if target is None:
        return None
    label = selected_label(doc, target)
    if label is None:
        replace_targets(doc, target)
    return label


def target_label(entry: dict[str, Any]) -> str | None:
    """The label of a ``targets:`` entry: its own, else its model, else its type."""
    for key in ("label", "model", "type"):
        value = entry.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def selected_label(doc: YamlDocument, target: dict[str, Any]) -> str | None:
    """The suite target ``--target`` selects: a bare name that is one of the labels (promptfoo's
    ``--providers`` also picks a configured provider by its id or label first)."""
    data = doc.data
    if set(target) != {"type"} or not isinstance(data, dict) or not isinstance(data.get("targets"), list):
        return None
    labels = [target_label(e) for e in data["targets"] if isinstance(e, dict)]
    return target["type"] if target["type"] in labels else None


def replace_targets(doc: YamlDocument, target: dict[str, Any]) -> None:
    """``--target``: the suite's target becomes ``target`` and its other targets are dropped."""
    if isinstance(doc.data, dict):
        doc.data["target"] = dict(target)
        doc.data.pop("targets", None)
