"""``bench init``: a runnable offline suite from a named template, with the schema modeline."""

from __future__ import annotations

from pathlib import Path

from bench.vocabulary.errors import ConfigError, did_you_mean

SCHEMA_FILE = "bench.schema.json"
MODELINE = f"# yaml-language-server: $schema=./{SCHEMA_FILE}\n"

_QUICKSTART_SUITE = """\
name: capitals
target: {type: python, function: "assistant:answer"}   # assistant.py; or command / echo / recorded
defaults: {timeout: 30}
evaluators:                                            # named, reusable
  has_paris: {expected: "Paris"}
  polite: {file: ./evaluators/polite.yaml}             # a youBencha-style definition file
tasks:
  - id: fr
    prompt: "What is the capital of {country}?"
    vars: {country: France}
    evaluate: [has_paris, polite]                      # names, inline mappings, or both
  - id: recorded
    response: "The answer is 42."                      # a recorded response: no target is called
    evaluate: {expected: 42}                           # found in "42" and "42.0", never in "420"
  - id: slow
    prompt: "Think forever."
    timeout: 0.5                                       # the assistant hangs: the timeout is the check
    evaluate: {expect_error: true, expected: "timed out"}
"""

_QUICKSTART_TARGET = '''\
"""A stand-in for a real model: replace answer() with a call to yours."""

import time

from bench import Task


def answer(task: Task) -> str:
    if "forever" in task.text:
        time.sleep(10)  # never answers in time: the suite's task `slow` checks its timeout
    if "capital of France" in task.text:
        return "Certainly: the capital of France is Paris."
    return "I don't know."
'''

_POLITE_DEFINITION = """\
name: polite
description: The answer opens politely.
config:
  type: expected
  expected: {regex: "^(Sure|Certainly|Of course)"}
"""

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
        "a Python function as the target, checked with expected: and a definition file",
        _QUICKSTART_SUITE,
        {"assistant.py": _QUICKSTART_TARGET, "evaluators/polite.yaml": _POLITE_DEFINITION},
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
        target.parent.mkdir(exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return list(files)
