"""``.youbencharc`` variables: ``${NAME}`` in a test case or eval config, as ``yb run`` substitutes them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bench import ConfigError
from bench_formats.reading import json_data, yaml_data

#: The names youBencha looks for, in its order of preference (``src/lib/config-loader.ts``).
CONFIG_FILENAMES = (
    ".youbencharc",
    ".youbencharc.yaml",
    ".youbencharc.yml",
    ".youbencharc.json",
    ".youbencha.yaml",
    ".youbencha.yml",
    ".youbencha.json",
)
_KEYS = {
    "workspace_dir",
    "output_dir",
    "timeout_ms",
    "log_level",
    "keep_workspace",
    "variables",
    "agent",
    "evaluators",
}
_VAR = re.compile(r"\$\{([^}]+)\}")


def _find(folder: Path) -> Path | None:
    for name in CONFIG_FILENAMES:
        if (folder / name).is_file():
            return folder / name
    return None


def _variables(path: Path, warnings: list[str]) -> dict[str, str]:
    """A config file's ``variables``; an invalid file is ignored with a warning, as youBencha does."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json_data(path, text) if path.suffix.lower() == ".json" else yaml_data(path, text)
    except ConfigError as exc:
        warnings.append(f"Failed to load config from {path}: {exc.message}")
        return {}
    except (OSError, ValueError) as exc:
        warnings.append(f"Failed to load config from {path}: {exc}")
        return {}
    if data is None:
        data = {}
    problem = None
    if not isinstance(data, dict):
        problem = "expected a mapping"
    elif set(data) - _KEYS:
        problem = "Unrecognized key(s) in object: " + ", ".join(f"'{k}'" for k in data if k not in _KEYS)
    elif "variables" in data and not (
        isinstance(data["variables"], dict) and all(isinstance(v, str) for v in data["variables"].values())
    ):
        problem = "variables: values must be strings"
    if problem:
        warnings.append(f"Failed to load config from {path}: {problem}")
        return {}
    return {str(k): v for k, v in (data.get("variables") or {}).items()}


def load_variables(cwd: Path, home: Path, warnings: list[str]) -> dict[str, str]:
    """User variables (``~/.youbencharc``) overridden by the project's (the working directory's)."""
    merged: dict[str, str] = {}
    for folder in (home, cwd):
        found = _find(folder)
        if found is not None:
            merged.update(_variables(found, warnings))
    return merged


def substitute(value: Any, variables: dict[str, str]) -> Any:
    """``${NAME}`` replaced in every string; an unknown name is kept as written (youBencha)."""
    if isinstance(value, str):
        return _VAR.sub(lambda m: variables.get(m.group(1), m.group(0)), value)
    if isinstance(value, list):
        return [substitute(v, variables) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, variables) for k, v in value.items()}
    return value
