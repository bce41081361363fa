"""The suite loader interface: plugins that read other tools' suite formats subclass it.

A loader is handed the suite-folder rule (B06, ``SuiteFolder``): a native suite's data rows and
every file another tool's suite reads (promptfoo's prompts, vars and tests, a youBencha evaluator
file, an AI Eval prompt) may only lead inside the suite's folder after ``realpath`` (``..``,
absolute paths and symlinks resolved), unless the user passes ``--allow-outside-root``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from bench.document import YamlDocument
from bench.vocabulary.errors import ConfigError, FieldPath

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


@dataclass(frozen=True)
class LoadOptions:
    """What the command line asks of every loader for one load."""

    #: ``bench run --target SPEC``: the target mapping that replaces every target of the file.
    #: bench applies it to the native data a loader returns; a loader whose format decides what
    #: runs from its targets (promptfoo's prompts per provider) reads it to do as its tool does.
    target: dict[str, Any] | None = None
    #: ``--allow-outside-root``: the files a suite names may lie outside its folder (``suite_folder``).
    allow_outside_root: bool = False


class SuiteLoader:
    """Reads a suite file into bench's native suite data.

    ``load`` returns a ``YamlDocument`` whose ``data`` is a native suite mapping; a loader for a
    non-YAML format may leave ``root`` as ``None`` (errors then name the file and field only).
    Lines a loader appends to ``warnings`` are shown by ``bench validate`` and ``bench run``.
    """

    name: ClassVar[str]
    #: Loaders with a higher priority are asked first; the native format has priority 0.
    priority: ClassVar[int] = 10

    def __init__(self, options: LoadOptions | None = None) -> None:
        self.options = options or LoadOptions()
        self.warnings: list[str] = []

    def claims(self, path: Path) -> bool:
        """Whether this loader reads the file at ``path``."""
        raise NotImplementedError

    def declines(self, path: Path) -> tuple[float, str] | None:
        """Why this loader does not read ``path`` although the file looks like its format.

        Asked only when no loader reads the file: ``(nearness, reason)``, nearness in (0, 1) (the
        share of the format's telltale keys the file has, say), the reason naming what is
        missing; the nearest loader's reason is shown. ``None`` when the file is nothing like it.
        """
        return None

    def load(self, path: Path) -> YamlDocument:
        """Read the file into native suite data."""
        raise NotImplementedError

    def suite_folder(self, path: Path, root: Path | None = None) -> SuiteFolder:
        """The suite-folder rule (B06) for every file the suite at ``path`` reads: each must lie
        inside ``root`` (default: the suite's folder) unless ``--allow-outside-root`` was given;
        ``check`` each path before reading it."""
        return SuiteFolder.of(path, self.options.allow_outside_root, root)
