"""What commands load before their work: the plugins, the environment files; and what loading warns of."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer


def load_registry() -> Any:
    """The plugin registry, each plugin that failed to load warned of on stderr."""
    from bench.plugins.registry import get_registry

    registry = get_registry()
    for failure in registry.failures:
        typer.echo(f"warning: {failure}", err=True)
    return registry


def read_env_files(suite: Path, env_files: list[Path] | None, no_env_file: bool) -> None:
    """Load ``--env-file`` files, then the .env files (unless ``--no-env-file``), into the environment."""
    from bench.api import load_environment

    load_environment(suite, env_files or [], dotenv=not no_env_file)


def print_template_warnings(plan: Any) -> None:
    """Prompts that write a var as ``{{name}}``, which bench sends as text (``template_check``)."""
    for line in plan.template_warnings:
        typer.echo(f"warning: {line}", err=True)
