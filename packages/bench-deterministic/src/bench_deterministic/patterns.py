"""The one regular-expression matcher every evaluator uses.

Patterns run on RE2 (linear time: a user's ``^(a|aa)+$`` cannot hang a run, docs/reliability.md D05).
A pattern RE2 cannot compile (backreferences, lookaround) falls back to the ``regex`` engine
with a time limit, so a catastrophic pattern ends as an evaluator error instead of a hang.
"""

from __future__ import annotations

import functools
from typing import Any

from bench import EvaluatorError

DEFAULT_TIMEOUT_S = 1.0


class PatternError(ValueError):
    """A pattern neither engine accepts; the message is the engine's reason."""


class PatternTimeout(EvaluatorError):
    """A fallback-engine pattern ran past its time limit: the evaluator cannot reach a verdict."""


class Pattern:
    """A compiled pattern; ``search`` answers whether it matches anywhere in a text."""

    def __init__(self, source: str, compiled: Any, engine: str, timeout: float) -> None:
        self.source = source
        self.engine = engine
        self.timeout = timeout
        self._compiled = compiled

    def search(self, text: str) -> bool:
        if self.engine == "re2":
            # The UTF-8 bytes RE2 matches anyway: searching them skips the wrapper's mapping of
            # byte offsets back to characters, which a yes-or-no answer does not need.
            return self._compiled.search(text.encode("utf-8")) is not None
        try:
            return self._compiled.search(text, timeout=self.timeout) is not None
        except TimeoutError:
            raise PatternTimeout(f"regex timed out after {self.timeout:g} s: {self.source}") from None

    def __repr__(self) -> str:
        return f"Pattern({self.source!r}, engine={self.engine!r})"


@functools.lru_cache(maxsize=4096)
def compile_pattern(source: str, timeout: float = DEFAULT_TIMEOUT_S) -> Pattern:
    """Compile with RE2, else with ``regex``; raise PatternError when neither accepts it."""
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would print its parse errors to stderr
    try:
        compiled = re2.compile(source.encode("utf-8"), options=options)  # searched as bytes
        return Pattern(source, compiled, "re2", timeout)
    except re2.error:
        pass
    import regex

    try:
        return Pattern(source, regex.compile(source), "regex", timeout)
    except regex.error as exc:
        raise PatternError(f"invalid regex {source!r}: {exc}") from None
