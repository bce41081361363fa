"""The reporter interface."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from bench.results import RunReport


class Reporter:
    """Writes a finished run to a file. Subclasses set ``name`` and implement ``write``."""

    name: ClassVar[str]
    description: ClassVar[str] = ""

    def write(self, report: RunReport, path: Path) -> None:
        """Write the report to ``path``, replacing what is there."""
        raise NotImplementedError
