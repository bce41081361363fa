"""Exit codes, and bench's errors turned into a message on stderr and an exit code."""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import typer

EXIT_OK, EXIT_FAILED, EXIT_INVALID, EXIT_ERRORS, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130
#: A conversation waits for a person's turn: answer it, then ``--resume`` (docs/conversations.md).
EXIT_WAITING = 5
EXIT_CLOSED_PIPE = 141

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str, code: int) -> typer.Exit:
    """Print ``message`` (redacted) on stderr; the exit to raise with ``code``."""
    from bench.vocabulary import redact

    typer.echo(redact.current()(message), err=True)
    return typer.Exit(code)


def handle_errors(func: F) -> F:
    """Turn bench errors into a message and exit code; never show a traceback for bad input.

    Everything the command prints goes through the redactor (RELIABILITY H01-H04)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from bench.vocabulary import redact

        redact.refresh()
        with redact.redacting_output():
            return _reporting_errors(func, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _reporting_errors(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    from bench.vocabulary.errors import BenchError

    try:
        return func(*args, **kwargs)
    except typer.Exit:
        raise
    except BrokenPipeError:
        raise closed_pipe() from None
    except BenchError as exc:
        prefix = "error: " if exc.exit_code != EXIT_INVALID or "\n" not in str(exc) else ""
        raise fail(f"{prefix}{exc}", exc.exit_code) from None
    except KeyboardInterrupt:
        raise fail("interrupted", EXIT_INTERRUPTED) from None
    except Exception:
        # No local variables in the traceback, and its text redacted: both may hold secrets (H04).
        detail = traceback.format_exc()
        raise fail(f"internal error (please report it):\n{detail}", EXIT_INTERNAL) from None


def closed_pipe() -> typer.Exit:
    """Stop quietly when stdout's reader has gone, as Python's docs on SIGPIPE recommend: stdout
    now writes to devnull, so neither the rest of the output nor the flush at exit fails again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return typer.Exit(EXIT_CLOSED_PIPE)
