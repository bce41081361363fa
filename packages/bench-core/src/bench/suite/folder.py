"""The suite-folder rule (RELIABILITY B06): what a suite's data names must stay in the suite's folder.

A native suite's data rows (a tasks file) and every file another tool's suite reads (promptfoo's
prompts, vars and tests, a youBencha evaluator file, an AI Eval prompt) may only lead inside the
suite's folder after ``realpath`` (``..``, absolute paths and symlinks resolved), unless the user
passes ``--allow-outside-root``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bench.errors import ConfigError, FieldPath

ESCAPES = "path escapes the suite folder"


@dataclass(frozen=True)
class SuiteFolder:
    """The folder a suite's data may read from, and whether ``--allow-outside-root`` lifts the rule."""

    #: The suite file: a refusal names it unless the caller names another file.
    suite: Path
    #: The folder's real path (symlinks resolved).
    root: Path
    allow_outside_root: bool = False

    @classmethod
    def of(cls, suite: Path, allow_outside_root: bool = False, root: Path | None = None) -> SuiteFolder:
        """The rule for ``suite``: inside ``root`` (default: the suite file's folder)."""
        folder = suite.parent if root is None else root
        return cls(suite, Path(os.path.realpath(folder)), allow_outside_root)

    def escape(self, path: Path | str) -> Path | None:
        """The real path of ``path`` when the rule refuses it (it leads outside), else None."""
        if self.allow_outside_root:
            return None
        real = Path(os.path.realpath(path))
        if real == self.root or self.root in real.parents:
            return None
        return real

    def refusal(self, what: str, real: Path, who: str = "a suite may only read files") -> str:
        """The message for ``what`` (``var 'doc' reads file://../x``) resolved to ``real``."""
        return (
            f"{ESCAPES}: {what} (resolved to {real}); {who} inside {self.root} "
            "(pass --allow-outside-root to allow it)"
        )

    def check(
        self, path: Path, what: str, *, file: Path | None = None, field: FieldPath | None = None
    ) -> Path:
        """``path`` itself when the suite may read it; else a ConfigError naming ``what``."""
        real = self.escape(path)
        if real is not None:
            raise ConfigError(self.refusal(what, real), file=file or self.suite, field=field)
        return path
