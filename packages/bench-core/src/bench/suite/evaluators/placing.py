"""A task's evaluator entries gathered, bound, checked and named: once per distinct set of entries.

Tasks that write the same checks (10,000 rows with the same two) get them from a small table of
the most recent sets: bound, confined and named once, copied for each task with its own origin.
A set is reused only when nothing in it depends on the task: none of its settings is filled from
the task's vars (``{var}``), and no type keeps an instance per task (``Evaluator.aggregates``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.document import YamlDocument
from bench.evaluator import from_rows
from bench.suite.binding import Binder
from bench.suite.expected_block import ExpectedBlock, block_settings
from bench.suite.file_model import TaskSpec
from bench.suite.plan import BoundEvaluator
from bench.suite.rows import RowRules
from bench.suite.variables.evaluator_values import with_vars
from bench.suite.variables.template_check import TemplateWarnings
from bench.vocabulary.errors import FieldPath

#: How many distinct sets of entries a placer keeps for reuse (the most recent).
_SETS_KEPT = 256

Placed = list[tuple[FieldPath, BoundEvaluator]]


@dataclass(frozen=True)
class _Kept:
    """One set of entries as placed for the first task that wrote it."""

    evaluators: tuple[BoundEvaluator, ...]
    #: Per evaluator: "same" (a suite-level evaluator, handed out as it is), "copy" (a copy that
    #: keeps its origin: a definition file's) or "line" (a copy whose origin is the task's line).
    kinds: tuple[str, ...]


class EvaluatorPlacer:
    """Places the evaluators of each task of one suite (``place``)."""

    def __init__(self, binder: Binder, rows: RowRules, warnings: TemplateWarnings) -> None:
        self.binder = binder
        self.rows = rows
        self.template_warnings = warnings
        self.block_settings = block_settings(binder.registry)
        self._kept: dict[tuple[Any, ...], _Kept] = {}
        self._doc: YamlDocument | None = None
        self._file = ""

    def place(
        self, doc: YamlDocument, at: FieldPath, spec: TaskSpec, values: dict[str, Any], warn: bool
    ) -> Placed:
        """The task's evaluators, each with where it is written; ``warn``: note ``{{var}}``s."""
        entries, turns = self._entries(doc, at, spec)
        if doc is not self._doc:  # a Path hashes, compares and prints in Python: its text, once
            self._doc, self._file = doc, str(doc.path)
        key = (
            type(doc),
            self._file,
            tuple([path[len(at) :] for path, _ in entries]),
            turns,
            repr([entry for _, entry in entries]),
        )
        kept = self._kept.get(key)
        if kept is not None:
            return self._copies(doc, entries, kept)
        placed, reusable = self._bound(doc, at, spec, entries, turns, values, warn)
        if reusable:
            if len(self._kept) >= _SETS_KEPT:
                del self._kept[next(iter(self._kept))]  # the oldest
            self._kept[key] = _Kept(tuple(e for _, e in placed), tuple(self._kinds(entries, placed)))
        return placed

    def _entries(
        self, doc: YamlDocument, at: FieldPath, spec: TaskSpec
    ) -> tuple[list[tuple[FieldPath, Any]], tuple[int, ...]]:
        """The task's entries (``evaluate:``, ``evaluators:``, ``expected:``, its turns' checks),
        and the scripted turn of each turn check (the last of the entries)."""
        entries: list[tuple[FieldPath, Any]] = []
        if isinstance(spec.evaluate, list):
            entries += [((*at, "evaluate", i), e) for i, e in enumerate(spec.evaluate)]
        elif spec.evaluate is not None:
            entries.append(((*at, "evaluate"), spec.evaluate))
        if spec.expected is not None or spec.evaluators:
            block = ExpectedBlock(self.binder.registry, self.block_settings)
            block.read(doc, at, spec.expected)
            for i, entry in enumerate(spec.evaluators or []):
                if "type" not in entry:
                    raise doc.error("required field missing: type", (*at, "evaluators", i, "type"))
                entries.append(((*at, "evaluators", i), block.fill(doc, (*at, "evaluators", i), entry)))
            entries += block.entries(at)
        turns: tuple[int, ...] = ()
        if spec.conversation is not None:
            turn_checks = list(_turn_entries(at, spec))
            entries += [(path, entry) for path, entry, _ in turn_checks]
            turns = tuple(turn for _, _, turn in turn_checks)
        if not entries:
            raise doc.error("the task has no evaluators; add 'evaluate:'", at)
        return entries, turns

    def _bound(
        self,
        doc: YamlDocument,
        at: FieldPath,
        spec: TaskSpec,
        entries: list[tuple[FieldPath, Any]],
        turns: tuple[int, ...],
        values: dict[str, Any],
        warn: bool,
    ) -> tuple[Placed, bool]:
        """The entries bound, checked and named; and whether another task may reuse them."""
        for path, entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("file"), str):
                ref = entry["file"]
                resolved = (doc.path.parent / Path(ref).expanduser()).resolve()
                self.rows.confine(doc, (*path, "file"), spec.id, "file", ref, resolved)
        keys: set[str] = set()
        for path, entry in entries:  # AgentClash: a validator's key names it; two alike are an error
            explicit = entry.get("key") or entry.get("name") if isinstance(entry, dict) else None
            if isinstance(explicit, str):
                if explicit in keys:
                    field = "key" if "key" in entry else "name"
                    raise doc.error(f"key '{explicit}' is used twice in this task", (*path, field))
                keys.add(explicit)
        reusable = True
        bound: list[BoundEvaluator] = []
        for path, entry in entries:
            one, filled = self._with_vars(doc, path, entry, self.binder.bind(doc, path, entry), values, warn)
            instance = one.instance
            reusable = reusable and not filled and (not instance.aggregates or from_rows(type(instance)))
            bound.append(one)
        for (path, entry), evaluator in zip(entries, bound, strict=True):
            if isinstance(entry, dict) and "file" not in entry:
                self.rows.confine_settings(doc, path, entry, spec.id, evaluator)
        first_check = len(bound) - len(turns)
        for i, turn in enumerate(turns, start=first_check):
            evaluator = bound[i]
            name = f"turn {turn}: {evaluator.name}"
            bound[i] = BoundEvaluator(**{**evaluator.__dict__, "name": name, "turn": turn})
        names: dict[str, int] = {}
        for i, evaluator in enumerate(bound):
            count = names[evaluator.name] = names.get(evaluator.name, 0) + 1
            if count > 1:  # the same name twice in one task: keep results distinguishable
                copy = BoundEvaluator(**{**evaluator.__dict__, "name": f"{evaluator.name}#{count}"})
                bound[i] = copy
                if copy.instance.aggregates:  # its figures are reported under the new name
                    self.binder.aggregating.setdefault((copy.name, copy.type), copy.instance)
        return [(path, evaluator) for (path, _), evaluator in zip(entries, bound, strict=True)], reusable

    def _with_vars(
        self,
        doc: YamlDocument,
        path: FieldPath,
        entry: Any,
        evaluator: BoundEvaluator,
        values: dict[str, Any],
        warn: bool,
    ) -> tuple[BoundEvaluator, bool]:
        """The evaluator with its value settings filled from the task's vars (evaluator_vars), and
        whether any setting holds a placeholder; on the validation pass, a warning for each
        placeholder that cannot be what was meant."""
        try:
            filled, written = with_vars(evaluator, values)
        except ValueError as exc:
            raise doc.error(f"evaluator '{evaluator.name}': {exc}", path) from None
        for one in written if warn else ():
            # Where the setting is written in this entry; a named evaluator: the entry naming it.
            at = path
            if isinstance(entry, dict):
                config = entry.get("config")
                inner: dict[str, Any] = config if isinstance(config, dict) else {}
                at = (*path, one.setting) if one.setting in entry else at
                at = (*path, "config", one.setting) if one.setting in inner else at
            self.template_warnings.check(doc, at, one.text, values, "compared", "evaluator values")
            subject = one.setting if at != path else f"evaluator '{evaluator.name}': {one.setting}"
            for name in one.unknown:
                self.template_warnings.unknown(doc, at, subject, name, values)
        return filled, bool(written)

    def _kinds(self, entries: list[tuple[FieldPath, Any]], placed: Placed) -> Iterator[str]:
        named = {id(one) for one in self.binder.named.values()}
        for (_, entry), (_, evaluator) in zip(entries, placed, strict=True):
            # A definition file's keeps its origin, as does a suite-level one renamed (a turn's).
            keeps = "file" in entry if isinstance(entry, dict) else entry in self.binder.named
            yield "same" if id(evaluator) in named else "copy" if keeps else "line"

    def _copies(self, doc: YamlDocument, entries: list[tuple[FieldPath, Any]], kept: _Kept) -> Placed:
        """The kept evaluators for this task: a copy each (its own ``spec``), but the suite's own."""
        placed: Placed = []
        file = self._file
        for (path, _), evaluator, kind in zip(entries, kept.evaluators, kept.kinds, strict=True):
            if kind != "same":
                origin = evaluator.origin
                if kind == "line":
                    line = doc.line(path)
                    origin = f"{file}:{line}" if line else file
                fields = evaluator.__dict__.copy()  # dataclasses.replace re-runs __init__: slower
                fields["spec"] = evaluator.spec.copy()
                fields["origin"] = origin
                evaluator = object.__new__(BoundEvaluator)
                evaluator.__dict__ = fields
            placed.append((path, evaluator))
        return placed


def _turn_entries(at: FieldPath, spec: TaskSpec) -> Iterator[tuple[FieldPath, Any, int]]:
    """A conversation's per-turn checks: (where written, the entry, its scripted turn's number)."""
    conversation = spec.conversation
    if conversation is None:
        return
    base: FieldPath = (*at, "conversation")
    groups: list[tuple[FieldPath, list[Any]]] = []
    if conversation.phases is not None:
        groups = [
            ((*base, "phases", p, "turns"), phase.turns or []) for p, phase in enumerate(conversation.phases)
        ]
    elif conversation.turns is not None:
        groups = [((*base, "turns"), conversation.turns)]
    number = 0
    for where, turns in groups:
        for i, turn in enumerate(turns):
            number += 1
            checks = None if isinstance(turn, str) else turn.evaluate
            if isinstance(checks, list):
                yield from (((*where, i, "evaluate", j), c, number) for j, c in enumerate(checks))
            elif checks is not None:
                yield (*where, i, "evaluate"), checks, number
