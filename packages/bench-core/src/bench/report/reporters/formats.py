"""Which reporter ``bench run -o FILE`` uses: chosen by the file's extension, never silently JSON.

bench's own extensions map to reporter names here (one table); a plugin's reporter adds its own
through ``Reporter.extensions``. A report never replaces what is not a regular file (a FIFO, a
device, a link to one): writing a report replaces the file, which would turn ``/dev/stdout``'s
link into a file. ``-o -`` writes JSON to stdout instead. A report is written whole to a
temporary file of a unique name that then replaces the old one (``replacing``), so a failed write
leaves neither a half report nor the temporary file, and two runs writing one path at once each
leave a whole report. A write that fails (a full disk) is one line, exit 4 (``ReportWriteError``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from bench.vocabulary.errors import BenchError, ConfigError

#: bench's own report extensions -> reporter name (``html`` is registered by the HTML reporter).
EXTENSIONS = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".csv": "csv",
    ".xml": "junit",
    ".html": "html",
    ".md": "markdown",
}
STDOUT = "-"


def declared(registry: Any) -> dict[str, list[str]]:
    """Extensions plugins' reporters declare (bench's own excluded) -> the reporters' names."""
    found: dict[str, list[str]] = {}
    for name in sorted(registry.reporters):
        cls = registry.reporters.get(name).cls
        for extension in getattr(cls, "extensions", ()):
            if extension.lower() not in EXTENSIONS:
                found.setdefault(extension.lower(), []).append(name)
    return found


def reporter_name(path: Path, registry: Any) -> str:
    """The name of the reporter that writes ``path`` (``-o``), from its extension."""
    if str(path) == STDOUT:
        return "json"
    extension = path.suffix.lower()
    if extension in EXTENSIONS:
        name = EXTENSIONS[extension]
        if registry.reporters.get(name) is None:
            raise ConfigError(
                f"-o {path}: no reporter for {extension} (it is written by the reporter '{name}', "
                "which no installed plugin registers)"
            )
        return name
    plugins = declared(registry)
    claimed = plugins.get(extension, [])
    if len(claimed) == 1:
        return claimed[0]
    if claimed:
        names = " and ".join(f"'{n}'" for n in claimed)
        raise ConfigError(f"-o {path}: reporters {names} both write {extension}; use --report NAME={path}")
    known = ", ".join(sorted({*EXTENSIONS, *plugins}))
    what = f"unknown report extension '{extension}'" if extension else "no extension to choose a report by"
    raise ConfigError(f"-o {path}: {what} (known: {known}; - writes JSON to stdout)")


_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((kind for test, kind in _KINDS if test(mode)), "a special file")


def check_writable(option: str, path: Path) -> None:
    """Refuse a report path that exists and is not a regular file (links included)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"{option} {path}: cannot write the report there ({exc.strerror})") from None
    if stat.S_ISREG(info.st_mode):
        return
    if stat.S_ISLNK(info.st_mode):
        try:
            kind = f"a symbolic link to {_kind(os.stat(path).st_mode)}"
        except OSError:
            kind = "a broken symbolic link"
    else:
        kind = _kind(info.st_mode)
    hint = " (-o - writes JSON to stdout)" if option == "-o" else ""
    raise ConfigError(
        f"{option} {path}: refusing to replace {kind}; write the report to a regular file{hint}"
    )


def write_to_stdout(reporter: Any, report: Any) -> None:
    """``-o -``: the report written to a temporary file, then copied to stdout line by line."""
    import sys
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-report-") as folder:
        path = Path(folder) / "report.json"
        reporter.write(report, path)
        try:
            with open(path, encoding="utf-8") as text:
                for line in text:
                    sys.stdout.write(line)
            sys.stdout.flush()
        except OSError as exc:  # a full disk or a closed pipe behind stdout
            raise _report_error("to stdout", exc) from None


class ReportWriteError(BenchError):
    """A report could not be written (a full disk, a folder removed); the run's results are kept
    in its run folder. Exit code 4."""

    exit_code = 4


def _report_error(where: object, exc: OSError) -> ReportWriteError:
    return ReportWriteError(f"cannot write the report {where}: {exc.strerror or exc}")


@contextlib.contextmanager
def replacing(path: Path, *, errors: str = "strict", newline: str | None = None) -> Iterator[TextIO]:
    """A UTF-8 text file that replaces ``path`` once written whole; when writing fails, ``path``
    is left as it was, the temporary file is removed and a ``ReportWriteError`` says why.

    The temporary file's name is unique, so two processes writing one path each replace it
    with a whole report of their own (the last one stays)."""
    try:
        handle, tmp = _create_beside(path)
    except OSError as exc:
        raise _report_error(path, exc) from None
    try:
        with open(handle, "w", encoding="utf-8", errors=errors, newline=newline) as out:
            yield out
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise _report_error(path, exc) from None
        raise


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` as ``replacing`` does: whole, or not at all."""
    with replacing(path) as out:
        out.write(text)


def _create_beside(path: Path) -> tuple[int, Path]:
    """A new file ``.NAME.<random>.tmp`` beside ``path``, created with the mode ``open`` gives a
    new file (``0666`` less the umask; ``mkstemp`` would make it ``0600``)."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue
