"""promptfoo's Python transforms: ``file://x.py[:fn]`` as an assertion's ``transform``, a test's
``options.transform`` and ``options.transformVars``, run in the run's Python worker.

As ``src/util/transform.ts`` (0.121.20): a ``.py`` file's function (``get_transform`` unless the
reference names one) is called with ``(value, context)``: the output (or the vars, for
``transformVars``) and the same ``context`` a JavaScript transform gets. What the function raises is
``Transform failed ([file transform]): Error running Python script: ...``; a ``None`` result is
``Transform function did not return a value``. Inline transforms are JavaScript (``javascript_checks``).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from bench import ConfigError, EvaluatorError, SuiteFolder
from bench_formats.promptfoo.python_checks import script_error, script_reference
from bench_formats.promptfoo.python_runner import (
    PythonFailure,
    PythonTimeout,
    PythonUnavailable,
    call_python,
    interpreter,
    shared_worker,
    timeout_ms,
)

#: promptfoo's default function of a Python transform (``getPythonTransformFunction``).
DEFAULT_FUNCTION = "get_transform"
#: promptfoo's label of any file transform (``getTransformLabel``).
LABEL = "[file transform]"


class TransformFailed(Exception):
    """The transform raised, or returned nothing: the message is promptfoo's."""


def is_python_transform(code: Any) -> bool:
    """Whether ``code`` is a ``file://x.py[:fn]`` transform."""
    return script_reference(code) is not None


def request(code: str, value: Any, context: dict[str, Any], folder: Path | None) -> dict[str, Any]:
    """The worker request that calls the transform ``code`` names with ``(value, context)``."""
    reference = script_reference(code)
    assert reference is not None
    path, function = reference
    full = Path(path) if Path(path).is_absolute() else (folder or Path.cwd()).absolute() / path
    return {"file": str(full), "function": function or DEFAULT_FUNCTION, "args": [value, context]}


def _result(value: Any) -> Any:
    if value is None:
        raise TransformFailed(f"Transform function did not return a value\n\n{LABEL}")
    return value


async def transform(what: str, code: str, value: Any, context: dict[str, Any], folder: Path | None) -> Any:
    """The transform's value at run time; every failure is an ``EvaluatorError`` naming ``what``
    (promptfoo makes the row an error)."""
    try:
        found = await call_python(
            shared_worker(interpreter()), request(code, value, context, folder), timeout_ms()
        )
        return _result(found)
    except PythonFailure as exc:
        raise EvaluatorError(f"{what}: Transform failed ({LABEL}): {script_error(exc)}") from None
    except TransformFailed as exc:
        raise EvaluatorError(f"{what}: {exc}") from None
    except (PythonTimeout, PythonUnavailable) as exc:
        raise EvaluatorError(f"{what}: did not run: {exc}") from None


def transform_now(code: str, value: Any, context: dict[str, Any], folder: Path | None) -> Any:
    """The transform's value while the config loads (``transformVars``); raises ``TransformFailed``
    with promptfoo's message, or the worker's ``PythonTimeout``/``PythonUnavailable``."""
    try:
        found = shared_worker(interpreter()).call(request(code, value, context, folder), timeout_ms())
    except PythonFailure as exc:
        raise TransformFailed(f"Transform failed ({LABEL}): {script_error(exc)}") from None
    return _result(found)


def transform_vars(
    code: str, variables: dict[str, Any], config: Path, folder: SuiteFolder, test: str
) -> dict[str, Any]:
    """A test's vars after a Python ``options.transformVars`` (``vars`` and ``context`` in, a dict
    out, merged over the vars), as promptfoo applies it before the var combinations."""
    what = f"{test}: options.transformVars"
    reference = script_reference(code)
    assert reference is not None
    path = Path(reference[0])
    folder.check(path if path.is_absolute() else config.parent / path, f"{what} reads {code}")
    context = {"prompt": {}, "uuid": str(uuid.uuid4())}
    try:
        value = transform_now(code, variables, context, config.parent)
    except TransformFailed as exc:
        raise ConfigError(f"{what}: {exc}", file=config) from None
    except (PythonTimeout, PythonUnavailable) as exc:
        raise ConfigError(f"{what}: did not run: {exc}", file=config) from None
    if not isinstance(value, dict):
        raise ConfigError(f"{what}: Transform function did not return a valid object", file=config)
    return {**variables, **value}
