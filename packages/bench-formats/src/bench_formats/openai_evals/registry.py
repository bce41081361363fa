"""An OpenAI evals registry as ``evals/registry.py`` reads it: eval entries, aliases, modelgraded specs.

A registry is a folder with ``evals/*.yaml`` (``<name>: {id: <name>.dev.v0}`` and
``<name>.dev.v0: {class: ..., args: {...}}``), ``data/`` (the samples) and ``modelgraded/*.yaml``.
YAML is read with PyYAML's safe loader, as ``evals`` reads it (YAML 1.1: ``yes`` is true).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from bench import ConfigError
from bench_formats.reading import yaml_data

#: The modelgraded specs of ``evals``' own registry (MIT, ``evals/registry/modelgraded``).
BUNDLED_SPECS = Path(__file__).parent / "modelgraded"


@dataclass(frozen=True)
class EvalEntry:
    """One eval spec (``<base>.<split>.<version>``) and what its base eval says of it."""

    name: str
    cls: str
    args: dict[str, Any]
    description: str | None = None


def registry_root(path: Path) -> Path:
    """The registry folder: the parent of ``evals/`` when the file lies in one, else its folder."""
    folder = path.resolve().parent
    return folder.parent if folder.name == "evals" else folder


def read_entries(path: Path, text: str) -> list[EvalEntry]:
    """The evals a registry file defines: each base eval's spec (what ``oaieval MODEL NAME``
    runs), then each spec no base eval names, in file order."""
    data = yaml_data(path, text)
    if not isinstance(data, dict):
        raise ConfigError("an OpenAI evals registry file is a mapping of eval names", file=path)
    targets: dict[str, str] = {}
    for name, value in data.items():
        if isinstance(value, str) or (isinstance(value, dict) and "id" in value):
            targets[str(name)] = _resolve(data, str(name), path)
    specs = [name for name, value in data.items() if isinstance(value, dict) and "id" not in value]
    for name in specs:
        if "class" not in data[name]:
            raise ConfigError(
                f"eval '{name}': an eval spec needs 'class' (a base eval needs 'id')", file=path
            )
    order = list(dict.fromkeys([*targets.values(), *(s for s in specs if s not in targets.values())]))
    described = {target: data[base] for base, target in targets.items() if isinstance(data[base], dict)}
    entries = []
    for name in order:
        spec = data[name]
        args = spec.get("args") or {}
        if not isinstance(args, dict):
            raise ConfigError(f"eval '{name}': args must be a mapping", file=path)
        base = described.get(name, {})
        description = base.get("description") or spec.get("description")
        entries.append(EvalEntry(str(name), str(spec["class"]), args, description and str(description)))
    return entries


def _resolve(data: dict[str, Any], name: str, path: Path) -> str:
    """Follow ``id`` aliases to the spec they name (``Registry._dereference``)."""
    seen = {name}
    while True:
        value = data.get(name)
        alias = value if isinstance(value, str) else value.get("id") if isinstance(value, dict) else None
        if alias is None:
            return name
        alias = str(alias)
        if alias not in data:
            raise ConfigError(
                f"eval '{name}' names '{alias}', which this file does not define "
                "(bench reads the evals of one registry file)",
                file=path,
            )
        if alias in seen:
            raise ConfigError(f"eval '{name}': its id aliases loop back to '{alias}'", file=path)
        seen.add(alias)
        name = alias


def modelgraded_specs(root: Path) -> dict[str, Any]:
    """Modelgraded specs by name: the registry's ``modelgraded/*.yaml``, then the bundled ones
    that it does not define. Each spec mapping gets ``_file``, the file that defines it."""
    own = _specs_in(root / "modelgraded")
    return {**_bundled(), **own}


@lru_cache(maxsize=1)
def _bundled() -> dict[str, Any]:
    return _specs_in(BUNDLED_SPECS)


def _specs_in(folder: Path) -> dict[str, Any]:
    specs: dict[str, Any] = {}
    if not folder.is_dir():
        return specs
    for file in sorted(folder.glob("*.yaml")):
        data = yaml_data(file, file.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            continue
        for name, spec in data.items():
            if name in specs:
                raise ConfigError(f"duplicate modelgraded spec '{name}'", file=file)
            specs[str(name)] = {**spec, "_file": str(file)} if isinstance(spec, dict) else spec
    return specs


def resolve_spec(specs: dict[str, Any], name: str) -> tuple[str, dict[str, Any]] | None:
    """The spec ``name`` names (through ``id`` or string aliases), or None when there is none."""
    seen = set()
    while name in specs and name not in seen:
        seen.add(name)
        value = specs[name]
        alias = value if isinstance(value, str) else value.get("id") if isinstance(value, dict) else None
        if alias is None:
            return (name, value) if isinstance(value, dict) else None
        name = str(alias)
    return None
