"""The suite loader interface: plugins that read other tools' suite formats subclass it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from bench.suite.folder import SuiteFolder
from bench.suite.yamlio import YamlDocument


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
