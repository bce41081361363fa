"""The reporter interface."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from bench.vocabulary.results import RunReport


class Reporter:
    """Writes a finished run to a file. Subclasses set ``name`` and implement ``write``.

    ``extensions`` (``(".csv",)``) are the file extensions ``bench run -o FILE`` picks this
    reporter for; bench's own extensions (bench.report.reporters.formats) are never taken over."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    extensions: ClassVar[tuple[str, ...]] = ()

    def write(self, report: RunReport, path: Path) -> None:
        """Write the report to ``path``, replacing what is there."""
        raise NotImplementedError
