"""Build one task of a suite: validate it, render its prompt, bind its evaluators, resolve its paths.

A task is checked against the suite it belongs to (defaults, scorecard, ``judge_mode``); paths
that a row of a tasks file names are confined by ``bench.suite.rows``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from pydantic import ValidationError

from bench.document import YamlDocument
from bench.scoring.scorecard import Scorecard
from bench.suite.binding import Binder, digest
from bench.suite.evaluators.placing import EvaluatorPlacer
from bench.suite.file_model import SuiteFile, TaskSpec
from bench.suite.plan import BoundEvaluator, IdRows, PlannedTask
from bench.suite.rows import RowRules, RowsDocument
from bench.suite.validation import describe
from bench.suite.variables.prompts import read_prompts, variants
from bench.suite.variables.template_check import TemplateWarnings
from bench.vocabulary.errors import ConfigError, FieldPath, did_you_mean
from bench.vocabulary.models import Message, RepoSpec, Response, Task
from bench.vocabulary.templates import MissingPlaceholder, render


def validation_errors(
    doc: YamlDocument, exc: ValidationError, model: Any, base: FieldPath
) -> list[ConfigError]:
    """One located error per problem pydantic found under ``base``."""
    return [doc.error(message, (*base, *loc)) for loc, message in describe(exc, model)]


class TaskBuilder:
    """Builds the tasks of one suite; problems beyond the first of a task go to ``fail``."""

    def __init__(
        self,
        path: Path,
        suite: SuiteFile,
        binder: Binder,
        rows: RowRules,
        *,
        repeat: int | None,
        overrides: dict[str, str] | None = None,
        fail: Callable[[ConfigError], None],
        check_card: Callable[[YamlDocument, FieldPath, Scorecard], None],
        target_labels: list[str] | None = None,
        ignore_task_targets: bool = False,
        suite_doc: YamlDocument | None = None,
        target_resources: dict[str | None, frozenset[str]] | None = None,
    ) -> None:
        #: The ``resources:`` of each target by label (None: the suite's ``target:``).
        self.target_resources = target_resources or {}
        self.every_target_resource = frozenset[str]().union(*self.target_resources.values())
        #: The suite's ``prompts:`` (read from ``suite_doc``): each task runs on each of them, or
        #: on the one it names.
        self.prompts = read_prompts(suite_doc, suite.prompts) if suite_doc is not None else []
        #: The labels of the suite's ``targets:``; a task's ``target:`` must name one.
        self.target_labels = target_labels or []
        self.ignore_task_targets = ignore_task_targets
        self.path = path
        self.suite = suite
        self.binder = binder
        self.rows = rows
        self.repeat = repeat
        #: ``--var`` values: they win over the suite's and the task's vars.
        self.overrides = overrides or {}
        self.fail = fail
        self.check_card = check_card
        #: ``{{var}}`` in prompts, noted on the validation pass (bench.suite.variables.template_check).
        self.template_warnings = TemplateWarnings()
        self.evaluators = EvaluatorPlacer(binder, rows, self.template_warnings)

    def build(
        self,
        doc: YamlDocument,
        index: int,
        raw: Any,
        seen: IdRows | None,
        has_target: bool,
        known_digest: str | None = None,
    ) -> PlannedTask:
        """Build task ``index`` of ``doc``; ``seen`` (ids so far) is given on the validation pass only."""
        suite = self.suite
        at: FieldPath = ("tasks", index)
        spec = self._spec(doc, index, raw, seen)
        values = {**suite.defaults.vars, **suite.vars, **spec.vars}
        if isinstance(spec.input, dict):
            values.update(spec.input)
        values.update(self.overrides)
        prompt, messages = self._prompt(doc, at, spec, values, warn=seen is not None)
        response = spec.response
        if isinstance(response, str):
            response = Response(output=response)
        elif response is not None:
            response = response.with_last_reply()  # a recorded transcript
        if response is None and not has_target:
            missing = "the task has no 'response:' and the suite has no 'target:'"
            raise doc.error(f"{missing} (add one or give --target SPEC)", at)

        placed = self.evaluators.place(doc, at, spec, values, warn=seen is not None)
        evaluators = [evaluator for _, evaluator in placed]
        task = _task(
            {
                "id": spec.id,
                "prompt": prompt,
                "messages": messages,
                "input": spec.input,
                "vars": values,
                "response": response,
                "timeout": spec.timeout or suite.defaults.timeout,
                "metadata": spec.metadata,
                "tags": spec.tags,
                "inputs": spec.inputs,
                "expectations": spec.expectations,
                "workspace": self._workspace(doc, at, spec, suite, seen is not None),
                "repo": self._repo(doc, at, spec, suite, seen is not None),
                "post_execution_checks": [*suite.post_execution_checks, *spec.post_execution_checks],
                "max_capture_bytes": suite.max_capture_bytes,
                "after_task": spec.after_task or suite.after_task,
                "tools": spec.tools,
                "tool_mocks": spec.tool_mocks,
                "max_steps": spec.max_steps,
                "conversation": spec.conversation,
                "group": spec.group,
            }
        )
        repeats = self.repeat or spec.repeat or suite.repeat or 1
        card = spec.scorecard or suite.scorecard
        if seen is not None:
            self._check_task(doc, at, spec, task, card, placed)
        # --var changes prompts: a resumed run must see the tasks as edited (nothing else changes
        # the digest, so runs without --var resume as before).
        given = [self.overrides] if self.overrides else []
        planned_digest = known_digest or digest(raw, [e.spec for e in evaluators], *given)
        label = self._target_label(doc, at, spec)
        threshold = spec.pass_at_k if spec.pass_at_k is not None else suite.pass_at_k
        planned = PlannedTask(task, evaluators, planned_digest, None, repeats, card, label, threshold)
        # A task without a target label runs on each target: it needs what each of them needs.
        targeted = self.target_resources.get(label, frozenset()) if label else self.every_target_resource
        planned.resources = targeted
        if suite.defaults.resources or spec.resources:
            planned.resources = frozenset([*suite.defaults.resources, *spec.resources]) | targeted
        return self._on_prompts(doc, at, spec, planned)

    def _on_prompts(
        self, doc: YamlDocument, at: FieldPath, spec: TaskSpec, planned: PlannedTask
    ) -> PlannedTask:
        """``planned`` with its prompt variants: the suite's ``prompts:`` rendered for it (run on the
        one its ``prompt_label`` names), or its own prompt labelled."""
        task = planned.task
        if not self.prompts:
            if spec.prompt_label is not None:
                planned.task = task.model_copy(update={"prompt_label": spec.prompt_label})
            return planned
        if task.messages is not None:
            raise doc.error(
                "the suite's prompts: are text templates; this task's input is a conversation", (*at, "input")
            )
        prompts = self.prompts
        if spec.prompt_label is not None:
            prompts = [p for p in self.prompts if p.label == spec.prompt_label]
            if not prompts:
                known = ", ".join(p.label for p in self.prompts)
                raise doc.error(
                    f"unknown prompt '{spec.prompt_label}'; the suite's prompts are {known}",
                    (*at, "prompt_label"),
                )
        found = variants(doc, at, prompts, task.prompt, task.vars, planned.digest)
        if spec.prompt_label is None:
            planned.prompt_variants = found
            return planned
        update = {"prompt": found[0].text, "prompt_label": found[0].label}
        planned.task = task.model_copy(update=update)
        planned.digest = found[0].digest
        return planned

    def _spec(self, doc: YamlDocument, index: int, raw: Any, seen: IdRows | None) -> TaskSpec:
        """The task as written, validated; with ``seen``, its id checked against the earlier tasks'."""
        at: FieldPath = ("tasks", index)
        if not isinstance(raw, dict):
            raise doc.error("a task is a mapping with an 'id'", at)
        try:
            spec = TaskSpec.model_validate(raw)
        except ValidationError as exc:
            errors = validation_errors(doc, exc, TaskSpec, at)
            for extra in errors[1:]:
                self.fail(extra)
            raise errors[0] from None
        if seen is not None:
            first_row = seen.setdefault(spec.id, index)
            if first_row != index:
                where = doc.mark(("tasks", first_row, "id"))
                first = f"line {where[0]}" if where else f"task {first_row + 1}"
                raise doc.error(f"duplicate task id '{spec.id}' (first at {first})", (*at, "id"))
        return spec

    def _prompt(
        self, doc: YamlDocument, at: FieldPath, spec: TaskSpec, values: dict[str, Any], *, warn: bool
    ) -> tuple[str | None, list[Message] | None]:
        """The task's prompt and messages, rendered with ``values``; ``warn``: note ``{{var}}``s."""
        prompt = spec.prompt
        messages: list[Message] | None = None
        if spec.input is not None and not isinstance(spec.input, dict) and prompt is not None:
            raise doc.error("give prompt or input, not both", (*at, "input"))
        if isinstance(spec.input, str):
            prompt = spec.input
        elif isinstance(spec.input, list):
            messages = [
                self._render_message(doc, (*at, "input", i), m, values) for i, m in enumerate(spec.input)
            ]
        if prompt is not None:
            field: FieldPath = (*at, "prompt" if spec.prompt is not None else "input")
            if warn:
                self.template_warnings.check(doc, field, prompt, values)
            prompt = self._render(doc, field, prompt, values)
        if warn and isinstance(spec.input, list):
            for i, message in enumerate(spec.input):
                if isinstance(message.content, str):
                    self.template_warnings.check(doc, (*at, "input", i, "content"), message.content, values)
        return prompt, messages

    def _check_task(
        self,
        doc: YamlDocument,
        at: FieldPath,
        spec: TaskSpec,
        task: Task,
        card: Scorecard | None,
        placed: list[tuple[FieldPath, BoundEvaluator]],
    ) -> None:
        """The validation pass: each evaluator checks the task it will judge, then the task's
        scorecard and the suite's rules for its evaluators."""
        for path, evaluator in placed:
            try:
                evaluator.instance.check(task)
            except ValueError as exc:
                source = f"[evaluator '{evaluator.type}' from {evaluator.distribution}]"
                raise doc.error(f"{exc} {source}", path) from None
        if spec.scorecard is not None:
            self.check_card(doc, (*at, "scorecard"), spec.scorecard)
        if self.suite.judge_mode is not None or card is not None:
            self._check_task_rules(doc, at, card, placed)

    def _target_label(self, doc: YamlDocument, at: FieldPath, spec: TaskSpec) -> str | None:
        if spec.target is None or self.ignore_task_targets:
            return None
        if not self.target_labels:
            raise doc.error(
                f"the task names target '{spec.target}', but the suite has no 'targets:'", (*at, "target")
            )
        if spec.target not in self.target_labels:
            known = ", ".join(self.target_labels)
            raise doc.error(
                f"unknown target '{spec.target}'; the suite's targets are {known}", (*at, "target")
            )
        return spec.target

    def _check_task_rules(
        self,
        doc: YamlDocument,
        at: FieldPath,
        card: Scorecard | None,
        placed: list[tuple[FieldPath, BoundEvaluator]],
    ) -> None:
        """judge_mode, and scorecard references to this task's evaluators."""
        suite = self.suite
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
        where = (*at, "scorecard") if card is not suite.scorecard else ("scorecard",)
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
            self.rows.confine(doc, where, spec.id, "repo", source, local)
        if not is_remote(source):
            resolved = (self.path.parent / source).resolve()
            if spec.repo:
                self.rows.confine(doc, where, spec.id, "repo", source, resolved)
            if check and not resolved.is_dir():
                raise doc.error(f"repository {source} is not a directory (resolved to {resolved})", where)
            source = str(resolved)
        return RepoSpec(
            source=source,
            branch=spec.branch or suite.branch,
            ref=spec.ref or suite.ref,
            workspace_dir=self._placement(doc, suite, source) if suite.workspace_dir else None,
            workspace_name=suite.workspace_name,
        )

    def _placement(self, doc: YamlDocument, suite: SuiteFile, source: str) -> str:
        """The suite's ``workspace_dir``, absolute; refused where a copy would land in its source."""
        assert suite.workspace_dir is not None
        folder = (self.path.parent / suite.workspace_dir).resolve()
        if not is_remote(source) and folder.is_relative_to(Path(source)):
            raise doc.error(
                f"{suite.workspace_dir} is inside the repository it copies ({source}): "
                "each task's copy would hold the copies before it; give a folder outside it",
                ("workspace_dir",),
            )
        if folder.exists() and not folder.is_dir():
            raise doc.error(f"{suite.workspace_dir} is not a folder ({folder})", ("workspace_dir",))
        return str(folder)

    def _workspace(
        self, doc: YamlDocument, at: FieldPath, spec: TaskSpec, suite: SuiteFile, check: bool
    ) -> str | None:
        folder = spec.workspace or suite.defaults.workspace
        if folder is None:
            return None
        resolved = (self.path.parent / folder).resolve()
        if spec.workspace:
            self.rows.confine(doc, (*at, "workspace"), spec.id, "workspace", folder, resolved)
        if check and not resolved.is_dir():
            raise doc.error(
                f"workspace {folder} is not a directory (resolved to {resolved})", (*at, "workspace")
            )
        return str(resolved)

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


#: Task's fields in the order it declares them, each with its default (None: a factory's).
_TASK_FIELDS = {
    name: None if field.default_factory is not None else field.default
    for name, field in Task.model_fields.items()
}
_TASK_FACTORIES = frozenset(
    name for name, field in Task.model_fields.items() if field.default_factory is not None
)


def _task(values: dict[str, Any]) -> Task:
    """``Task.model_construct(**values)`` without pydantic's walk over every field (a tenth of
    building a recorded task): the fields not in ``values`` take their plain defaults."""
    if not values.keys() >= _TASK_FACTORIES:  # a field whose default is made per task
        return Task.model_construct(**values)
    task = Task.__new__(Task)
    fields = _TASK_FIELDS.copy()
    fields.update(values)
    object.__setattr__(task, "__dict__", fields)
    object.__setattr__(task, "__pydantic_fields_set__", set(values))
    object.__setattr__(task, "__pydantic_extra__", None)
    object.__setattr__(task, "__pydantic_private__", None)
    return task


def is_remote(source: str) -> bool:
    """Whether a ``repo:`` is a URL (``https://``, ``ssh://``, ``git@host:path``), not a local path."""
    return "://" in source or re.match(r"^[\w.-]+@[\w.-]+:", source) is not None
