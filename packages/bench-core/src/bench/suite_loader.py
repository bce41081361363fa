"""The suite loader interface: plugins that read other tools' suite formats subclass it."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from bench.suite.yamlio import YamlDocument


class SuiteLoader:
    """Reads a suite file into bench's native suite data.

    ``load`` returns a ``YamlDocument`` whose ``data`` is a native suite mapping; a loader for a
    non-YAML format may leave ``root`` as ``None`` (errors then name the file and field only).
    """

    name: ClassVar[str]
    #: Loaders with a higher priority are asked first; the native format has priority 0.
    priority: ClassVar[int] = 10

    def claims(self, path: Path) -> bool:
        """Whether this loader reads the file at ``path``."""
        raise NotImplementedError

    def load(self, path: Path) -> YamlDocument:
        """Read the file into native suite data."""
        raise NotImplementedError
