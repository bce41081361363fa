"""Arguments and options that several commands take, each declared once.

An alias is the option as every command words it; a function declares an option whose help each
command words its own way (``--output`` is a report to ``bench run``, a native suite to ``bench
convert``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

SuiteArg = Annotated[Path, typer.Argument(help="The suite file (YAML).", show_default=False)]
AllowOutsideRoot = Annotated[
    bool,
    typer.Option(
        "--allow-outside-root",
        help=(
            "Let rows of a tasks file name paths outside the suite's folder (workspace, repo, file), "
            "and another tool's suite read files outside it (prompts, vars, tests)."
        ),
    ),
]

Vars = Annotated[
    list[str] | None,
    typer.Option(
        "--var",
        metavar="NAME=VALUE",
        help="Set a var for every task's prompt, over the suite's and the task's own (repeatable).",
    ),
]
EnvFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--env-file",
        metavar="PATH",
        help="Read environment variables from this file too, before the .env files (repeatable).",
    ),
]
TargetSpec = Annotated[
    str | None,
    typer.Option(
        "--target",
        metavar="SPEC",
        help="Run one of the suite's targets by its label, or replace them all: a type name (echo) or "
        "a mapping ('{type: recorded, file: answers.jsonl}', paths relative to the suite).",
    ),
]
NoEnvFile = Annotated[
    bool,
    typer.Option(
        "--no-env-file", help="Read no .env file (neither the suite's nor the working directory's)."
    ),
]
Offline = Annotated[
    bool,
    typer.Option(
        "--offline",
        help="Connect to nothing but loopback and Unix sockets: checks that need a remote model are "
        "skipped with the reason, a target that needs one is refused (docs/offline.md).",
    ),
]
RUNS_DIR = Path(".bench/runs")
LABELS_FILE = Path("labels.jsonl")


def output_option(help: str, metavar: str | None = None) -> Any:
    """``--output``/``-o``, a file the command writes (repeatable)."""
    return typer.Option("--output", "-o", metavar=metavar, help=help)


def runs_dir_option(help: str = "Where runs are stored.") -> Any:
    """``--runs-dir``, the folder of stored runs (default ``RUNS_DIR``)."""
    return typer.Option("--runs-dir", help=help)


def json_option(help: str = "Print it as JSON.") -> Any:
    """``--json``, the command's output as JSON on stdout."""
    return typer.Option("--json", help=help)


def labels_file_option(help: str) -> Any:
    """``--out``, the labels file (default ``LABELS_FILE``)."""
    return typer.Option("--out", help=help)


def rater_option(help: str) -> Any:
    """``--rater``, who labels (default: the user's name)."""
    return typer.Option("--rater", help=help)


RunsDir = Annotated[Path, runs_dir_option()]
AsJson = Annotated[bool, json_option()]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the LLM response cache.")]
CacheDir = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        help="The cache folder [default: $BENCH_CACHE_DIR, else the user's cache folder].",
        show_default=False,
    ),
]
