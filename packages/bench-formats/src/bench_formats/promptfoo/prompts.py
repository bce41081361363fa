"""promptfoo's ``prompts:``: inline templates, files and globs, labelled objects."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.promptfoo.paths import FILE, expand, strip_file
from bench_formats.promptfoo.python_config import python_file
from bench_formats.promptfoo.render import compact_json
from bench_formats.reading import json_data

#: Prompt files whose contents run code: promptfoo executes them, bench does not.
_CODE = {".js", ".cjs", ".mjs", ".ts", ".py"}


@dataclass(frozen=True)
class Prompt:
    """One prompt template and the label ``providers[].prompts`` filters on."""

    raw: str
    label: str
    #: A chat prompt (a JSON messages array), which a chat model receives as messages.
    chat: bool = False
    #: A Python prompt function (``file://p.py:fn``): the script's path and the function, called
    #: per row (``python_config.prompt_text``) for the prompt ``raw`` then stands for.
    function: tuple[Path, str | None] | None = None
    #: The prompt's ``config``, which a prompt function receives.
    config: Any = None


def read_prompts(spec: Any, base: Path, config: Path, folder: SuiteFolder) -> list[Prompt]:
    """Every prompt of a config's ``prompts:`` value, in order (files only from ``folder``)."""
    if spec is None:
        raise ConfigError("the config has no 'prompts:'", file=config, field=("prompts",))
    items: list[tuple[Any, str | None]]
    if isinstance(spec, dict):  # the legacy form: {path: label}
        items = [(key, str(value)) for key, value in spec.items()]
    elif isinstance(spec, list):
        items = [(item, None) for item in spec]
    else:
        items = [(spec, None)]
    prompts: list[Prompt] = []
    for index, (item, label) in enumerate(items):
        prompts.extend(_one(item, label, base, config, index, folder))
    return prompts


def _one(
    item: Any, label: str | None, base: Path, config: Path, index: int, folder: SuiteFolder
) -> list[Prompt]:
    field = ("prompts", index)
    settings = None
    if isinstance(item, dict):
        label = item.get("label", label)
        settings = item.get("config")
        if "raw" in item:
            raw = str(item["raw"])
            return [Prompt(raw, str(label) if label is not None else raw)]
        if "id" not in item:
            raise ConfigError(
                "a prompt object needs 'id' (a file:// path) or 'raw'", file=config, field=field
            )
        item = item["id"]
    if not isinstance(item, str):
        raise ConfigError(
            f"a prompt is a string or a mapping, not {type(item).__name__}", file=config, field=field
        )
    if not item.startswith(FILE):
        return [Prompt(item, label if label is not None else item)]
    function = python_file(item)
    if function is not None and function[1] is not None:
        return [_python_function(function[0], function[1], label, settings, base, folder, config, field)]
    written = strip_file(item)
    files = expand(written, base, folder, f"prompts[{index}] reads {item}")
    if not files:
        raise ConfigError(f"no prompt file matches '{item}'", file=config, field=field)
    prompts: list[Prompt] = []
    for path in files:
        shown = (
            written
            if len(files) == 1
            else str(path.relative_to(base))
            if path.is_relative_to(base)
            else str(path)
        )
        prompts.extend(_from_file(path, shown, label, config, field, settings))
    return prompts


def _python_function(
    written: str,
    function: str,
    label: str | None,
    settings: Any,
    base: Path,
    folder: SuiteFolder,
    config: Path,
    field: tuple[Any, ...],
) -> Prompt:
    """``processPythonFile`` with a function: the file's text as ``raw``, labelled ``path:fn``."""
    path = Path(written) if Path(written).is_absolute() else base / written
    folder.check(path, f"prompts runs file://{written}:{function}", field=field)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(
            f"cannot read prompt file '{written}': {exc.strerror}", file=config, field=field
        ) from None
    shown = f"{os.path.normpath(written)}:{function}"
    return Prompt(text, label if label is not None else shown, function=(path, function), config=settings)


def _from_file(
    path: Path, shown: str, label: str | None, config: Path, field: tuple[Any, ...], settings: Any = None
) -> list[Prompt]:
    suffix = path.suffix.lower()
    if suffix == ".py":  # a whole script that prints the prompt (processPythonFile, no function)
        text = path.read_text(encoding="utf-8")
        own = label if label is not None else f"{os.path.normpath(shown)}: {text}"
        return [Prompt(text, own, function=(path, None), config=settings)]
    if suffix in _CODE:
        raise ConfigError(
            f"prompt file '{shown}' is code that promptfoo runs to build the prompt; bench does not run it: "
            "write the prompt as text, JSON or YAML",
            file=config,
            field=field,
        )
    text = path.read_text(encoding="utf-8")
    if suffix == ".json":
        # processJsonFile: the compact JSON (the file's text when it is not JSON)
        try:
            raw = compact_json(json_data(path, text))
        except ValueError:
            raw = text
        return [Prompt(raw, label if label is not None else f"{shown}: {raw}", chat=is_chat(raw))]
    if suffix in {".yaml", ".yml"}:
        from bench_formats.yaml12 import load_js_yaml

        # processYamlFile: the compact JSON of the YAML, its label cut at 80 characters; text that
        # does not parse (or that JSON.stringify cannot write: an alias bomb) stays the prompt
        try:
            raw = compact_json(load_js_yaml(text, path))
        except ConfigError:
            raw = text
        return [Prompt(raw, label if label is not None else f"{shown}: {raw[:80]}", chat=is_chat(raw))]
    if suffix == ".csv":
        return _from_csv(text, label)
    parts = [part.strip() for part in _split(text)]
    parts = [part for part in parts if part]
    prompts = []
    for part in parts:
        own = f"{shown}: {part}"
        if label is not None:
            own = label if len(parts) == 1 else f"{label}: {own}"
        prompts.append(Prompt(part, own))
    return prompts


def _split(text: str) -> list[str]:
    """A text prompt file's prompts: parts between lines that are ``---`` once trimmed."""
    parts: list[list[str]] = [[]]
    for line in text.splitlines(keepends=True):
        if line.strip() == "---":
            parts.append([])
        else:
            parts[-1].append(line)
    return ["".join(lines) for lines in parts]


def _from_csv(text: str, label: str | None) -> list[Prompt]:
    """``processCsvPrompts``: a ``prompt`` column (and ``label``), else one prompt per line."""
    import csv

    from bench_formats.promptfoo.csv_tests import allow_cells_of

    text = text.removeprefix("\ufeff")
    if "," in text:
        allow_cells_of(len(text))
        try:
            rows = list(csv.reader(text.splitlines()))  # relax_quotes, as promptfoo
        except csv.Error:
            rows = None
        if rows:
            header = [cell.strip() for cell in rows[0]]
            records = [
                dict(zip(header, (cell.strip() for cell in row), strict=False)) for row in rows[1:] if row
            ]
            records = [record for record in records if record.get("prompt")]
            return [
                Prompt(
                    record["prompt"],
                    record.get("label") or label or f"Prompt {index} - {record['prompt']}",
                    chat=is_chat(record["prompt"]),
                )
                for index, record in enumerate(records, start=1)
            ]
    lines = [line for line in text.splitlines() if line.strip()]
    if lines and lines[0].strip().lower() == "prompt":
        lines = lines[1:]
    return [
        Prompt(line, label or f"Prompt {index} - {line}", chat=is_chat(line))
        for index, line in enumerate(lines, start=1)
    ]


def is_chat(text: str) -> bool:
    """Whether ``text`` is a chat prompt: a JSON array of messages with a ``role`` each."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # text, or brackets nested too deep to be a chat
        return False
    return isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value)
