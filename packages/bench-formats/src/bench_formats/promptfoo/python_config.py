"""promptfoo's Python while the config loads: test generators and prompt functions.

Both run in the run's Python worker (``python_runner``), synchronously. ``tests:
file://gen.py[:fn]`` calls ``generate_tests`` (or ``fn``) with the ``config`` a ``{path, config}``
entry gives (no argument without one) before the first row, as promptfoo 0.121.20 does, and takes
the list it returns as tests (``readPythonTestCases``); ``prompts: file://p.py:fn`` calls ``fn``
once per row with ``{vars, provider: {id, label}, config}`` and renders what it returns as the
prompt (``pythonPromptFunction``, ``renderPrompt``): promptfoo calls it as it renders the row, bench
as it loads the config, or when the row is answered once stored outputs can change its vars
(``promptfoo-serial``). Whatever the code raises is a ``ConfigError`` with
promptfoo's ``Error running Python script: ...`` message: a generator's refuses the config, a
prompt function's is the error of its row only (the matrix makes it so, as promptfoo fails the row
it was rendering).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.promptfoo.paths import FILE, strip_file
from bench_formats.promptfoo.python_checks import script_error
from bench_formats.promptfoo.python_runner import (
    PythonFailure,
    PythonTimeout,
    PythonUnavailable,
    interpreter,
    shared_worker,
    timeout_ms,
)
from bench_formats.promptfoo.render import compact_json

#: promptfoo's default function of a Python test generator.
GENERATOR = "generate_tests"


def python_file(reference: Any) -> tuple[str, str | None] | None:
    """(path, function) of ``[file://]x.py[:fn]`` (split at the last colon, as promptfoo does), else None."""
    if not isinstance(reference, str):
        return None
    written = strip_file(reference) if reference.startswith(FILE) else reference
    path, colon, function = written.rpartition(":")
    if colon and len(path) > 1 and path.endswith(".py"):
        return path, function or None
    return (written, None) if written.endswith(".py") else None


def _call(path: Path, function: str, args: list[Any], what: str, config: Path) -> Any:
    return _ask({"file": str(path), "function": function, "args": args}, what, config)


def _ask(request: dict[str, Any], what: str, config: Path) -> Any:
    try:
        return shared_worker(interpreter()).call(request, timeout_ms())
    except PythonFailure as exc:
        raise ConfigError(f"{what}: {script_error(exc)}", file=config) from None
    except (PythonTimeout, PythonUnavailable) as exc:
        raise ConfigError(f"{what}: did not run: {exc}", file=config) from None


def generated_tests(
    reference: str,
    base: Path,
    config: Path,
    folder: SuiteFolder,
    field: tuple[Any, ...],
    settings: Any = None,
) -> list[dict[str, Any]]:
    """The tests a Python generator returns (``settings``: the entry's ``config``, its one argument)."""
    found = python_file(reference)
    assert found is not None
    written, function = found
    path = Path(written) if Path(written).is_absolute() else base / written
    if not path.is_file():
        raise ConfigError(f"no tests file matches '{reference}'", file=config, field=field)
    folder.check(path, f"tests runs {reference}", field=field)
    what = f"tests: {reference}"
    tests = _call(path, function or GENERATOR, [] if settings is None else [settings], what, config)
    if not isinstance(tests, list):
        raise ConfigError(
            f"{what}: Python test function must return a list of test cases, got {_typeof(tests)}",
            file=config,
            field=field,
        )
    for test in tests:
        if not isinstance(test, dict):
            raise ConfigError(
                f"{what}: a generated test is not a mapping: {test!r}", file=config, field=field
            )
    return tests


def prompt_text(
    path: Path,
    function: str | None,
    values: dict[str, Any],
    provider: dict[str, Any],
    settings: Any,
    config: Path,
) -> str:
    """The prompt a Python prompt function gives one row: a string as it is, ``{prompt: ...}``'s
    prompt (JSON when not a string), any other object as JSON (``renderPrompt``). Without a
    function the whole script runs with the context as JSON in ``sys.argv[1]`` and what it prints
    is the prompt, its lines joined as python-shell's text mode joins them
    (``pythonPromptFunctionLegacy``)."""
    context = {"vars": values, "provider": provider, "config": settings if settings is not None else {}}
    if function is None:
        what = f"prompt script {path.name}"
        printed = _ask({"script": str(path), "args": [compact_json(context)]}, what, config)
        lines = re.split(r"\r?\n", str(printed))
        return "\n".join(lines[:-1] if lines and lines[-1] == "" else lines)
    what = f"prompt function {path.name}:{function}"
    result = _call(path, function, [context], what, config)
    if isinstance(result, str):
        return result
    if isinstance(result, dict) and "prompt" in result:
        inner = result["prompt"]
        return inner if isinstance(inner, str) else compact_json(inner)
    if isinstance(result, (dict, list)):
        return compact_json(result)
    raise ConfigError(
        f"{what}: Prompt function must return a string or object, got {_typeof(result)}", file=config
    )


def _typeof(value: Any) -> str:
    """JavaScript's ``typeof`` of a JSON value."""
    if value is None or isinstance(value, (dict, list)):
        return "object"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string"


def python_vars(
    values: dict[str, Any], prompt: str, base: Path, folder: SuiteFolder, config: Path, row: str
) -> list[str]:
    """Replace each ``file://x.py`` var of the row's ``values`` by its script's ``get_var(name,
    prompt, vars)`` output, trimmed (``renderPrompt``: ``prompt`` is the prompt's raw template);
    the names replaced."""
    replaced: list[str] = []
    for name, value in list(values.items()):
        if not (isinstance(value, str) and value.startswith(FILE) and value.endswith(".py")):
            continue
        path = base / strip_file(value)
        folder.check(path, f"test '{row}' var '{name}' runs {value}")
        what = f"{row}: var '{name}'"
        reply = _call(path, "get_var", [name, prompt, values], what, config)
        reply = reply if isinstance(reply, dict) else {}
        if reply.get("error"):
            raise ConfigError(f"{what}: Error running Python script {path}: {reply['error']}", file=config)
        output = reply.get("output")
        if not output:
            raise ConfigError(f"{what}: Python script {path} did not return any output", file=config)
        if not isinstance(output, str):
            raise ConfigError(
                f"{what}: pythonScriptOutput.output must be a string. Received: {_typeof(output)}",
                file=config,
            )
        values[name] = output.strip()
        replaced.append(name)
    return replaced
