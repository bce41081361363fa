"""Load a suite file into a Plan: validate everything, resolve evaluators, build the target.

Errors are collected across tasks (up to ``MAX_ERRORS``) so one pass shows most problems; each
names the file, the line and column, and the field path.

The suite file is trusted: its paths may lead anywhere. Rows of a JSON Lines tasks file are data
(often generated or downloaded), so a path a row names (``workspace``, a local ``repo``, an
evaluator ``file``) must stay inside the suite's folder after ``realpath`` unless the user passes
``--allow-outside-root`` (RELIABILITY B06).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from pydantic import ValidationError

from bench.errors import ConfigError, FieldPath, InvalidSuite, did_you_mean
from bench.models import Message, RepoSpec, Response, Task
from bench.plugins.registry import Registry, get_registry
from bench.scoring.scorecard import Scorecard
from bench.scoring.scorecard import check as check_scorecard
from bench.suite.binding import TARGET_PROVIDERS, Binder, digest
from bench.suite.document import SuiteFile, TaskSpec
from bench.suite.plan import BoundEvaluator, Plan, PlannedTask, TaskList
from bench.suite.templates import MissingPlaceholder, render
from bench.suite.validation import describe
from bench.suite.yamlio import MIB, UnreadableFile, YamlDocument, check_regular_file
from bench.suite.yamlstream import StreamedSuite
from bench.target import SuiteContext, Target

MAX_ERRORS = 50
DEFAULT_TARGET = "recorded"


class RowsDocument(YamlDocument):
    """Tasks read from a JSONL file, row by row: ``tasks[i]...`` points at row i's line."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, None, None)
        self.lines: list[int] = []

    def mark(self, field: FieldPath) -> tuple[int, int] | None:
        if len(field) >= 2 and isinstance(field[1], int) and field[1] < len(self.lines):
            return self.lines[field[1]], 1
        return None

    def rows(self) -> Iterator[Any]:
        """Parse one line at a time, so a large tasks file is never held whole in memory."""
        with open(self.path, encoding="utf-8-sig") as lines:
            number = 0
            try:
                for number, line in enumerate(lines, start=1):
                    if not line.strip():
                        continue
                    self.lines.append(number)
                    yield json.loads(line)
            except (ValueError, RecursionError) as exc:
                raise ConfigError(f"invalid JSON: {exc}", file=self.path, line=number + 1) from None


def _tasks_file(doc: YamlDocument, ref: str) -> RowsDocument:
    path = (doc.path.parent / Path(ref).expanduser()).resolve()
    if path.suffix.lower() != ".jsonl":
        raise doc.error("a tasks file must be JSON Lines (.jsonl), one task per line", ("tasks",))
    try:
        check_regular_file(path, max_bytes=4096 * MIB)
    except UnreadableFile as exc:
        raise doc.error(f"cannot read tasks file {ref}: {exc} (resolved to {path})", ("tasks",)) from None
    return RowsDocument(path)


def _validation_errors(
    doc: YamlDocument, exc: ValidationError, model: Any, base: FieldPath
) -> list[ConfigError]:
    return [doc.error(message, (*base, *loc)) for loc, message in describe(exc, model)]


class _SuiteBuilder:
    def __init__(
        self,
        path: Path,
        doc: YamlDocument,
        registry: Registry,
        repeat: int | None = None,
        allow_outside_root: bool = False,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.path = path
        self.root = Path(os.path.realpath(path.parent))
        self.allow_outside_root = allow_outside_root
        self.repeat = repeat
        self.progress = progress
        self.doc = doc
        self.registry = registry
        self.binder = Binder(registry)
        self.errors: list[ConfigError] = []

    def fail(self, error: ConfigError) -> None:
        self.errors.append(error)
        if len(self.errors) >= MAX_ERRORS:
            raise InvalidSuite(self.errors)

    def build(self) -> Plan:
        data = self.doc.data
        if not isinstance(data, dict) or "tasks" not in data:
            raise ConfigError("a suite is a mapping with 'tasks:'", file=self.path)
        try:
            suite = SuiteFile.model_validate(data)
        except ValidationError as exc:
            raise InvalidSuite(_validation_errors(self.doc, exc, SuiteFile, ())) from None
        name = suite.name or self.path.stem
        self.binder.bind_named(self.doc, suite.evaluators)
        self.metrics = self._metrics(suite)
        self.suite_card = suite.scorecard
        if suite.scorecard is not None:
            self._check_card(self.doc, ("scorecard",), suite.scorecard, suite)
        target_type, target = self._target(suite, name)

        def source() -> tuple[YamlDocument, Iterable[Any]]:
            if isinstance(suite.tasks, str):
                rows_doc = _tasks_file(self.doc, suite.tasks)
                return rows_doc, rows_doc.rows()
            if isinstance(self.doc, StreamedSuite):
                return self.doc.tasks, self.doc.tasks.rows()
            return self.doc, suite.tasks

        # Pass 1 validates every task and keeps only what identifies it.
        ids: list[str] = []  # one key per run of a task (id, id@1, ... with repeats)
        digests: list[str] = []
        task_digests: list[str] = []  # one per task as written
        built: list[PlannedTask] | None = []
        needs_target = 0
        max_repeat = 1
        seen: dict[str, int] = {}
        task_doc, rows = source()
        for index, raw in enumerate(rows):
            try:
                planned = self._task(task_doc, index, raw, suite, seen, has_target=target is not None)
            except ConfigError as exc:
                self.fail(exc)
                continue
            finally:
                if self.progress is not None:
                    self.progress(index + 1)
            task_digests.append(planned.digest)
            max_repeat = max(max_repeat, planned.repeats)
            for run in _runs(planned):
                ids.append(run.key)
                digests.append(run.digest)
                needs_target += run.task.response is None
                if built is not None:
                    built.append(run)
                    if len(built) > TaskList.KEEP_LIMIT:
                        built = None  # too many to hold: rebuild them one at a time as they run
        if self.errors:
            raise InvalidSuite(self.errors)
        if not ids:
            raise self.doc.error("the suite has no tasks", ("tasks",))

        def rebuild() -> Iterator[PlannedTask]:
            # Already validated: no duplicate check, and the digest is the one computed above.
            again, rows = source()
            for index, raw in enumerate(rows):
                yield from _runs(
                    self._task(again, index, raw, suite, None, target is not None, task_digests[index])
                )

        return Plan(
            name=name,
            path=self.path,
            target_type=target_type,
            target=target,
            tasks=TaskList(ids, digests, rebuild, built),
            needs_target=needs_target,
            llm=suite.llm,
            pricing=suite.pricing,
            runtime_limits=suite.runtime_limits,
            judge_limits=suite.judge_limits,
            metrics=self.metrics,
            max_response_bytes=suite.max_response_bytes,
            max_repeat=max_repeat,
            scorecard_strategy=suite.scorecard.strategy if suite.scorecard is not None else None,
            named_evaluators=self.binder.named,
            concurrency=suite.concurrency,
            referenced_files=list(self.binder.definitions),
        )

    def _target(self, suite: SuiteFile, name: str) -> tuple[str, Target | None]:
        spec = dict(suite.target or {})
        explicit = suite.target is not None
        type_name = spec.pop("type", None if explicit else DEFAULT_TARGET)
        if not isinstance(type_name, str):
            raise self.doc.error("required field missing: the target's type", ("target", "type"))
        provided = self.registry.targets.get(type_name)
        if provided is None:
            dist = TARGET_PROVIDERS.get(type_name)
            hint = (
                f" (pip install {dist} provides it)"
                if dist
                else did_you_mean(type_name, self.registry.targets)
            )
            raise self.doc.error(f"unknown target type '{type_name}'{hint}", ("target", "type"))
        cls = provided.cls
        try:
            config = cls.Config.model_validate(spec)
        except ValidationError as exc:
            raise InvalidSuite(_validation_errors(self.doc, exc, cls.Config, ("target",))) from None
        if not explicit and not spec:
            return type_name, None
        return type_name, cls(config, SuiteContext(name=name, path=self.path))

    def _task(
        self,
        doc: YamlDocument,
        index: int,
        raw: Any,
        suite: SuiteFile,
        seen: dict[str, int] | None,
        has_target: bool,
        known_digest: str | None = None,
    ) -> PlannedTask:
        at: FieldPath = ("tasks", index)
        if not isinstance(raw, dict):
            raise doc.error("a task is a mapping with an 'id'", at)
        try:
            spec = TaskSpec.model_validate(raw)
        except ValidationError as exc:
            errors = _validation_errors(doc, exc, TaskSpec, at)
            for extra in errors[1:]:
                self.fail(extra)
            raise errors[0] from None
        if seen is not None:
            if spec.id in seen:
                where = doc.mark(("tasks", seen[spec.id], "id"))
                first = f"line {where[0]}" if where else f"task {seen[spec.id] + 1}"
                raise doc.error(f"duplicate task id '{spec.id}' (first at {first})", (*at, "id"))
            seen[spec.id] = index
        values = {**suite.defaults.vars, **spec.vars}
        prompt = spec.prompt
        messages: list[Message] | None = None
        if isinstance(spec.input, dict):
            values.update(spec.input)
        elif spec.input is not None and prompt is not None:
            raise doc.error("give prompt or input, not both", (*at, "input"))
        elif isinstance(spec.input, str):
            prompt = spec.input
        elif isinstance(spec.input, list):
            messages = [
                self._render_message(doc, (*at, "input", i), m, values) for i, m in enumerate(spec.input)
            ]
        if prompt is not None:
            prompt = self._render(
                doc, (*at, "prompt" if spec.prompt is not None else "input"), prompt, values
            )

        response = spec.response
        if isinstance(response, str):
            response = Response(output=response)
        if response is None and not has_target:
            raise doc.error("the task has no 'response:' and the suite has no 'target:'", at)

        placed = self._evaluators(doc, at, spec)
        evaluators = [evaluator for _, evaluator in placed]
        task = Task.model_construct(
            id=spec.id,
            prompt=prompt,
            messages=messages,
            input=spec.input,
            vars=values,
            response=response,
            timeout=spec.timeout or suite.defaults.timeout,
            metadata=spec.metadata,
            inputs=spec.inputs,
            expectations=spec.expectations,
            workspace=self._workspace(doc, at, spec, suite, seen is not None),
            repo=self._repo(doc, at, spec, suite, seen is not None),
            post_execution_checks=[*suite.post_execution_checks, *spec.post_execution_checks],
            max_capture_bytes=suite.max_capture_bytes,
        )
        if seen is not None:  # validation pass: let each evaluator check the task it will judge
            for path, evaluator in placed:
                try:
                    evaluator.instance.check(task)
                except ValueError as exc:
                    source = f"[evaluator '{evaluator.type}' from {evaluator.distribution}]"
                    raise doc.error(f"{exc} {source}", path) from None
        repeats = self.repeat or spec.repeat or suite.repeat or 1
        card = spec.scorecard or suite.scorecard
        if seen is not None:
            if spec.scorecard is not None:
                self._check_card(doc, (*at, "scorecard"), spec.scorecard, suite)
            if suite.judge_mode is not None or card is not None:
                self._check_task_rules(doc, at, suite, card, placed)
        planned_digest = known_digest or digest(raw, [e.spec for e in evaluators])
        return PlannedTask(task, evaluators, planned_digest, None, repeats, card)

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

    def _check_card(self, doc: YamlDocument, at: FieldPath, card: Scorecard, suite: SuiteFile) -> None:
        limits = suite.runtime_limits
        problems = check_scorecard(
            card,
            metrics=self.metrics,
            max_duration_ms=limits.max_duration_ms,
            max_cost_usd=limits.max_cost_usd,
        )
        for path, message in problems:
            self.fail(doc.error(message, (*at, *path)))
        if problems:
            raise InvalidSuite(self.errors)

    def _check_task_rules(
        self,
        doc: YamlDocument,
        at: FieldPath,
        suite: SuiteFile,
        card: Scorecard | None,
        placed: list[tuple[FieldPath, BoundEvaluator]],
    ) -> None:
        """judge_mode, and scorecard references to this task's evaluators."""
        judges = [(path, e) for path, e in placed if e.instance.llm_calls()]
        if suite.judge_mode == "deterministic" and judges:
            path, judge = judges[0]
            raise doc.error(
                f"judge_mode is deterministic, but evaluator '{judge.name}' ({judge.type}) calls a model",
                path,
            )
        if suite.judge_mode == "llm_judge" and not judges:
            raise doc.error("judge_mode is llm_judge, but this task has no LLM judge", at)
        if card is None:
            return
        names = {e.name for _, e in placed}
        where = (*at, "scorecard") if card is not self.suite_card else ("scorecard",)
        for i, dim in enumerate(card.dims):
            for name in dim.validators:
                if name not in names:
                    hint = did_you_mean(name, names)
                    raise doc.error(
                        f"dimension '{dim.key}' names evaluator '{name}', not one of this task's{hint}",
                        (*where, "dimensions", i, "validators"),
                    )
            if dim.judge_key and dim.judge_key not in names:
                raise doc.error(
                    f"dimension '{dim.key}': judge_key '{dim.judge_key}' is not an evaluator of this task",
                    (*where, "dimensions", i, "judge_key"),
                )

    def _evaluators(
        self, doc: YamlDocument, at: FieldPath, spec: TaskSpec
    ) -> list[tuple[FieldPath, BoundEvaluator]]:
        entries: list[tuple[FieldPath, Any]] = []
        if isinstance(spec.evaluate, list):
            entries += [((*at, "evaluate", i), e) for i, e in enumerate(spec.evaluate)]
        elif spec.evaluate is not None:
            entries.append(((*at, "evaluate"), spec.evaluate))
        block = self._expected_block(doc, at, spec.expected)
        for i, entry in enumerate(spec.evaluators or []):
            if "type" not in entry:
                raise doc.error("required field missing: type", (*at, "evaluators", i, "type"))
            entries.append(
                ((*at, "evaluators", i), self._fill_from_block(doc, (*at, "evaluators", i), entry, block))
            )
        for key, value in block.items():
            type_name, field = EXPECTED_BLOCK[key]
            entries.append(
                ((*at, "expected", key), {"type": type_name, "name": f"expected.{key}", field: value})
            )
        if not entries:
            raise doc.error("the task has no evaluators; add 'evaluate:'", at)
        for path, entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("file"), str):
                ref = entry["file"]
                resolved = (doc.path.parent / Path(ref).expanduser()).resolve()
                self._confine(doc, (*path, "file"), spec.id, "file", ref, resolved)
        keys: set[str] = set()
        for path, entry in entries:  # AgentClash: a validator's key names it; two alike are an error
            explicit = entry.get("key") or entry.get("name") if isinstance(entry, dict) else None
            if isinstance(explicit, str):
                if explicit in keys:
                    field = "key" if "key" in entry else "name"
                    raise doc.error(f"key '{explicit}' is used twice in this task", (*path, field))
                keys.add(explicit)
        bound = [self.binder.bind(doc, path, entry) for path, entry in entries]
        for (path, entry), evaluator in zip(entries, bound, strict=True):
            if isinstance(entry, dict) and "file" not in entry:
                self._confine_settings(doc, path, entry, spec.id, evaluator)
        names: dict[str, int] = {}
        for i, evaluator in enumerate(bound):
            count = names[evaluator.name] = names.get(evaluator.name, 0) + 1
            if count > 1:  # the same name twice in one task: keep results distinguishable
                copy = BoundEvaluator(**{**evaluator.__dict__, "name": f"{evaluator.name}#{count}"})
                bound[i] = copy
        return [(path, evaluator) for (path, _), evaluator in zip(entries, bound, strict=True)]

    def _expected_block(self, doc: YamlDocument, at: FieldPath, expected: Any) -> dict[str, Any]:
        """AI Eval's task-level ``expected:`` assertions, checked for known keys."""
        if expected is None:
            return {}
        if not isinstance(expected, dict):
            raise doc.error(
                "a task's 'expected:' is AI Eval's block of assertions: a mapping with "
                f"{', '.join(EXPECTED_BLOCK)} (for bench's matcher write evaluate: {{expected: ...}})",
                (*at, "expected"),
            )
        for key in expected:
            if key not in EXPECTED_BLOCK:
                hint = did_you_mean(str(key), EXPECTED_BLOCK)
                raise doc.error(f"unknown assertion '{key}'{hint}", (*at, "expected", key))
        return dict(expected)

    def _fill_from_block(
        self, doc: YamlDocument, path: FieldPath, entry: dict[str, Any], block: dict[str, Any]
    ) -> dict[str, Any]:
        """AI Eval's typed evaluators (``exact``, ``tool_call``, ...) take their values from the block.

        The block's entry is then judged by that evaluator (with its ``score_threshold``) instead
        of by the default one, so it is removed from ``block``.
        """
        key = READS_BLOCK.get(str(entry["type"]))
        if key is None:
            return entry
        field = EXPECTED_BLOCK[key][1]
        config = entry.get("config")
        settings: dict[str, Any] = config if isinstance(config, dict) else entry
        if field in settings or "expected_from" in settings or "expected_from" in entry:
            return entry
        if key not in block:
            raise doc.error(
                f"'{entry['type']}' takes its values from the task's expected.{key}, which is not given",
                (*path, "type"),
            )
        return {**entry, field: block.pop(key)}

    def _repo(
        self, doc: YamlDocument, at: FieldPath, spec: TaskSpec, suite: SuiteFile, check: bool
    ) -> RepoSpec | None:
        source = spec.repo or suite.repo
        if source is None:
            if check and (spec.post_execution_checks or (spec.branch or spec.ref)):
                field = "post_execution_checks" if spec.post_execution_checks else "branch"
                raise doc.error("this needs a repository: give 'repo:' (here or at the top)", (*at, field))
            return None
        where: FieldPath = (*at, "repo") if spec.repo else ("repo",)
        if check and (spec.workspace or suite.defaults.workspace):
            raise doc.error("give workspace or repo, not both", where)
        if spec.repo and source.startswith("file://"):
            parts = urlsplit(source)
            if (parts.query or parts.fragment or "#" in source or "?" in source) and isinstance(
                doc, RowsDocument
            ):
                # git reads '#' and '?' as part of the path; this check would not see the same one
                raise doc.error(f"task '{spec.id}': a file:// repo may not hold '?' or '#'", where)
            local = Path("/", unquote(parts.path)).resolve()  # file://localhost/x is /x
            self._confine(doc, where, spec.id, "repo", source, local)
        if not is_remote(source):
            resolved = (self.path.parent / source).resolve()
            if spec.repo:
                self._confine(doc, where, spec.id, "repo", source, resolved)
            if check and not resolved.is_dir():
                raise doc.error(f"repository {source} is not a directory (resolved to {resolved})", where)
            source = str(resolved)
        return RepoSpec(source=source, branch=spec.branch or suite.branch, ref=spec.ref or suite.ref)

    def _workspace(
        self, doc: YamlDocument, at: FieldPath, spec: TaskSpec, suite: SuiteFile, check: bool
    ) -> str | None:
        folder = spec.workspace or suite.defaults.workspace
        if folder is None:
            return None
        resolved = (self.path.parent / folder).resolve()
        if spec.workspace:
            self._confine(doc, (*at, "workspace"), spec.id, "workspace", folder, resolved)
        if check and not resolved.is_dir():
            raise doc.error(
                f"workspace {folder} is not a directory (resolved to {resolved})", (*at, "workspace")
            )
        return str(resolved)

    def _confine(
        self, doc: YamlDocument, path: FieldPath, task_id: str, field: str, written: str, resolved: Path
    ) -> None:
        """Refuse a path from a data row that leads outside the suite's folder (B06)."""
        if self.allow_outside_root or not isinstance(doc, RowsDocument):
            return
        real = Path(os.path.realpath(resolved))
        if real == self.root or self.root in real.parents:
            return
        raise doc.error(
            f"path escapes the suite folder: task '{task_id}' sets {field} {written} (resolved to {real}); "
            f"a data row may only name paths inside {self.root} (pass --allow-outside-root to allow it)",
            path,
        )

    def _confine_settings(
        self, doc: YamlDocument, path: FieldPath, entry: dict[str, Any], task_id: str, bound: BoundEvaluator
    ) -> None:
        """Check the settings an evaluator type names as host paths (``path_settings``), and keep
        data rows from choosing where model calls go or which credential they carry."""
        if isinstance(doc, RowsDocument):
            found = _endpoint_setting(entry)
            if found is not None:
                raise doc.error(
                    f"task '{task_id}': a data row may not choose where model calls go or which key "
                    "they send; define this evaluator in the suite file and name it from the row",
                    (*path, *found),
                )
        instance = bound.instance
        for name in type(instance).path_settings:
            value = getattr(instance.config, name, None)
            if not isinstance(value, str):
                continue
            where = (*path, name) if name in entry else (*path, "config", name)
            resolved = ((instance.folder or self.path.parent) / Path(value).expanduser()).resolve()
            self._confine(doc, where, task_id, name, value, resolved)

    def _render(self, doc: YamlDocument, path: FieldPath, template: str, values: dict[str, Any]) -> str:
        try:
            return render(template, values)
        except MissingPlaceholder as exc:
            known = ", ".join(sorted(values)) or "none"
            raise doc.error(
                f"unknown placeholder {{{exc.name}}} (vars given: {known}; write {{{{{exc.name}}}}} "
                "for a literal brace)",
                path,
            ) from None

    def _render_message(
        self, doc: YamlDocument, path: FieldPath, message: Message, values: dict[str, Any]
    ) -> Message:
        if isinstance(message.content, str):
            content = self._render(doc, (*path, "content"), message.content, values)
            return message.model_copy(update={"content": content})
        return message


#: Settings that pick a model call's destination or credential: the suite's to choose, not a row's.
ENDPOINT_SETTINGS = ("api_base", "base_url", "api_key_env", "api_key")


def _endpoint_setting(entry: Any, at: tuple[str | int, ...] = ()) -> tuple[str | int, ...] | None:
    """Where in an evaluator mapping (panels and nested settings included) an endpoint setting is."""
    if isinstance(entry, dict):
        for key, value in entry.items():
            if key in ENDPOINT_SETTINGS:
                return (*at, key)
            found = _endpoint_setting(value, (*at, key))
            if found is not None:
                return found
    elif isinstance(entry, list):
        for i, value in enumerate(entry):
            found = _endpoint_setting(value, (*at, i))
            if found is not None:
                return found
    return None


#: AI Eval's ``expected:`` keys: the evaluator type that checks each, and the setting it fills.
EXPECTED_BLOCK = {
    "exact_match": ("exact_match", "value"),
    "contains": ("contains", "value"),
    "not_contains": ("not_contains", "value"),
    "regex": ("regex", "value"),
    "json_schema": ("json_schema", "schema"),
    "tool_calls": ("tool_calls", "calls"),
}
#: AI Eval's ``evaluators:`` types whose values come from the ``expected:`` block.
READS_BLOCK = {
    "exact": "exact_match",
    "exact_match": "exact_match",
    "contains": "contains",
    "not_contains": "not_contains",
    "regex": "regex",
    "json_schema": "json_schema",
    "tool_call": "tool_calls",
    "tool_calls": "tool_calls",
}


def is_remote(source: str) -> bool:
    """Whether a ``repo:`` is a URL (``https://``, ``ssh://``, ``git@host:path``), not a local path."""
    return "://" in source or re.match(r"^[\w.-]+@[\w.-]+:", source) is not None


def choose_loader(registry: Registry, path: Path) -> YamlDocument:
    """Read a suite file with the first registered loader that claims it."""
    loaders = sorted(registry.suite_loaders.values(), key=lambda p: -p.cls.priority)
    for provided in loaders:
        loader = provided.cls()
        if loader.claims(path):
            return loader.load(path)
    raise ConfigError("no suite loader reads this kind of file (expected .yaml, .yml or .json)", file=path)


def _runs(planned: PlannedTask) -> Iterator[PlannedTask]:
    """A task once per repeat: the task itself, then copies with repeat 1..K-1."""
    yield planned
    for repeat in range(1, planned.repeats):
        yield planned.with_repeat(repeat)


def load_suite(
    path: Path | str,
    registry: Registry | None = None,
    *,
    repeat: int | None = None,
    allow_outside_root: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Plan:
    """Load and validate a suite file; raise ConfigError/InvalidSuite on any problem.

    ``repeat`` runs every task that many times, whatever the suite says. ``allow_outside_root``
    lets rows of a tasks file name paths outside the suite's folder. ``progress`` is called with
    the number of tasks checked so far, after each task.
    """
    registry = registry if registry is not None else get_registry()
    path = Path(path)
    doc = choose_loader(registry, path)
    return _SuiteBuilder(path, doc, registry, repeat, allow_outside_root, progress).build()
