"""Arguments and options that several commands take, each declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
RunsDir = Annotated[Path, typer.Option("--runs-dir", help="Where runs are stored.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print it as JSON.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the LLM response cache.")]
CacheDir = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        help="The cache folder [default: $BENCH_CACHE_DIR, else the user's cache folder].",
        show_default=False,
    ),
]
