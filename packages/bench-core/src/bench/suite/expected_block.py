"""AI Eval's task-level ``expected:`` block of assertions, turned into evaluator entries.

Which keys the block has, and which evaluator type checks each, is declared by the evaluator
types (``Evaluator.expected_block``): the block's key is the type's name, and the declaration
names the setting that the key's value fills.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from bench.document import YamlDocument
from bench.plugins.registry import Registry
from bench.vocabulary.errors import FieldPath, did_you_mean


def block_settings(registry: Registry) -> Mapping[str, str]:
    """The block's keys (in registration order) and the setting each fills; read from the types
    when a task first has a block (that imports every type registered by import path)."""
    return _BlockSettings(registry)


class _BlockSettings(Mapping[str, str]):
    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    @functools.cached_property
    def _settings(self) -> dict[str, str]:
        return {
            p.name: p.cls.expected_block
            for p in self.registry.evaluators.values()
            if p.cls.expected_block is not None and p.name == p.cls.name
        }

    def __getitem__(self, key: str) -> str:
        return self._settings[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._settings)

    def __len__(self) -> int:
        return len(self._settings)


class ExpectedBlock:
    """One task's ``expected:`` block, read against the block's keys."""

    def __init__(self, registry: Registry, settings: Mapping[str, str]) -> None:
        self.registry = registry
        self.settings = settings
        self.values: dict[str, Any] = {}

    def read(self, doc: YamlDocument, at: FieldPath, expected: Any) -> None:
        """Check the task's ``expected:`` for known keys and keep its values."""
        if expected is None:
            return
        if not isinstance(expected, dict):
            raise doc.error(
                "a task's 'expected:' is AI Eval's block of assertions: a mapping with "
                f"{', '.join(self.settings)} (for bench's matcher write evaluate: {{expected: ...}})",
                (*at, "expected"),
            )
        for key in expected:
            if key not in self.settings:
                hint = did_you_mean(str(key), self.settings)
                raise doc.error(f"unknown assertion '{key}'{hint}", (*at, "expected", key))
        self.values = dict(expected)

    def fill(self, doc: YamlDocument, path: FieldPath, entry: dict[str, Any]) -> dict[str, Any]:
        """AI Eval's typed evaluators (``exact``, ``tool_call``, ...) take their values from the block.

        The block's entry is then judged by that evaluator (with its ``score_threshold``) instead
        of by the default one, so it is removed from the block.
        """
        provided = self.registry.evaluators.get(str(entry["type"]))
        if provided is None or provided.cls.expected_block is None:
            return entry
        key, field = provided.cls.name, provided.cls.expected_block
        config = entry.get("config")
        settings: dict[str, Any] = config if isinstance(config, dict) else entry
        if field in settings or "expected_from" in settings or "expected_from" in entry:
            return entry
        if key not in self.values:
            raise doc.error(
                f"'{entry['type']}' takes its values from the task's expected.{key}, which is not given",
                (*path, "type"),
            )
        return {**entry, field: self.values.pop(key)}

    def entries(self, at: FieldPath) -> list[tuple[FieldPath, dict[str, Any]]]:
        """The block's remaining keys, each an evaluator entry of the type named after it."""
        return [
            ((*at, "expected", key), {"type": key, "name": f"expected.{key}", self.settings[key]: value})
            for key, value in self.values.items()
        ]
