"""A suite's targets: ``target:`` and ``targets:`` built from the registered target types, and
``--target`` applied to a loaded document (replacing the file's targets, or picking one by label)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.document import YamlDocument
from bench.plugins import catalogue
from bench.plugins.registry import Registry
from bench.plugins.sandboxes import sandbox_needs
from bench.suite.file_model import SuiteFile
from bench.suite.tasks import validation_errors
from bench.target import SuiteContext, Target
from bench.vocabulary.errors import FieldPath, InvalidSuite, did_you_mean

DEFAULT_TARGET = "recorded"


class TargetBuilder:
    """Builds the targets one suite file names, with errors located in ``doc``."""

    def __init__(self, path: Path, doc: YamlDocument, registry: Registry) -> None:
        self.path = path
        self.doc = doc
        self.registry = registry

    def single(self, suite: SuiteFile, name: str) -> tuple[str, Target[Any] | None]:
        """The suite's ``target:`` and its type (``recorded`` when it names none: no target is
        built then, the tasks' responses are judged as written)."""
        spec = dict(suite.target or {})
        explicit = suite.target is not None
        type_name = spec.pop("type", None if explicit else DEFAULT_TARGET)
        if not explicit and not spec:
            self._target_class(type_name, ("target", "type"))  # the default type is registered
            return str(type_name), None
        return str(type_name), self._build(type_name, spec, name, ("target",))

    def labelled(self, suite: SuiteFile, name: str) -> dict[str, Target[Any]]:
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
            target = self._build(spec.pop("type", None), spec, name, at)
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

    def _build(self, type_name: Any, spec: dict[str, Any], name: str, at: FieldPath) -> Target[Any]:
        cls = self._target_class(type_name, (*at, "type"))
        try:
            config = cls.Config.model_validate(spec)
        except ValidationError as exc:
            raise InvalidSuite(validation_errors(self.doc, exc, cls.Config, at)) from None
        lookup = functools.partial(self._target_class, at=(*at, "type"))
        return cls(config, SuiteContext(name=name, path=self.path, target_types=lookup))


def target_resources(target: Target[Any], registry: Registry) -> frozenset[str]:
    """The resource tags every task ``target`` runs needs: its ``resources:``, and what its
    ``sandbox:`` needs (a container sandbox: ``container``), as if it declared them."""
    sandbox = getattr(target.config, "sandbox", None)
    return frozenset(target.config.resources) | sandbox_needs(sandbox, registry)


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
