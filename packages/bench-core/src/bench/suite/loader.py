"""Load a suite file into a Plan: validate everything, resolve evaluators, build the target.

Errors are collected across tasks (up to ``MAX_ERRORS``) so one pass shows most problems; each
names the file, the line and column, and the field path. Each task is built by
``bench.suite.tasks``, the targets by ``bench.suite.targets``; the rows of a JSON Lines tasks
file are read by ``bench.suite.rows``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from bench.document import YamlDocument
from bench.plugins.registry import Registry, get_registry
from bench.scoring.collectors import KnownCollectors, Signals
from bench.scoring.labels import human_scores, read_labels
from bench.scoring.scorecard import Scorecard
from bench.scoring.scorecard import check as check_scorecard
from bench.suite.binding import Binder, digest
from bench.suite.file_model import SuiteFile
from bench.suite.native import NativeSuiteLoader
from bench.suite.plan import CalibrationBar, Plan, PlannedTask, PlanRow, TaskIndex, TaskList, endpoints
from bench.suite.rows import RowRules, task_document, task_source
from bench.suite.targets import TargetBuilder, apply_target, target_resources
from bench.suite.tasks import TaskBuilder, validation_errors
from bench.suite_loader import LoadOptions, SuiteLoader
from bench.target import Target
from bench.vocabulary.errors import ConfigError, FieldPath, InvalidSuite

MAX_ERRORS = 50
NOT_A_SUITE = "a suite is a mapping with 'tasks:'"


@dataclass
class _Header:
    """A suite's plan but its tasks: the file, its name and targets, and the builder of its tasks."""

    suite: SuiteFile
    name: str
    target_type: str
    target: Target[Any] | None
    targets: dict[str, Target[Any]]
    #: Every label of the suite's ``targets:`` (``--target LABEL`` narrows ``targets`` only).
    labels: list[str]
    tasks: TaskBuilder
    #: Whether a task without a response is valid: a target will answer it.
    has_target: bool


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
        #: The metric collectors a scorecard may name (every type's signal read only when needed).
        self.collectors = KnownCollectors(lambda: (p.cls for p in registry.evaluators.values()))
        self._row_doc: YamlDocument | None = None

    def fail(self, error: ConfigError) -> None:
        self.errors.append(error)
        if len(self.errors) >= MAX_ERRORS:
            raise InvalidSuite(self.errors)

    def build(self, lazy: bool = False) -> Plan:
        """The plan; ``lazy``: the header only (settings, targets, named evaluators), the tasks
        neither read nor validated, for a worker that rebuilds them from ``PlanRow``s."""
        suite = self._suite_file()
        name = suite.name or self.path.stem
        self.binder.bind_named(self.doc, suite.evaluators)
        self.metrics = self._metrics(suite)
        self.runtime_limits = suite.runtime_limits
        if suite.scorecard is not None:
            self._check_card(self.doc, ("scorecard",), suite.scorecard)
        if suite.target is not None and suite.targets is not None:
            raise self.doc.error("give target or targets, not both", ("targets",))
        suite_targets = TargetBuilder(self.path, self.doc, self.registry)
        target_type, target = suite_targets.single(suite, name)
        targets = suite_targets.labelled(suite, name)
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
            suite_doc=self.doc,
            target_resources={
                label: target_resources(built, self.registry)
                for label, built in [(None, target), *targets.items()]
                if built is not None
            },
        )
        has_target = target is not None or bool(targets) or not self.need_target
        header = _Header(suite, name, target_type, target, targets, labels, tasks, has_target)
        if not lazy:
            return self._validated(header)
        plan = self._plan(header, TaskList([], [], lambda: iter(())))
        plan.endpoints |= endpoints(
            [*self.binder.named.values(), *targets.values(), *([target] if target else [])]
        )
        return plan

    def _suite_file(self) -> SuiteFile:
        """The document as a suite, validated."""
        data = self.doc.data
        if not is_suite_data(data):
            raise ConfigError(NOT_A_SUITE, file=self.path)
        try:
            suite = SuiteFile.model_validate(data, context={"collectors": self.collectors})
        except ValidationError as exc:
            raise InvalidSuite(validation_errors(self.doc, exc, SuiteFile, ())) from None
        if suite.vars and suite.defaults.vars:
            raise self.doc.error("give vars or defaults.vars, not both", ("vars",))
        return suite

    def _validated(self, header: _Header) -> Plan:
        """The plan, every task validated in one pass that keeps only what identifies each run."""
        index = TaskIndex()
        task_doc, written = task_source(self.doc, header.suite.tasks)
        for row, raw in enumerate(written):
            try:
                planned = header.tasks.build(task_doc, row, raw, index.seen, has_target=header.has_target)
            except ConfigError as exc:
                self.fail(exc)
                continue
            finally:
                if self.progress is not None:
                    self.progress(row + 1)
            index.add(planned, _runs(planned, header.labels, self.only_label))
        if self.errors:
            raise InvalidSuite(self.errors)
        if not index.ids:
            raise self.doc.error("the suite has no tasks", ("tasks",))
        if index.needs_target:
            index.endpoints |= endpoints(
                one for one in [header.target, *header.targets.values()] if one is not None
            )

        def source_rows() -> Iterator[tuple[int, Any, str]]:
            _, raws = task_source(self.doc, header.suite.tasks)
            for row, raw in enumerate(raws):
                yield row, raw, index.task_digests[row]

        def rebuild() -> Iterator[PlannedTask]:
            for row, raw, task_digest in source_rows():
                yield from self._expand(header, PlanRow(row, raw, task_digest, ()))

        plan = self._plan(header, index.task_list(rebuild, source_rows))
        plan.pass_at_k = index.pass_at_k
        plan.needs_target = index.needs_target
        plan.max_repeat = index.max_repeat
        plan.endpoints = index.endpoints
        plan.calibrated = index.calibrated
        return plan

    def _expand(self, header: _Header, row: PlanRow) -> Iterable[PlannedTask]:
        """The runs of a row the validating pass handed out."""
        # Already validated: no duplicate check, and the digest is the one computed then.
        if self._row_doc is None:  # where rebuilt rows' errors point (made on first use)
            self._row_doc = task_document(self.doc, header.suite.tasks)
        built = header.tasks.build(self._row_doc, row.index, row.raw, None, header.has_target, row.digest)
        return _runs(built, header.labels, self.only_label)

    def _plan(self, header: _Header, task_list: TaskList) -> Plan:
        suite = header.suite
        return Plan(
            name=header.name,
            path=self.path,
            target_type=header.target_type,
            target=header.target,
            targets=header.targets,
            tasks=task_list,
            llm=suite.llm,
            pricing=suite.pricing,
            runtime_limits=suite.runtime_limits,
            judge_limits=suite.judge_limits,
            metrics=self.metrics,
            # every type's signal, whatever this process happened to import (a worker must record
            # the same ones); imported on first use, by a scorecard
            signals=Signals(lambda: (p.cls for p in self.registry.evaluators.values())),
            max_response_bytes=suite.max_response_bytes,
            scorecard_strategy=suite.scorecard.strategy if suite.scorecard is not None else None,
            named_evaluators=self.binder.named,
            aggregating=self.binder.aggregating,
            grouping=self.binder.grouping,
            concurrency=suite.concurrency,
            referenced_files=list(self.binder.definitions),
            template_warnings=header.tasks.template_warnings.lines(),
            calibration=(
                None
                if suite.calibration is None
                else CalibrationBar(self.path.parent / suite.calibration.labels, suite.calibration.min_kappa)
            ),
            expand=lambda row: self._expand(header, row),
        )

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
    """A task once per repeat (the task itself, then copies with repeat 1..K-1), once per prompt
    of the suite's ``prompts:`` and once per target of its ``targets:`` when it names none; with
    ``only`` (``--target LABEL``), its runs on that target alone."""
    if planned.repeats == 1 and not labels and only is None and not planned.prompt_variants:
        return (planned,)  # the common case, without a generator's cost (a million tasks)
    return _expanded(planned, labels, only)


def _expanded(planned: PlannedTask, labels: list[str], only: str | None) -> Iterator[PlannedTask]:
    prompted = [planned.on_prompt(variant) for variant in planned.prompt_variants] or [planned]
    chosen = prompted
    if planned.target_label is None and labels:
        chosen = [one.on_target(label, digest(one.digest, label)) for one in prompted for label in labels]
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
