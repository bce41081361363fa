"""AgentClash's ``post_execution_checks``: files and listings kept from a workspace after a run.

Captures never follow a symlink (``lstat``, ``O_NOFOLLOW``): a link the agent made is reported as
a link with its target (RELIABILITY B08). Each file is capped (default 1 MiB) and all captures of
a run share a total cap; a cut file says ``truncated`` and keeps its original size (B09). Names
that are not UTF-8 are shown escaped (B10).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.vocabulary.errors import EvaluatorError
from bench.vocabulary.models import CaptureCheck
from bench.vocabulary.results import TaskResult
from bench.workspace.confined import inside, read_at_most
from bench.workspace.walk import walk


def shown(name: str | bytes) -> str:
    """A file name as text: undecodable bytes escaped, never an exception."""
    raw = os.fsencode(name)
    return raw.decode("utf-8", "backslashreplace")


class _Budget:
    def __init__(self, total: int) -> None:
        self.left = total


def capture(root: Path, checks: list[CaptureCheck], max_total_bytes: int) -> dict[str, Any]:
    """Run every check against ``root``: ``{"files": {path: record}, "listings": {path: [...]}}``."""
    files: dict[str, Any] = {}
    listings: dict[str, Any] = {}
    budget = _Budget(max_total_bytes)
    for check in checks:
        found = _file(root, check, budget) if check.type == "file_capture" else _listing(root, check)
        if check.key is not None:
            found["key"] = check.key  # AgentClash names each capture; kept as a label
        (files if check.type == "file_capture" else listings)[check.path] = found
    return {"files": files, "listings": listings}


def task_folder(captures_dir: Path, task_key: str) -> Path:
    """The folder keeping one task's captures: named by a digest of its key, never by the id itself
    (an id may be ``..``, hold a ``/``, or be longer than a file name may be)."""
    return captures_dir / hashlib.sha256(task_key.encode("utf-8", "surrogatepass")).hexdigest()[:24]


#: The key of a captured file's record that carries its text to the process owning the store.
PORTABLE = "portable"


def store_captures(files: dict[str, Any], folder: Path, redact: Callable[[str], str] | None) -> None:
    """Keep the captured files' text under ``folder`` (secrets redacted); each record says where."""
    for path, record in files.items():
        relative = _storable(path, record)
        if relative is not None:
            record["stored"] = _write(folder / relative, record["content"], redact)


def carry_captures(files: dict[str, Any], redact: Callable[[str], str] | None) -> None:
    """Portable captures: instead of writing them here (a worker's disk), put each storable file's
    text, redacted with this process's redactor, in its record (``portable``), so it travels in
    the result to the process that owns the run store (``land_captures``)."""
    for path, record in files.items():
        if _storable(path, record) is not None:
            text = record["content"]
            record[PORTABLE] = redact(text) if redact is not None else text


def land_captures(result: TaskResult, captures_dir: Path, redact: Callable[[str], str] | None) -> None:
    """Write the captures a result carries (``carry_captures``) under ``captures_dir``, in the
    task's folder, redacted again with this process's redactor; each record then says where, as
    ``store_captures`` would have. A result without portable captures is left as it is."""
    captured = (result.workspace or {}).get("captured")
    if not isinstance(captured, dict):
        return
    for path, record in captured.items():
        text = record.pop(PORTABLE, None) if isinstance(record, dict) else None
        relative = _storable(path, record) if text is not None else None
        if text is not None and relative is not None:
            record["stored"] = _write(task_folder(captures_dir, result.key) / relative, text, redact)


def _storable(path: str, record: dict[str, Any]) -> str | None:
    """Where under a task's folder a captured file is kept; None when it is not kept."""
    if not record.get("exists") or record.get("link") is not None or "size" not in record:
        return None
    relative = os.path.normpath(path)
    if os.path.isabs(relative) or relative.split(os.sep, 1)[0] in (os.curdir, os.pardir):
        return None  # capture() refused to read it; never write outside the folder either
    return relative


def _write(destination: Path, text: str, redact: Callable[[str], str] | None) -> str:
    destination.parent.mkdir(parents=True, exist_ok=True)
    destination.write_text(redact(text) if redact is not None else text, encoding="utf-8")
    return str(destination)


def _file(root: Path, check: CaptureCheck, budget: _Budget) -> dict[str, Any]:
    try:
        path = _lexical(root, check.path)
    except EvaluatorError as exc:
        return {"exists": False, "error": str(exc)}
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return {"exists": False}
    except OSError as exc:
        return {"exists": False, "error": exc.strerror}
    if stat.S_ISLNK(info.st_mode):
        return {"exists": True, "link": shown(os.readlink(path)), "content": ""}
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        return {"exists": True, "error": f"{check.path} is {kind}", "content": ""}
    limit = max(0, min(check.max_bytes, budget.left))
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        data = read_at_most(fd, limit)
    finally:
        os.close(fd)
    budget.left -= len(data)
    record: dict[str, Any] = {
        "exists": True,
        "content": data.decode("utf-8", "replace"),
        "size": info.st_size,
        "truncated": info.st_size > len(data),
    }
    if record["truncated"] and limit < check.max_bytes:
        record["reason"] = "the run's total capture cap was reached"
    return record


def _lexical(root: Path, relative: str) -> Path:
    """``relative`` under ``root`` without following the last component (it may be a link)."""
    parent = os.path.dirname(relative.rstrip("/")) or "."
    base = inside(root, parent)  # refuses absolute paths, .. and links that leave the root
    return base / os.path.basename(relative.rstrip("/"))


def _listing(root: Path, check: CaptureCheck) -> dict[str, Any]:
    try:
        top = inside(root, check.path)
    except EvaluatorError as exc:
        return {"entries": [], "error": str(exc)}
    if not top.is_dir():
        return {"entries": [], "error": f"{check.path} is not a directory"}

    def repository(entry: os.DirEntry[str]) -> bool:
        """The workspace's own ``.git``: neither listed nor entered."""
        return entry.name == ".git" and Path(os.path.dirname(entry.path)) == root

    entries: list[str] = []
    for entry in walk(str(top), descend=lambda e: not repository(e), ordered=True):
        rel = shown(os.path.relpath(entry.path, top))
        if entry.is_symlink():
            entries.append(f"{rel} -> {shown(os.readlink(entry.path))}")
        elif entry.is_dir(follow_symlinks=False):
            if repository(entry):
                continue
            entries.append(rel + "/")
        else:
            entries.append(rel)
        if len(entries) >= check.max_entries:
            return {"entries": sorted(entries), "truncated": True}
    return {"entries": sorted(entries), "truncated": False}
