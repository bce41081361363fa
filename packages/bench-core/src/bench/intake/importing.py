"""``bench import FILE``: the importer that claims the file reads it, and the run lands in the store."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bench.importer import Importer, ImportSource
from bench.intake.landing import Landed, land
from bench.plugins.registry import Registry
from bench.vocabulary.errors import ConfigError

_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def choose_importer(source: ImportSource, registry: Registry) -> Importer:
    """The first importer, by falling priority, that claims ``source``; a ConfigError naming the
    importers tried, or why the file is no JSON, when none does."""
    table = registry.importers
    providers = sorted(
        (p for name in table for p in table.providers(name)), key=lambda p: (-p.cls.priority, p.name)
    )
    names = sorted(table)
    for provided in providers:
        importer = provided.cls()
        if importer.claims(source):
            table.check(provided.name)  # two distributions' importers of one name: say so
            return importer
    path = source.path
    source.document()  # parsed at most once: says why the file is no JSON, if that is why
    if source.problem is not None:
        raise ConfigError(
            f"cannot import {path}: it is not complete JSON ({source.problem}); was the file cut short?"
        )
    tried = ", ".join(sorted(names)) or "none installed"
    raise ConfigError(f"cannot import {path}: no importer recognises its content (tried: {tried})")


def import_file(path: Path, runs_dir: Path, registry: Registry, run_id: str | None = None) -> Landed:
    """Read ``path`` with the importer that claims it and store it as a new run."""
    if run_id is not None and not _RUN_ID.match(run_id):
        raise ConfigError(
            f"-o {run_id}: a run id is letters, digits, '.', '_' and '-', starting with a letter or digit"
        )
    if not path.is_file():
        raise ConfigError(f"cannot import {path}: no such file")
    source = ImportSource(path)
    importer = choose_importer(source, registry)
    run = importer.read(source)
    described: dict[str, Any] = {
        **run.source,
        "importer": importer.name,
        "file": str(path.resolve()),
    }
    return land(run, described, runs_dir, run_id)
