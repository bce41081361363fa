"""What the command line adds to a suite: ``--var NAME=VALUE`` and the ``.env`` files it reads.

``.env`` files are read with python-dotenv into the process environment before the suite is
read, so ``${NAME}`` in the suite, ``api_key_env`` and litellm's own key variables all see them.
A variable already set in the environment is never replaced; among the files, the first to set
a variable wins, in this order: each ``--env-file`` as given, the ``.env`` beside the suite, the
``.env`` in the working directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from bench.vocabulary.errors import ConfigError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_vars(items: Iterable[str]) -> dict[str, str]:
    """``--var`` options as a mapping; a later ``--var`` of the same name wins."""
    values: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not _NAME.fullmatch(name):
            raise ConfigError(f"--var {item}: write it as NAME=VALUE (NAME: letters, digits and _)")
        values[name] = value
    return values


def env_files(suite: Path, named: Iterable[Path], defaults: bool = True) -> list[Path]:
    """The ``.env`` files to read, first (strongest) first: ``named`` ones must exist."""
    files: list[Path] = []
    for path in named:
        if not path.is_file():
            raise ConfigError(f"--env-file {path}: no such file")
        files.append(path)
    if defaults:
        for candidate in (suite.parent / ".env", Path(".env")):
            if candidate.is_file() and not any(candidate.resolve() == f.resolve() for f in files):
                files.append(candidate)
    return files


def load_env_files(files: Iterable[Path]) -> list[str]:
    """Set the variables these files define and the environment lacks; return their names."""
    from dotenv import dotenv_values

    loaded: list[str] = []
    for path in files:
        for name, value in dotenv_values(path, encoding="utf-8").items():
            if value is not None and name not in os.environ:
                os.environ[name] = value
                loaded.append(name)
    return loaded
