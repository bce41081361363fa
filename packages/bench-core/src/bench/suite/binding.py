"""Resolve evaluator entries (names, inline mappings, definition files) into configured instances.

An entry is one of:

- a name: an evaluator under the suite's ``evaluators:``, or a registered type with no settings;
- a mapping: ``type:`` names a registered type; without it, a type whose ``infer_from`` names one
  of the mapping's keys is chosen (seed 000: ``prompt`` selects the LLM judge);
- ``{file: PATH}``: a youBencha definition file (``name``, ``description``, ``config``);
- ``{name: NAME, config: {...}}``: youBencha's inline form; ``key:`` (AgentClash) also names it.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.document import YamlDocument, load_yaml
from bench.evaluator import Evaluator, from_rows
from bench.evidence import parse_reference
from bench.plugins import catalogue
from bench.plugins.registry import Provided, Registry
from bench.suite.file_model import DefinitionFile, EvaluatorCommon
from bench.suite.plan import BoundEvaluator, CalibrationBar
from bench.suite.validation import describe
from bench.vocabulary.errors import ConfigError, FieldPath, did_you_mean

NEGATION_PREFIX = "not-"
_COMMON = set(EvaluatorCommon.model_fields)
_DEFINITION_MAX_BYTES = 10 * 1024 * 1024
_NO_COMMON = EvaluatorCommon()
#: How many bound mappings a Binder keeps for reuse.
_BOUND_KEPT = 256


_ASYNC: dict[type[Any], bool] = {}


def _is_async(cls: type[Evaluator[Any]]) -> bool:
    if cls not in _ASYNC:
        _ASYNC[cls] = inspect.iscoroutinefunction(cls.evaluate)
    return _ASYNC[cls]


def _accepts(cls: type[Evaluator[Any]], key: str) -> bool:
    """Whether an evaluator type takes the setting ``key`` (its own or a common one)."""
    fields = cls.Config.model_fields
    return key in _COMMON or any(key in (name, info.alias) for name, info in fields.items())


class Binder:
    """Binds evaluator entries against the registry; caches definition files by real path."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.named: dict[str, BoundEvaluator] = {}
        self.definitions: dict[Path, YamlDocument] = {}
        #: The first instance bound under each (name, type) whose type has suite-level figures:
        #: the run computes those figures for every one of them, whichever tasks ran where.
        self.aggregating: dict[tuple[str, str], Evaluator[Any]] = {}
        #: Whether some evaluator re-decides groups of rows together (``Evaluator.groups``).
        self.grouping = False
        #: Bound mappings by what decides them, so 10,000 tasks with the same checks validate and
        #: configure each distinct mapping once (only ``origin`` differs between them). The most
        #: recent few only: tasks with a mapping each (their own ``expected:``) must not make the
        #: memory of a large suite grow with it (bench.suite.plan.TaskList).
        self._bound: dict[tuple[Any, ...], BoundEvaluator] = {}
        #: The type inferred for each set of keys written without ``type:`` (the most recent few).
        self._inferred: dict[frozenset[str], str | None] = {}

    # -- entry points -------------------------------------------------------------------------

    def bind_named(self, doc: YamlDocument, evaluators: dict[str, Any]) -> None:
        """Bind the suite's ``evaluators:`` mapping; each becomes usable by name."""
        for name, entry in evaluators.items():
            path: FieldPath = ("evaluators", name)
            if not isinstance(entry, dict):
                raise doc.error("an evaluator is a mapping of settings", path)
            self.named[name] = self.bind_mapping(doc, path, entry, default_name=name)

    def bind(self, doc: YamlDocument, path: FieldPath, entry: Any) -> BoundEvaluator:
        """Bind one entry of a task's ``evaluate:`` (a name or a mapping)."""
        if isinstance(entry, str):
            return self._bind_name(doc, path, entry)
        if isinstance(entry, dict):
            return self.bind_mapping(doc, path, entry)
        raise doc.error("an evaluator is a name or a mapping", path)

    # -- names --------------------------------------------------------------------------------

    def _bind_name(self, doc: YamlDocument, path: FieldPath, name: str) -> BoundEvaluator:
        if name in self.named:
            return self.named[name]
        if name in self.registry.evaluators:
            return self.bind_mapping(doc, path, {"type": name})
        choices = [*self.named, *self.registry.evaluators]
        hint = catalogue.hint("evaluators", name) or did_you_mean(name, choices)
        raise doc.error(f"unknown evaluator '{name}'{hint}", path)

    @functools.cached_property
    def claims(self) -> dict[str, list[Provided[type[Evaluator[Any]]]]]:
        """Setting -> the types that claim it for a mapping without ``type:`` (``infer_from``);
        read on the first such mapping (``Registry.evaluator_claims``)."""
        return self.registry.evaluator_claims()

    def _inferred_type(self, settings: dict[str, Any]) -> str | None:
        """The type that claims the keys of a mapping without ``type:``; none when ambiguous.
        Decided once per distinct set of keys: 10,000 ``{expected: ...}`` tasks ask once."""
        keys = frozenset(settings)
        if keys not in self._inferred:
            if len(self._inferred) >= _BOUND_KEPT:
                del self._inferred[next(iter(self._inferred))]  # the oldest
            self._inferred[keys] = self._infer(keys)
        return self._inferred[keys]

    def _infer(self, keys: frozenset[str]) -> str | None:
        claimed = [key for key in keys if key in self.claims]
        candidates: set[type[Evaluator[Any]]] = set()
        for key in claimed:
            for provided in self.claims[key]:
                loaded = self.registry.evaluators.load(provided)  # only the claimants are imported
                if loaded is not None:
                    candidates.add(loaded.cls)
        if len(candidates) > 1:
            candidates = {cls for cls in candidates if all(_accepts(cls, key) for key in claimed)}
        return candidates.pop().name if len(candidates) == 1 else None

    # -- mappings -----------------------------------------------------------------------------

    def bind_mapping(
        self,
        doc: YamlDocument,
        path: FieldPath,
        entry: dict[str, Any],
        *,
        default_name: str | None = None,
        default_type: str | None = None,
        in_definition: str | None = None,
    ) -> BoundEvaluator:
        path = tuple(path)
        key = (doc.path, repr(entry), default_name, default_type, in_definition)
        known = self._bound.get(key)
        if known is not None:
            line = doc.line(path)
            origin = f"{doc.path}:{line}" if line else str(doc.path)
            copy = object.__new__(BoundEvaluator)  # dataclasses.replace re-runs __init__: slower
            copy.__dict__.update(known.__dict__, origin=origin, spec=dict(known.spec))
            return copy
        bound = self._bind_mapping(doc, path, entry, default_name, default_type, in_definition)
        if bound.instance.aggregates:
            self.aggregating.setdefault((bound.name, bound.type), bound.instance)
        self.grouping |= bound.instance.in_groups()
        # A type that aggregates over its instances needs one instance per task (runner.aggregators);
        # one whose figures come from the stored rows (corpus BLEU) can share one, like the rest.
        shared = not bound.instance.aggregates or from_rows(type(bound.instance))
        if "file" not in entry and shared:
            if len(self._bound) >= _BOUND_KEPT:
                del self._bound[next(iter(self._bound))]  # the oldest
            self._bound[key] = bound
        return bound

    def _bind_mapping(
        self,
        doc: YamlDocument,
        path: tuple[Any, ...],
        entry: dict[str, Any],
        default_name: str | None,
        default_type: str | None,
        in_definition: str | None,
    ) -> BoundEvaluator:
        if "file" in entry:
            return self._bind_file_entry(doc, path, entry, in_definition)
        settings, origin = self._flatten(doc, path, entry)
        if "file" in settings and in_definition is not None:
            raise doc.error(
                "a definition file cannot reference another definition file "
                f"({in_definition} -> {settings['file']})",
                origin["file"],
            )
        common, threshold = self._common(doc, path, settings, origin)
        name = common.name or common.key or default_name
        provided, negate = self._provided(doc, path, settings, origin, common, default_name, default_type)
        cls = provided.cls
        # A type sees a common setting (say expect_error) only when its Config declares it.
        own = cls.Config.model_fields
        type_settings = {k: v for k, v in settings.items() if k not in _COMMON or k in own}
        instance = self._configure(doc, path, origin, provided, type_settings)
        spec = {k: v for k, v in settings.items() if k not in ("name", "key", "description")}
        spec["type"] = cls.name
        spec["negate"] = negate
        line = doc.line(path)
        return BoundEvaluator(
            name=name or cls.name,
            type=cls.name,
            distribution=provided.distribution,
            instance=instance,
            is_async=_is_async(cls),
            weight=common.weight,
            threshold=threshold,
            threshold_direction=cls.threshold_direction,
            negate=negate,
            expect_error=common.expect_error,
            origin=f"{doc.path}:{line}" if line else str(doc.path),
            spec=spec,
            target=common.target,
            expected_from=common.expected_from,
            calibration=self._calibration(doc, common, instance, origin),
            over=common.over,
        )

    def _bind_file_entry(
        self, doc: YamlDocument, path: tuple[Any, ...], entry: dict[str, Any], in_definition: str | None
    ) -> BoundEvaluator:
        """``{file: PATH}``: the evaluator a definition file describes."""
        if "name" in entry:
            raise doc.error("Evaluator config with both name and file", path)
        if in_definition is not None:
            raise doc.error(
                "a definition file cannot reference another definition file "
                f"({in_definition} -> {entry['file']})",
                (*path, "file"),
            )
        extra = sorted(set(entry) - {"file"})
        if extra:
            raise doc.error("unknown field next to 'file'", (*path, extra[0]))
        return self._bind_file(doc, (*path, "file"), entry["file"])

    def _common(
        self, doc: YamlDocument, path: tuple[Any, ...], settings: dict[str, Any], origin: dict[str, Any]
    ) -> tuple[EvaluatorCommon, float | None]:
        """The settings every evaluator takes, validated, and the entry's threshold."""
        common_values = {k: v for k, v in settings.items() if k in _COMMON}
        try:
            common = EvaluatorCommon.model_validate(common_values) if common_values else _NO_COMMON
        except ValidationError as exc:
            loc, message = describe(exc, EvaluatorCommon)[0]
            raise doc.error(message, origin.get(str(loc[0]), path) if loc else path) from None
        for ref_field in ("target", "expected_from"):
            ref = getattr(common, ref_field)
            if ref is not None:
                try:
                    parse_reference(ref)
                except ValueError as exc:
                    raise doc.error(str(exc), origin[ref_field]) from None
        if common.threshold is not None and common.score_threshold is not None:
            raise doc.error("give threshold or score_threshold, not both", origin["threshold"])
        return common, common.threshold if common.threshold is not None else common.score_threshold

    def _provided(
        self,
        doc: YamlDocument,
        path: tuple[Any, ...],
        settings: dict[str, Any],
        origin: dict[str, Any],
        common: EvaluatorCommon,
        default_name: str | None,
        default_type: str | None,
    ) -> tuple[Provided[type[Evaluator[Any]]], bool]:
        """The registered type an entry names or implies, and whether its verdict is negated."""
        name = common.name or common.key or default_name
        type_name = common.type if common.type in self.registry.evaluators else None
        # youBencha definitions put their agent's type under config.type ("copilot-cli"): when
        # that is no evaluator type but the name is ("agentic-judge:x"), the name decides.
        type_name = (
            type_name or self._type_from_name(common.name or common.key) or common.type or default_type
        )
        if type_name is None:
            type_name = self._inferred_type(settings)
        # A key under the suite's evaluators: names a type only when the fields do not.
        type_name = type_name or self._type_from_name(default_name)
        if type_name is None:
            hint = did_you_mean(name, self.registry.evaluators) if name else ""
            raise doc.error(f"cannot tell the evaluator type; add 'type:'{hint}", path)
        provided = self.registry.evaluators.get(type_name)
        negate = common.negate
        if provided is None and type_name.startswith(NEGATION_PREFIX):
            # promptfoo's spelling: "not-is_json" is is_json with negate: true
            provided = self.registry.evaluators.get(type_name[len(NEGATION_PREFIX) :])
            negate = provided is not None and not negate
        if provided is None:
            where = origin.get("type", path)
            hint = catalogue.hint("evaluators", type_name) or did_you_mean(
                type_name, self.registry.evaluators
            )
            raise doc.error(f"unknown evaluator type '{type_name}'{hint}", where)
        return provided, negate

    def _calibration(
        self, doc: YamlDocument, common: EvaluatorCommon, instance: Evaluator[Any], origin: dict[str, Any]
    ) -> CalibrationBar | None:
        if common.calibration is None:
            return None
        from bench.llm.judge import Judge

        if not isinstance(instance, Judge):
            raise doc.error(f"only a judge can be calibrated, not {instance.name}", origin["calibration"])
        return CalibrationBar(doc.path.parent / common.calibration.labels, common.calibration.min_kappa)

    def _flatten(
        self, doc: YamlDocument, path: tuple[Any, ...], entry: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, tuple[Any, ...]]]:
        """Merge flat settings with those under ``config:``, remembering where each was written."""
        settings = {k: v for k, v in entry.items() if k != "config"}
        origin = {k: (*path, k) for k in settings}
        config = entry.get("config")
        if config is None:
            return settings, origin
        if not isinstance(config, dict):
            raise doc.error("config must be a mapping of settings", (*path, "config"))
        for key, value in config.items():
            if key in settings:
                raise doc.error(f"'{key}' is given both here and under config", (*path, key))
            settings[key] = value
            origin[key] = (*path, "config", key)
        return settings, origin

    def _type_from_name(self, name: str | None) -> str | None:
        if not name:
            return None
        for candidate in (name, name.split(":", 1)[0]):
            if candidate in self.registry.evaluators:
                return candidate
        return None

    def _configure(
        self,
        doc: YamlDocument,
        path: tuple[Any, ...],
        origin: dict[str, tuple[Any, ...]],
        provided: Provided[type[Evaluator[Any]]],
        settings: dict[str, Any],
    ) -> Evaluator[Any]:
        cls = provided.cls
        try:
            config = cls.Config.model_validate(settings)
        except ValidationError as exc:
            errors = []
            for loc, message in describe(exc, cls.Config, also_valid=_COMMON):
                field = (*origin.get(str(loc[0]), (*path, loc[0])), *loc[1:]) if loc else path
                errors.append(
                    doc.error(f"{message} [evaluator '{cls.name}' from {provided.distribution}]", field)
                )
            raise errors[0] from None
        return cls.configured(config, doc.path.parent)

    # -- definition files ---------------------------------------------------------------------

    def _bind_file(self, doc: YamlDocument, path: tuple[Any, ...], ref: Any) -> BoundEvaluator:
        if not isinstance(ref, str) or not ref.strip():
            raise doc.error("file must be a path to an evaluator definition", path)
        resolved = (doc.path.parent / Path(ref).expanduser()).resolve()
        definition = self.definitions.get(resolved)
        if definition is None:
            try:
                definition = load_yaml(resolved, max_bytes=_DEFINITION_MAX_BYTES, interpolate=True)
            except ConfigError as exc:
                reason = exc.message if exc.file == str(resolved) and exc.line is None else exc.render()
                raise doc.error(
                    f"Failed to load evaluator definition from {ref}: {reason} (resolved to {resolved})",
                    path,
                ) from None
            self.definitions[resolved] = definition
        data = definition.data
        if not isinstance(data, dict):
            raise definition.error(
                "Invalid evaluator definition: a mapping with name, description and config"
            )
        try:
            parsed = DefinitionFile.model_validate(data)
        except ValidationError as exc:
            loc, message = describe(exc, DefinitionFile)[0]
            if message == "required field missing":
                message = "Required"
            field = ".".join(str(p) for p in loc)
            line, column = definition.mark(loc) or (None, None)
            raise ConfigError(
                f"Invalid evaluator definition: {field}: {message}",
                file=definition.path,
                line=line,
                column=column,
            ) from None
        return self.bind_mapping(
            definition,
            (),
            {"name": parsed.name, "config": parsed.config or {}},
            in_definition=str(resolved),
        )


def digest(*parts: Any) -> str:
    """A short hash of plain data (used to notice edited tasks on resume).

    ``repr`` of the YAML/JSON values is stable across processes and much cheaper than sorted
    JSON; reordering keys in the file changes it, which only means a task is run again.
    """
    return hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()
