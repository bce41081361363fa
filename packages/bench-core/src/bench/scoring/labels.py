"""Human labels: one verdict per task (and rater), read from JSON Lines or CSV and appended to JSONL.

A labels file is UTF-8 (a byte order mark, as Excel writes, is dropped) or UTF-16/UTF-32 with its
byte order mark; any other bytes are an error naming the line. Every writer (``bench label``, each
``bench view --label``) holds the file's lock (``locked``), across processes.

A row has ``task`` (or ``id``), ``passed`` and/or ``score``, and optionally ``rater``, ``note``
and ``response`` (the answer that was labelled: ``bench label`` writes it, so a judge can be
calibrated on it when the suite records none).
``bench calibrate`` and ``bench label`` use them whole; the ``human_preference`` scorecard
dimension takes each task's mean (``human_scores``).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import hashlib
import io
import json
import os
import statistics
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.vocabulary.errors import ConfigError

#: How long a writer waits for another to finish with the labels file.
LOCK_TIMEOUT_S = 30.0
_WIDE = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16's: it begins with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_TRUE, _FALSE = {"true", "pass", "passed", "yes", "1", "p"}, {"false", "fail", "failed", "no", "0", "f"}


@dataclass(frozen=True)
class Label:
    """One person's verdict on one task."""

    task: str
    passed: bool | None = None
    score: float | None = None
    rater: str = ""
    note: str = ""
    #: The response the person labelled, when the row keeps it.
    response: str | None = None

    @property
    def verdict(self) -> bool:
        """Pass or fail: ``passed`` when given, else a score of at least 0.5."""
        return self.passed if self.passed is not None else (self.score or 0.0) >= 0.5

    def as_row(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}


def digest(path: Path) -> str:
    """The sha256 of a labels file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_csv(path: Path) -> bool:
    """Whether ``path`` is read as CSV (its name ends in ``.csv``) rather than JSON Lines."""
    return path.suffix.lower() == ".csv"


def check_output(path: Path) -> None:
    """Refuse a labels file to write that would be read as CSV: labels are written as JSON Lines."""
    if is_csv(path):
        raise ConfigError(
            f"--out {path}: labels are written as JSON Lines, and a file ending in .csv is read as CSV: "
            "give it a .jsonl name"
        )


def read_labels(path: Path) -> list[Label]:
    """Every label in ``path`` (``.csv``: CSV with a header; otherwise JSON Lines)."""
    text = _text(path)
    rows = _csv_rows(path, text) if is_csv(path) else _jsonl_rows(path, text)
    return [_label(path, line, row) for line, row in rows]


def _text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the labels: {exc.strerror}", file=path) from None
    for bom, codec in _WIDE:
        if raw.startswith(bom):
            try:
                return raw.decode(codec)
            except UnicodeDecodeError as exc:
                why = f"not {codec.upper()} text, though it begins as such ({exc.reason})"
                raise ConfigError(why, file=path) from None
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x}): save the labels as UTF-8", file=path, line=line
        ) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ConfigError(
            "a NUL character: UTF-16 text without its byte order mark? save the labels as UTF-8",
            file=path,
            line=line,
        )
    return text


def _lines(text: str) -> list[str]:
    """The lines of a JSON Lines text: split at newlines only (a note may hold U+2028, which JSON
    keeps as it is and ``str.splitlines`` would take for a line break)."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _jsonl_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(_lines(text), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except RecursionError:
            raise ConfigError("not a JSON line: nested too deeply", file=path, line=number) from None
        except ValueError as exc:
            raise ConfigError(f"not a JSON line: {exc}", file=path, line=number) from None
        if not isinstance(row, dict):
            raise ConfigError(f"expected a JSON object, got {type(row).__name__}", file=path, line=number)
        rows.append((number, row))
    return rows


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text), strict=True)
    rows = []
    try:
        for row in reader:
            if None in row or any(v is None for v in row.values()):
                raise ConfigError(
                    f"expected {len(reader.fieldnames or [])} columns ({', '.join(reader.fieldnames or [])})",
                    file=path,
                    line=reader.line_num,
                )
            rows.append((reader.line_num, {k: v for k, v in row.items() if v != ""}))
    except csv.Error as exc:
        raise ConfigError(f"malformed CSV: {exc}", file=path, line=reader.line_num) from None
    return rows


def _label(path: Path, line: int, row: dict[str, Any]) -> Label:
    task = row.get("task", row.get("id"))
    if task is None or str(task) == "":
        raise ConfigError("a label needs the task's id (task or id)", file=path, line=line)
    passed, score = row.get("passed"), row.get("score")
    if passed is None and score is None:
        raise ConfigError(f"label for task '{task}' has neither passed nor score", file=path, line=line)
    if isinstance(passed, str):
        word = passed.strip().lower()
        if word not in _TRUE | _FALSE:
            raise ConfigError(f"passed must be true or false, not {passed!r}", file=path, line=line)
        passed = word in _TRUE
    elif passed is not None and not isinstance(passed, bool):
        raise ConfigError(f"passed must be true or false, not {passed!r}", file=path, line=line)
    if score is not None:
        try:
            score = float(score)
        except (TypeError, ValueError):
            raise ConfigError(f"score must be a number, not {score!r}", file=path, line=line) from None
        if not 0.0 <= score <= 1.0:
            raise ConfigError(f"score must be between 0 and 1, not {score:g}", file=path, line=line)
    response = row.get("response")
    if response is not None and not isinstance(response, str):
        raise ConfigError(f"response must be text, not {type(response).__name__}", file=path, line=line)
    return Label(str(task), passed, score, str(row.get("rater") or ""), str(row.get("note") or ""), response)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock of labels file ``path`` (``.NAME.lock`` beside it), which every writer takes,
    in this process and in others: a label written between another writer's read and its rewrite
    would be lost. Readers that may meet a writer (the viewer, a resumed ``bench label``) take it."""
    from filelock import FileLock, Timeout  # only a labels writer or reader needs it (~20 ms)

    lock = FileLock(str(path.with_name(f".{path.name}.lock")), timeout=LOCK_TIMEOUT_S)
    try:
        lock.acquire()
    except Timeout:
        raise ConfigError(
            f"another writer has held the labels' lock {lock.lock_file} for {LOCK_TIMEOUT_S:g} s", file=path
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot lock the labels: {exc.strerror}", file=path) from None
    try:
        yield
    finally:
        lock.release()


def append_label(path: Path, label: Label) -> None:
    """Append one label to a JSON Lines file, under its lock."""
    with locked(path):
        line = _joining(path) + json.dumps(label.as_row(), ensure_ascii=False) + "\n"
        try:
            with path.open("ab") as out:
                out.write(line.encode("utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot write the labels: {exc.strerror}", file=path) from None


def _joining(path: Path) -> str:
    """What goes before a line added to ``path``: a newline where its last line lacks one (a file
    written by hand); a UTF-16 or UTF-32 file is refused (an added UTF-8 line would garble it)."""
    try:
        with path.open("rb") as existing:
            head = existing.read(4)
            if head.startswith(tuple(bom for bom, _ in _WIDE)):
                raise ConfigError(
                    "the file is UTF-16 or UTF-32 text and bench adds UTF-8 lines: save it as UTF-8",
                    file=path,
                )
            if not head:
                return ""
            existing.seek(-1, os.SEEK_END)
            return "" if existing.read(1) == b"\n" else "\n"
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise ConfigError(f"cannot read the labels: {exc.strerror}", file=path) from None


def replace_label(path: Path, label: Label) -> None:
    """Write ``label`` as its rater's only label for its task in a JSON Lines file, under its lock,
    replacing the file atomically (a temporary file renamed over it); every other line is kept
    as it was (a UTF-16 file becomes UTF-8)."""
    with locked(path):
        _replace(path, label)


def _replace(path: Path, label: Label) -> None:
    kept = []
    if path.exists():
        text = _text(path)
        # A malformed file is reported, not rewritten.
        same = {
            number
            for number, row in _jsonl_rows(path, text)
            if (found := _label(path, number, row)).task == label.task and found.rater == label.rater
        }
        kept = [line + "\n" for n, line in enumerate(_lines(text), start=1) if line.strip() and n not in same]
    kept.append(json.dumps(label.as_row(), ensure_ascii=False) + "\n")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.writelines(kept)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def human_scores(labels: list[Label]) -> dict[str, float]:
    """Each labelled task's human score: the mean over its labels of ``score``, or of ``passed``
    as 1 or 0 where a label has no score."""
    scores: dict[str, list[float]] = {}
    for label in labels:
        value = label.score if label.score is not None else float(bool(label.passed))
        scores.setdefault(label.task, []).append(value)
    return {task: statistics.fmean(values) for task, values in scores.items()}
