"""A test's assertions made ready for the ``promptfoo`` evaluator: values rendered, files read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.promptfoo.config_env import render_grading_provider
from bench_formats.promptfoo.paths import FILE, strip_file
from bench_formats.promptfoo.render import RenderError, render, render_value

_CODE = {".js", ".cjs", ".mjs", ".ts", ".py"}


def prepare(
    asserts: list[Any], variables: dict[str, Any], base: Path, folder: SuiteFolder
) -> list[dict[str, Any]]:
    """Each assertion with its string value rendered over the vars and ``file://`` values (of
    files in ``folder``) read."""
    return [_one(item, variables, base, folder) for item in asserts]


def prepare_options(options: Any) -> dict[str, Any]:
    """A test's ``options`` with its grading ``provider`` rendered as promptfoo loads it when a
    check runs (a test read from a file was not rendered as the config loaded)."""
    out = dict(options or {})
    if "provider" in out:
        out["provider"] = render_grading_provider(out["provider"])
    return out


def _one(item: Any, variables: dict[str, Any], base: Path, folder: SuiteFolder) -> dict[str, Any]:
    assertion = dict(item) if isinstance(item, dict) else {"type": "equals", "value": item}
    if isinstance(assertion.get("metric"), str):
        assertion["metric"] = metric_name(assertion["metric"], variables)
    if "provider" in assertion:  # as promptfoo loads it when the check runs
        assertion["provider"] = render_grading_provider(assertion["provider"])
    if isinstance(assertion.get("assert"), list):
        assertion["assert"] = prepare(assertion["assert"], variables, base, folder)
    if "value" not in assertion:
        return assertion
    value = assertion["value"]
    if isinstance(value, str) and value.startswith(FILE):
        loaded, error = _file_value(value, base, folder)
        if error is not None:
            assertion["error"] = error
        else:
            assertion["value"] = loaded
        return assertion
    try:
        assertion["value"] = render_value(value, variables)
    except RenderError as exc:
        assertion["error"] = str(exc)
    return assertion


def metric_name(metric: str, variables: dict[str, Any]) -> str:
    """An assertion's ``metric`` rendered over the row's vars, as promptfoo's ``renderMetricName``:
    a template that cannot render stays as written (promptfoo logs it); an empty result names no
    metric."""
    try:
        return render(metric, variables)
    except RenderError:
        return metric


def _file_value(value: str, base: Path, folder: SuiteFolder) -> tuple[Any, str | None]:
    """A ``file://`` value as promptfoo reads it; code files stay references for the evaluator."""
    written = strip_file(value)
    path = Path(written.split(":", 1)[0] if ":" in written and not Path(written).exists() else written)
    full = path if path.is_absolute() else base / path
    suffix = full.suffix.lower()
    if suffix in _CODE:  # run by the evaluator, so it must lie in the suite's folder too
        folder.check(full, f"an assertion's value runs {value}")
        return value, None
    if suffix not in {".txt", ".json", ".yaml", ".yml", ".md"}:
        return None, f"Unsupported file type: {full}"
    folder.check(full, f"an assertion's value reads {value}")
    try:
        text = full.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, f"ENOENT: no such file or directory, open '{full}'"
    except OSError as exc:
        return None, f"cannot read '{full}': {exc.strerror}"
    if suffix == ".json":
        from bench_formats.reading import json_data

        try:
            return json_data(full, text), None
        except ValueError as exc:
            return None, f"{full}: invalid JSON: {exc}"
    if suffix in {".yaml", ".yml"}:
        from bench_formats.yaml12 import load_js_yaml

        try:
            return load_js_yaml(text, full), None
        except ConfigError as exc:
            return None, f"{full}: invalid YAML: {exc.message}"
    return text.strip(), None
