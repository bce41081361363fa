"""Tasks of the basic classes (``Match``, ``Includes``, ``FuzzyMatch``, ``JsonMatch``): one per sample."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import ConfigError
from bench_formats.openai_evals.registry import EvalEntry
from bench_formats.openai_evals.samples import data_path, read_samples
from bench_formats.openai_evals.text import is_chat_prompt
from bench_formats.promptfoo.escape import escape

#: Each class's arguments besides ``samples_jsonl`` (and ``seed``, which every eval takes).
ARGS = {
    "Match": {"max_tokens", "num_few_shot", "few_shot_jsonl"},
    "Includes": {"ignore_case"},
    "FuzzyMatch": {"max_tokens"},
    "JsonMatch": {"max_tokens"},
}
Where = Callable[[str], ConfigError]


def messages_of(prompt: Any) -> list[dict[str, Any]]:
    """The chat messages ``oaieval`` sends a chat model: a text prompt is one system message."""
    messages = [{"role": "system", "content": prompt}] if isinstance(prompt, str) else prompt
    return [
        {**message, "content": escape(message["content"])}
        if isinstance(message.get("content"), str)
        else message
        for message in messages
    ]


def check_args(entry: EvalEntry, kind: str, allowed: set[str], file: Path) -> None:
    """Refuse an argument the class does not take (``evals`` fails with a TypeError)."""
    for name in entry.args:
        if name not in allowed | {"samples_jsonl", "seed"}:
            raise ConfigError(
                f"eval '{entry.name}': {kind}.__init__() got an unexpected keyword argument '{name}'",
                file=file,
            )
    if "samples_jsonl" not in entry.args:
        raise ConfigError(f"eval '{entry.name}': {kind} needs samples_jsonl", file=file)


def basic_tasks(
    entry: EvalEntry, kind: str, root: Path, rule: Any, file: Path, ids: Callable[[int], str]
) -> list[dict[str, Any]]:
    """One task per sample, judged by ``openai_evals`` as ``kind``."""
    check_args(entry, kind, ARGS[kind], file)
    few_shot = _few_shot(entry, root, rule, file) if kind == "Match" else []
    evaluator: dict[str, Any] = {"type": "openai_evals", "eval_class": kind}
    if kind == "Includes" and entry.args.get("ignore_case"):
        evaluator["ignore_case"] = bool(entry.args["ignore_case"])
    path = data_path(root, entry.args["samples_jsonl"], entry.name, "samples_jsonl", rule, file)
    tasks = []
    for index, (source, line, sample) in enumerate(read_samples(path)):

        def where(message: str, source: Path = source, line: int = line) -> ConfigError:
            return ConfigError(f"eval '{entry.name}': {message}", file=source, line=line)

        ideal = _ideal(sample, kind, where)
        prompt = sample["input"]
        if not isinstance(prompt, str) and not is_chat_prompt(prompt):
            raise where("sample['input'] must be a text or a list of chat messages")
        if few_shot:
            if not is_chat_prompt(prompt):
                raise where("few shot requires chat prompt")
            prompt = [*prompt[:-1], *few_shot, *prompt[-1:]]
        check: dict[str, Any] = {**evaluator, "ideal": ideal}
        tasks.append(
            {
                "id": ids(index),
                "input": messages_of(prompt),
                "evaluate": check,
                "metadata": {"eval": entry.name, "sample": index},
            }
        )
    return tasks


def _ideal(sample: Any, kind: str, where: Where) -> str | list[str]:
    if not isinstance(sample, dict):
        raise where("sample must be a dict")
    for key in ("input", "ideal"):
        if key not in sample:
            raise where(f"sample must have an '{key}' key")
    ideal = sample["ideal"]
    if not (isinstance(ideal, str) or (isinstance(ideal, list) and all(isinstance(i, str) for i in ideal))):
        raise where("sample['ideal'] must be a string or list of strings")
    if kind == "JsonMatch":
        for answer in ideal if isinstance(ideal, list) else [ideal]:
            try:
                json.loads(answer)
            except ValueError as exc:
                raise where(f"an ideal answer is not JSON ({exc}): {answer!r}") from None
    return ideal


def _few_shot(entry: EvalEntry, root: Path, rule: Any, file: Path) -> list[dict[str, Any]]:
    """``Match``'s few-shot messages: the ``sample`` messages of the first ``num_few_shot`` rows."""
    count = entry.args.get("num_few_shot", 0)
    if not isinstance(count, int) or count <= 0:
        return []
    if "few_shot_jsonl" not in entry.args:
        raise ConfigError(f"eval '{entry.name}': few shot requires few shot sample dataset", file=file)
    path = data_path(root, entry.args["few_shot_jsonl"], entry.name, "few_shot_jsonl", rule, file)
    messages: list[dict[str, Any]] = []
    for index, (source, line, row) in enumerate(read_samples(path)):
        if index >= count:
            break
        shots = row.get("sample") if isinstance(row, dict) else None
        if shots is None or not is_chat_prompt(shots):
            raise ConfigError(
                f"eval '{entry.name}': a few-shot row needs 'sample', a list of chat messages",
                file=source,
                line=line,
            )
        messages.extend(shots)
    return messages
