"""``bench init``: a runnable offline suite from a named template, with the schema modeline."""

from __future__ import annotations

from pathlib import Path

from bench.errors import ConfigError, did_you_mean

SCHEMA_FILE = "bench.schema.json"
MODELINE = f"# yaml-language-server: $schema=./{SCHEMA_FILE}\n"

_QUICKSTART_SUITE = """\
name: quickstart
description: A stand-in assistant (assistant.py) checked offline; no API key needed.

target:
  type: python
  function: assistant:answer        # assistant.py next to this file

defaults:
  timeout: 5

evaluators:
  mentions_paris: {expected: "Paris"}

tasks:
  - id: capital-of-france
    prompt: "What is the capital of {country}?"
    vars: {country: France}
    evaluate: mentions_paris

  - id: arithmetic
    prompt: "What is 6 times 7?"
    evaluate: {expected: 42}
"""

_QUICKSTART_TARGET = '''\
"""A stand-in for a real model: replace answer() with a call to yours."""

from bench import Task

ANSWERS = {
    "capital of France": "The capital of France is Paris.",
    "6 times 7": "6 times 7 is 42.",
}


def answer(task: Task) -> str:
    for question, reply in ANSWERS.items():
        if question in task.text:
            return reply
    return "I don't know."
'''

_ECHO_SUITE = """\
name: echo
description: The echo target answers with the prompt; the checks are bench's own.

target:
  type: echo

tasks:
  - id: greeting
    prompt: "Hello, world"
    evaluate: {expected: "Hello"}

  - id: no-apology
    prompt: "Here is the answer."
    evaluate: {type: not-regex, value: "(?i)sorry"}
"""

#: Template name -> its one-line description and its files besides the suite.
TEMPLATES: dict[str, tuple[str, str, dict[str, str]]] = {
    "quickstart": (
        "a Python function as the target, checked with expected:",
        _QUICKSTART_SUITE,
        {"assistant.py": _QUICKSTART_TARGET},
    ),
    "echo": ("the echo target (no code at all), checked with expected: and a regex", _ECHO_SUITE, {}),
}


def scaffold(path: Path, example: str, schema_text: str) -> list[Path]:
    """Write the suite ``path`` from template ``example``, its files and the schema next to it.

    Refuses (exit 2) when the suite or a template file exists, and writes nothing then; an
    existing schema file is kept (``bench schema`` rewrites it). Returns what it wrote.
    """
    if example not in TEMPLATES:
        raise ConfigError(f"unknown example '{example}'{did_you_mean(example, TEMPLATES)}")
    _, suite, extra = TEMPLATES[example]
    folder = path.parent
    files = {path: MODELINE + suite, **{folder / name: text for name, text in extra.items()}}
    for target in files:
        if target.exists():
            raise ConfigError(f"{target} already exists; bench init never overwrites a file")
    if not folder.is_dir():
        raise ConfigError(f"cannot write {path}: folder {folder} does not exist")
    if not (folder / SCHEMA_FILE).exists():
        files[folder / SCHEMA_FILE] = schema_text
    for target, text in files.items():
        target.write_text(text, encoding="utf-8")
    return list(files)
