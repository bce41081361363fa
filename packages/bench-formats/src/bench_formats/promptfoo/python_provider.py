"""promptfoo's Python provider (``file://x.py``, ``python:x.py``) as the bench target ``promptfoo-python``.

As ``src/providers/pythonCompletion.ts`` (0.121.20): the script's ``call_api(prompt, options,
context)`` (or the function named after the path, ``file://x.py:fn``) is called per row with the
rendered prompt, ``options`` (``id``, ``label``, ``config``) and ``context`` (``vars``, ``prompt``,
``test``...). It returns a dict with ``output`` (text, or an object bench writes as compact JSON)
or ``error`` (the row is an error), and may add ``tokenUsage`` (``total``/``prompt``/``completion``),
``cost`` and ``metadata``. The script runs in one worker process the target owns for the run
(``pythonExecutable``, else ``PROMPTFOO_PYTHON``, else bench's Python), loaded when the run
starts; each call has the provider's ``timeout`` (ms), else ``REQUEST_TIMEOUT_MS``, else 300,000 ms.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import Field

from bench import ConfigError, Response, Target, TargetConfig, TargetError, Task
from bench.llm import Usage
from bench_formats.promptfoo.python_runner import (
    PythonFailure,
    PythonTimeout,
    PythonUnavailable,
    PythonWorker,
    call_python,
    interpreter,
    timeout_ms,
)

_HELP = "\nSee https://www.promptfoo.dev/docs/providers/python/ for details."


class PromptfooPythonConfig(TargetConfig):
    """Settings of promptfoo-python (what the promptfoo loader writes for a Python provider)."""

    script: str
    """The provider's script, relative to the config's folder."""
    function: str | None = None
    """The function the provider id names (``file://x.py:fn``); default ``call_api``."""
    provider_id: str
    """The provider's id as the config writes it (``options.id``)."""
    provider_label: str | None = None
    """The provider's ``label`` (``options.label``)."""
    options: dict[str, Any] = Field(default_factory=dict)
    """The provider's ``config`` (``options.config``: ``pythonExecutable``, ``timeout`` and the
    script's own settings)."""


class PromptfooPython(Target[PromptfooPythonConfig]):
    """A promptfoo Python provider: ``call_api(prompt, options, context)`` in a worker process."""

    name = "promptfoo-python"
    Config = PromptfooPythonConfig

    async def open(self) -> None:
        config = self.config
        self.worker = PythonWorker(interpreter(_text(config.options.get("pythonExecutable"))))
        self.path = self.suite.folder / config.script
        try:  # promptfoo loads the script when the provider starts: a broken one stops the run
            await call_python(
                self.worker, {"file": str(self.path), "function": None, "args": []}, self._limit
            )
        except PythonFailure as exc:
            raise ConfigError(
                f"provider '{config.provider_id}': Failed to load module: {exc.error}", file=self.suite.path
            ) from None
        except (PythonTimeout, PythonUnavailable) as exc:
            raise ConfigError(f"provider '{config.provider_id}': {exc}", file=self.suite.path) from None

    async def respond(self, task: Task) -> Response:
        config = self.config
        function = config.function or "call_api"
        options: dict[str, Any] = {"id": config.provider_id}
        if config.provider_label is not None:
            options["label"] = config.provider_label
        options["config"] = {**config.options, "basePath": base_path(self.suite.folder)}
        args = [_prompt(task), options, _context(task)]
        request = {"file": str(self.path), "function": function, "args": args}
        try:
            result = await call_python(self.worker, request, self._limit)
        except PythonFailure as exc:
            if exc.stage == "lookup":
                raise TargetError(_not_found(function, exc)) from None
            raise TargetError(f"Python error: {exc.error}\n{exc.traceback}".rstrip()) from None
        except (PythonTimeout, PythonUnavailable) as exc:
            raise TargetError(str(exc)) from None
        return _response(function, result)

    async def close(self) -> None:
        worker = getattr(self, "worker", None)
        if worker is not None:
            worker.close()

    @property
    def _limit(self) -> float:
        return timeout_ms(self.config.options.get("timeout"))


def base_path(folder: Path | None) -> str:
    """``config.basePath`` as promptfoo passes it: the config's folder as the command named it
    (``path.dirname`` of ``-c``: ``sub`` for ``sub/promptfooconfig.yaml``, ``.`` for a bare name),
    never made absolute; empty when there is no config file."""
    return "" if folder is None else str(folder)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _prompt(task: Task) -> str:
    if task.prompt is not None:
        return task.prompt
    if task.messages:
        return json.dumps([m.model_dump(exclude_none=True) for m in task.messages], ensure_ascii=False)
    return ""


def _context(task: Task) -> dict[str, Any]:
    """promptfoo's ``callApiContext`` as JSON carries it (the non-serialisable keys dropped)."""
    metadata = task.metadata
    variables = metadata.get("vars") if isinstance(metadata.get("vars"), dict) else task.vars
    label = metadata.get("prompt") or ""
    test: dict[str, Any] = {"vars": variables}
    if metadata.get("description") is not None:
        test["description"] = metadata["description"]
    test["metadata"] = metadata.get("test") or {}
    return {
        "vars": variables,
        "prompt": {"raw": label, "label": label},
        "test": test,
        "repeatIndex": task.repeat,
    }


def _not_found(function: str, exc: PythonFailure) -> str:
    """promptfoo's persistent wrapper's message for a function the script lacks."""
    module = Path(exc.module or "script").stem
    available = ", ".join(exc.available) if exc.available else "(none)"
    return (
        f"Python error: Function '{function}' not found in module '{module}'\n\n"
        f"Available functions in your module: {available}\n\n"
        "Expected function names for promptfoo:\n"
        "  • call_api(prompt, options, context) - for chat/completions\n"
        "  • call_embedding_api(prompt, options) - for embeddings\n"
        "  • call_classification_api(prompt, options) - for classification\n" + _HELP
    )


def _response(function: str, result: Any) -> Response:
    """The provider's dict as a bench response (``validateCallApiResult``, then the row's rules)."""
    if not isinstance(result, dict) or ("output" not in result and "error" not in result):
        shown = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
        raise TargetError(
            f"The Python script `{function}` function must return a dict with an own `output` "
            "string/object or `error` string (inherited prototype properties are rejected), "
            f"instead got: {shown}"
        )
    error = result.get("error")
    if error not in (None, ""):
        raise TargetError(str(error))
    output = result.get("output")
    if output is None:
        raise TargetError("No output")
    text = (
        output if isinstance(output, str) else json.dumps(output, separators=(",", ":"), ensure_ascii=False)
    )
    tokens = _mapping(result.get("tokenUsage"))
    cost = result.get("cost")
    usage = Usage(
        input_tokens=_count(tokens.get("prompt")),
        output_tokens=_count(tokens.get("completion")),
        total_tokens=_count(tokens.get("total")),
        cost_usd=float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
    )
    metadata = _mapping(result.get("metadata"))
    if isinstance(result.get("guardrails"), dict):  # what promptfoo's guardrails check reads
        metadata = {**metadata, "guardrails": result["guardrails"]}
    return Response(output=text, usage=usage, metadata=metadata)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def python_script(provider_id: str) -> tuple[str, str | None] | None:
    """(script, function) of a Python provider id (``file://x.py[:fn]``, ``python:x.py[:fn]``), else None."""
    if provider_id.startswith("file://"):
        path = provider_id[len("file://") :]
        if not (path.endswith(".py") or ".py:" in path):
            return None
    elif provider_id.startswith("python:"):
        path = provider_id[len("python:") :]
    else:
        return None
    script, sep, function = path.rpartition(":") if ".py:" in path else (path, "", "")
    return (script, function or None) if sep else (path, None)


def python_target(provider_id: str, options: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """The ``promptfoo-python`` target of a Python provider (its id, ``label`` and ``config``)."""
    found = python_script(provider_id)
    assert found is not None
    script, function = found
    target: dict[str, Any] = {"type": PromptfooPython.name, "script": script}
    if function is not None:
        target["function"] = function
    target["provider_id"] = str(options.get("id") or provider_id)
    if options.get("label"):
        target["provider_label"] = str(options["label"])
    if settings:
        target["options"] = dict(settings)
    return target
