"""A Python provider as a ``similar`` check's embedding provider: its ``call_embedding_api``.

As promptfoo 0.121.20's ``PythonProvider.callEmbeddingApi`` (``src/providers/pythonCompletion.ts``):
the script's ``call_embedding_api(text, options)`` (or the function the id names,
``file://x.py:fn``) is called once for the expected value and once for the output, in the run's
Python worker, with ``options`` = ``{id?, config: {...config, basePath}}``. It returns
``{embedding: [...]}`` or ``{error: ...}`` (the check fails with that error); anything else, or
code that raises, makes the row an error, as the exception promptfoo throws does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import EvaluatorError
from bench_formats.promptfoo.python_provider import python_script
from bench_formats.promptfoo.python_runner import (
    PythonFailure,
    PythonTimeout,
    PythonUnavailable,
    call_python,
    interpreter,
    shared_worker,
    timeout_ms,
)

FUNCTION = "call_embedding_api"


def python_provider(spec: Any) -> tuple[str, dict[str, Any]] | None:
    """(id, options) of a grading ``provider`` that is a Python script (a string, or a mapping
    with ``id``, or ``{embedding: ...}`` holding one), else None."""
    if isinstance(spec, dict) and isinstance(spec.get("embedding"), (str, dict)):
        return python_provider(spec["embedding"])
    if isinstance(spec, str):
        return (spec, {}) if python_script(spec) is not None else None
    if isinstance(spec, dict) and isinstance(spec.get("id"), str) and python_script(spec["id"]) is not None:
        return spec["id"], spec
    return None


async def embed(provider_id: str, options: dict[str, Any], text: str, folder: Path | None) -> dict[str, Any]:
    """The script's reply for ``text``: a dict with ``embedding`` or ``error``."""
    found = python_script(provider_id)
    assert found is not None
    script, function = found
    base = (folder or Path.cwd()).absolute()
    path = Path(script) if Path(script).is_absolute() else base / script
    given = options.get("config")
    config: dict[str, Any] = given if isinstance(given, dict) else {}
    sent: dict[str, Any] = {"config": {**config, "basePath": str(base)}}
    if isinstance(options.get("id"), str):
        sent = {"id": options["id"], **sent}
    name = function or FUNCTION
    what = f"similar: the embedding provider '{provider_id}'"
    try:
        limit = timeout_ms(config.get("timeout"))
        worker = shared_worker(interpreter(config.get("pythonExecutable") or None))
        result = await call_python(worker, {"file": str(path), "function": name, "args": [text, sent]}, limit)
    except PythonFailure as exc:
        raise EvaluatorError(f"{what}: Python error: {exc.error}\n{exc.traceback}".rstrip()) from None
    except (PythonTimeout, PythonUnavailable) as exc:
        raise EvaluatorError(f"{what}: did not run: {exc}") from None
    if not isinstance(result, dict) or ("embedding" not in result and "error" not in result):
        shown = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
        raise EvaluatorError(
            f"{what}: The Python script `{name}` function must return a dict with an own `embedding` "
            f"array or `error` string (inherited prototype properties are rejected), instead got {shown}"
        )
    return result
