"""The one exception hierarchy of bench; the CLI turns each into a message and an exit code."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

FieldPath = Sequence[str | int]


def format_path(path: FieldPath) -> str:
    """Render ``('tasks', 3, 'evaluate')`` as ``tasks[3].evaluate``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the nearest choice, or an empty string."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class BenchError(Exception):
    """Base of every error bench reports to a user."""

    exit_code = 4


class ConfigError(BenchError):
    """Invalid input: a suite, a definition file or a command-line value. Exit code 2."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        file: Path | str | None = None,
        line: int | None = None,
        column: int | None = None,
        field: FieldPath | None = None,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.column = column
        self.field = tuple(field) if field else ()
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        field = f"{format_path(self.field)}: " if self.field else ""
        return f"{where}{field}{self.message}"


class PluginError(BenchError):
    """A plugin could not be loaded or registered something invalid. Exit code 2."""

    exit_code = 2

    def __init__(self, message: str, *, distribution: str | None = None) -> None:
        self.distribution = distribution
        super().__init__(message)


class TargetError(BenchError):
    """The system under test failed to produce a response (recorded as a task error)."""

    exit_code = 3


class EvaluatorError(BenchError):
    """An evaluator could not reach a verdict (recorded as an evaluator error, never a fail).

    ``details`` are kept in the outcome beside the error: what the evaluator did check (the
    verdicts of the checks that ran when others were skipped)."""

    exit_code = 3

    def __init__(self, message: str = "", details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.details: dict[str, Any] = details or {}


class StoreError(BenchError):
    """The run store cannot be used (unknown run, run in use, unwritable folder)."""

    exit_code = 2


class InvalidSuite(BenchError):
    """Several input errors found in one pass; each is a ConfigError. Exit code 2."""

    exit_code = 2

    def __init__(self, errors: list[ConfigError]) -> None:
        self.errors = errors
        more = "" if len(errors) < 2 else f"\n({len(errors)} errors)"
        super().__init__("\n".join(e.render() for e in errors) + more)


class ModelCallError(BenchError):
    """A model call failed for good (after retries, or at once for a permanent error)."""

    exit_code = 3

    def __init__(
        self,
        message: str,
        *,
        model: str,
        status: int | None = None,
        attempts: int = 1,
        partial: str | None = None,
    ) -> None:
        super().__init__(message)
        self.model = model
        self.status = status
        self.attempts = attempts
        #: The text a cut stream delivered before it ended (kept, flagged incomplete; C11).
        self.partial = partial


class RunStopped(BenchError):
    """A budget or the circuit breaker stopped the run from starting calls (resumable)."""

    exit_code = 3

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
