"""The output files a command writes, each checked before any work is spent."""

from __future__ import annotations

from pathlib import Path


def is_html(path: Path) -> bool:
    """``-o FILE.html`` asks for the page rather than JSON, as ``bench run -o`` does."""
    return path.suffix.lower() == ".html"


def checked_outputs(paths: list[Path] | None) -> list[Path]:
    """The ``--output`` files of a command, each checked before any work."""
    for path in paths or []:
        check_output("--output", path)
    return paths or []


def check_output(option: str, path: Path | None) -> None:
    """Refuse an output file that cannot be written before any work (or model call) is spent."""
    from bench.report.reporters.formats import check_writable
    from bench.vocabulary.errors import ConfigError

    if path is None:
        return
    if not path.parent.is_dir():
        raise ConfigError(f"cannot write {path}: folder {path.parent} does not exist")
    check_writable(option, path)
