"""A Python provider as a grading provider: its ``call_embedding_api`` (``similar`` checks) and
``call_classification_api`` (``classifier`` checks).

As promptfoo 0.121.20's ``PythonProvider.callEmbeddingApi`` and ``callClassificationApi``
(``src/providers/pythonCompletion.ts``): the script's ``call_embedding_api(text, options)`` or
``call_classification_api(text, options)`` (or the function the id names, ``file://x.py:fn``) is
called in the run's Python worker, with ``options`` = ``{id?, config: {...config, basePath}}``.
It returns ``{embedding: [...]}`` (``{classification: {label: score}}``) or ``{error: ...}`` (the
check fails with that error); anything else, or code that raises, makes the row an error, as the
exception promptfoo throws does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import EvaluatorError
from bench_formats.promptfoo.python_provider import base_path, python_script
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
CLASSIFY = "call_classification_api"


def python_provider(spec: Any, kind: str = "embedding") -> tuple[str, dict[str, Any]] | None:
    """(id, options) of a grading ``provider`` that is a Python script (a string, or a mapping
    with ``id``, or ``{embedding: ...}`` / ``{classification: ...}`` holding one, as ``kind``
    says), else None."""
    if isinstance(spec, dict) and isinstance(spec.get(kind), (str, dict)):
        return python_provider(spec[kind], kind)
    if isinstance(spec, str):
        return (spec, {}) if python_script(spec) is not None else None
    if isinstance(spec, dict) and isinstance(spec.get("id"), str) and python_script(spec["id"]) is not None:
        return spec["id"], spec
    return None


async def embed(provider_id: str, options: dict[str, Any], text: str, folder: Path | None) -> dict[str, Any]:
    """The script's reply for ``text``: a dict with ``embedding`` or ``error``."""
    what = f"similar: the embedding provider '{provider_id}'"
    return await call_provider(provider_id, options, text, folder, FUNCTION, what)


async def classify(
    provider_id: str, options: dict[str, Any], text: str, folder: Path | None
) -> dict[str, Any]:
    """The script's reply for ``text``: a dict with ``classification`` or ``error``."""
    what = f"classifier: the classification provider '{provider_id}'"
    return await call_provider(provider_id, options, text, folder, CLASSIFY, what)


#: What each grading function must return (promptfoo's ``validate...Result`` messages).
_RETURNS = {
    FUNCTION: ("embedding", "an own `embedding` array or `error` string", "instead got"),
    CLASSIFY: ("classification", "an own `classification` object or `error` string", "instead of"),
}


async def call_provider(
    provider_id: str, options: dict[str, Any], text: str, folder: Path | None, api: str, what: str
) -> dict[str, Any]:
    """The reply of the script's ``api`` function (or the one its id names) for ``text``; an
    EvaluatorError naming ``what`` when it raised, did not run or returned no such reply."""
    found = python_script(provider_id)
    assert found is not None
    script, function = found
    base = (folder or Path.cwd()).absolute()
    path = Path(script) if Path(script).is_absolute() else base / script
    given = options.get("config")
    config: dict[str, Any] = given if isinstance(given, dict) else {}
    sent: dict[str, Any] = {"config": {**config, "basePath": base_path(folder)}}
    if isinstance(options.get("id"), str):
        sent = {"id": options["id"], **sent}
    name = function or api
    try:
        limit = timeout_ms(config.get("timeout"))
        worker = shared_worker(interpreter(config.get("pythonExecutable") or None))
        result = await call_python(worker, {"file": str(path), "function": name, "args": [text, sent]}, limit)
    except PythonFailure as exc:
        raise EvaluatorError(f"{what}: Python error: {exc.error}\n{exc.traceback}".rstrip()) from None
    except (PythonTimeout, PythonUnavailable) as exc:
        raise EvaluatorError(f"{what}: did not run: {exc}") from None
    key, returns, instead = _RETURNS[api]
    if not isinstance(result, dict) or (key not in result and "error" not in result):
        shown = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
        raise EvaluatorError(
            f"{what}: The Python script `{name}` function must return a dict with {returns} "
            f"(inherited prototype properties are rejected), {instead} {shown}"
        )
    return result
