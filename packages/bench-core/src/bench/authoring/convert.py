"""``bench convert``: the native suite a loader reads another tool's file into, as YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from bench.plugins.registry import Registry
from bench.suite.loader import build_plan, pick_loader
from bench.suite.native import NativeSuiteLoader
from bench.suite.targets import apply_target
from bench.suite_loader import LoadOptions
from bench.vocabulary.errors import ConfigError


class _Dumper(yaml.SafeDumper):
    """Block style; multi-line strings as literal blocks so prompts stay readable."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not any(c in value for c in "\r\t") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def convert(
    path: Path, registry: Registry, target: dict[str, Any] | None = None, allow_outside_root: bool = False
) -> tuple[str, list[str]]:
    """(the native suite as YAML, the loader's warnings); the suite is validated first.

    ``allow_outside_root`` lets the loader read files outside the suite's folder."""
    loader = pick_loader(registry, path, LoadOptions(target=target, allow_outside_root=allow_outside_root))
    if isinstance(loader, NativeSuiteLoader):
        raise ConfigError("this is already a native bench suite: nothing to convert", file=path)
    doc, warnings = loader.load(path), loader.warnings
    apply_target(doc, target)
    data = doc.data
    if not isinstance(data, dict):
        raise ConfigError("the loader did not produce a suite mapping", file=path)
    header = f"# bench convert {path.name}: the native bench suite bench runs for it.\n"
    header += "# Paths are relative to the original file's folder.\n"
    untargeted = "target" not in data and "targets" not in data
    if untargeted:
        header += "# It names no target: add `target:` or run it with --target SPEC.\n"
    # Refuse what bench could not run, with its errors, from the document already read; a file
    # that names no target (an AgentClash pack) is valid: the user will bring one.
    build_plan(doc, registry)
    return header + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100), warnings
