"""inspect_ai's logs: a ``.json`` log, or a ``.eval`` archive (``header.json`` and ``samples/*.json``).

Each sample (and epoch) is a task: its input, its messages as the trajectory (assistant tool calls
and the tool messages answering them, a tool error kept as ``is_error``), the output's text and
token usage, and each scorer's score as an evaluator outcome. A score passes when it is correct
(``C``, true, or 1); the task passes when every score does, fails when one does not, and is an
error when the sample is. inspect_ai writes ``.eval`` archives compressed with zstd, which Python
reads from 3.14 on, and with the ``zstandard`` package (a dependency of bench-formats) before.
"""

from __future__ import annotations

import zipfile
from typing import Any

from bench import ConfigError, Response
from bench.importer import EvaluatorOutcome, ImportedRun, ImportedTask, Importer, ImportSource
from bench.llm import Message, Usage
from bench.vocabulary import loads_strict
from bench_formats.imports.common import function_call, number, text_of, tool_calls

#: zip's method number for zstd.
ZSTD = 93
#: inspect_ai's letter scores as numbers (its ``value_to_float``).
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


class InspectImporter(Importer):
    """inspect_ai's evaluation logs (``.eval`` or ``.json``)."""

    name = "inspect_ai"
    description = "inspect_ai's logs: .eval archives and .json logs"

    def claims(self, source: ImportSource) -> bool:
        archive = source.archive()
        if archive is not None:
            with archive:
                return "header.json" in archive.namelist()
        document = source.document()
        return isinstance(document, dict) and {"version", "eval", "status"} <= document.keys()

    def read(self, source: ImportSource) -> ImportedRun:
        archive = source.archive()
        if archive is not None:
            with archive:
                header = _member(archive, "header.json", source)
                names = sorted(
                    n for n in archive.namelist() if n.startswith("samples/") and n.endswith(".json")
                )
                samples = [_member(archive, name, source) for name in names]
        else:
            header = source.document()
            samples = header.get("samples") or []
        spec = header.get("eval") or {}
        tasks = [_task(s, spec) for s in samples if isinstance(s, dict)]
        results = header.get("results") or {}
        return ImportedRun(
            suite=str(spec.get("task") or "inspect_ai eval"),
            tasks=tasks,
            source={
                "tool": "inspect_ai",
                "log_version": header.get("version"),
                "status": header.get("status"),
                "run_id": spec.get("run_id"),
                "task": spec.get("task"),
                "model": spec.get("model"),
                "scores": results.get("scores") or [],
            },
            started_at=spec.get("created"),
        )


def _member(archive: zipfile.ZipFile, name: str, source: ImportSource) -> Any:
    info = archive.getinfo(name)
    if info.compress_type == ZSTD and not hasattr(zipfile, "ZIP_ZSTANDARD"):
        data = _zstd(archive, info, source)
    else:
        data = archive.read(name)
    try:
        return loads_strict(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{name} in the archive is not JSON: {exc}", file=source.path) from None


def _zstd(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: ImportSource) -> bytes:
    """A zstd member's bytes, read with the ``zstandard`` package (Python < 3.14)."""
    try:
        import zstandard
    except ImportError:
        raise ConfigError(
            "this inspect_ai log is compressed with zstd, which this Python reads only with "
            "zstandard, a dependency of bench-formats missing here: pip install zstandard, or "
            "write the log as JSON with inspect log convert --to json",
            file=source.path,
        ) from None
    assert archive.fp is not None
    archive.fp.seek(info.header_offset)
    local = archive.fp.read(30)
    start = (
        info.header_offset
        + 30
        + int.from_bytes(local[26:28], "little")
        + int.from_bytes(local[28:30], "little")
    )
    archive.fp.seek(start)
    packed = archive.fp.read(info.compress_size)
    reader = zstandard.ZstdDecompressor().stream_reader(packed, read_across_frames=True)
    return bytes(reader.read())


def _task(sample: dict[str, Any], spec: dict[str, Any]) -> ImportedTask:
    messages = [_message(m) for m in sample.get("messages") or [] if isinstance(m, dict)]
    output = sample.get("output") or {}
    usage = output.get("usage") or {}
    scores = sample.get("scores") or {}
    evaluators = [_outcome(name, score) for name, score in scores.items() if isinstance(score, dict)]
    error = sample.get("error")
    if error:
        status: str | None = "error"
    elif evaluators:
        status = "passed" if all(e.passed for e in evaluators) else "failed"
    else:
        status = None
    given = sample.get("input")
    epoch = sample.get("epoch") or 1
    target = sample.get("target")
    return ImportedTask(
        id=str(sample.get("id")),
        repeat=max(0, int(epoch) - 1),
        prompt=given if isinstance(given, str) else None,
        messages=[_message(m) for m in given] if isinstance(given, list) else None,
        metadata={**(sample.get("metadata") or {}), "target": target},
        response=Response(
            output=output.get("completion") if isinstance(output.get("completion"), str) else None,
            error=(error.get("message") if isinstance(error, dict) else str(error)) if error else None,
            messages=[Message.model_validate(m) for m in messages],
            tool_calls=tool_calls(messages),
            usage=Usage(
                input_tokens=usage.get("input_tokens"),
                output_tokens=usage.get("output_tokens"),
                total_tokens=usage.get("total_tokens"),
                latency_ms=None if number(sample.get("total_time")) is None else sample["total_time"] * 1000,
            ),
        ),
        status=status,  # type: ignore[arg-type]
        score=(sum(e.score or 0.0 for e in evaluators) / len(evaluators)) if evaluators else None,
        evaluators=evaluators,
        target={"type": "inspect_ai", "model": str(spec.get("model") or "")},
        duration_ms=(number(sample.get("total_time")) or 0.0) * 1000,
        imported={
            "tool": "inspect_ai",
            "uuid": sample.get("uuid"),
            "epoch": epoch,
            "target": target,
            "scores": scores,
            "working_time": sample.get("working_time"),
        },
    )


def _message(message: dict[str, Any]) -> dict[str, Any]:
    """An inspect_ai chat message as an OpenAI-style one (a tool's error kept as ``is_error``)."""
    role = message.get("role")
    found: dict[str, Any] = {"role": role, "content": text_of(message.get("content"))}
    if role == "assistant" and message.get("tool_calls"):
        found["tool_calls"] = [
            function_call(c.get("id"), str(c.get("function")), c.get("arguments") or {})
            for c in message["tool_calls"]
            if isinstance(c, dict)
        ]
    if role == "tool":
        found["tool_call_id"] = message.get("tool_call_id")
        found["name"] = message.get("function")
        if message.get("error"):
            found["is_error"] = True
            found["content"] = found["content"] or str((message["error"] or {}).get("message", ""))
    return found


def _outcome(name: str, score: dict[str, Any]) -> EvaluatorOutcome:
    value = score.get("value")
    if isinstance(value, str):
        numeric = _LETTERS.get(value)
    elif isinstance(value, bool):
        numeric = float(value)
    else:
        numeric = number(value)
    return EvaluatorOutcome(
        name=name,
        type=f"inspect_ai:{name}",
        passed=numeric == 1.0,
        score=numeric,
        reason=str(score.get("explanation") or score.get("answer") or ""),
        details={"value": value, "answer": score.get("answer")},
    )
