"""The run store: ``.bench/runs/RUN_ID/`` with ``manifest.json`` and ``results.jsonl``.

Each finished task is one line written with a single ``os.write`` on an append-only descriptor,
so a task whose line was written survives SIGKILL (docs/reliability.md, section F); ``fsync`` runs at most
every 100 ms, on a thread of its own so the run's event loop never waits for the disk, and on
close. The manifest is replaced atomically. A torn final line (a kill in the middle of a write)
is set aside on resume and its task run again.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from bench.vocabulary import redact
from bench.vocabulary.compact import KeyTable
from bench.vocabulary.errors import BenchError, StoreError
from bench.vocabulary.results import FINISHED_STATUSES
from bench.vocabulary.run_key import RunKey

RESULTS = "results.jsonl"
MANIFEST = "manifest.json"
FSYNC_INTERVAL_S = 0.1


class StoreWriteError(BenchError):
    """Results could not be written (disk full, folder removed); the run must stop. Exit 4."""

    exit_code = 4


def results_path(folder: Path) -> Path:
    """The results file (``results.jsonl``) of the run folder ``folder``."""
    return folder / RESULTS


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


class RunStore:
    """One run's folder; holds a lock while open so two processes never write the same run."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.run_id = folder.name
        self.results_path = results_path(folder)
        self.manifest_path = folder / MANIFEST
        self._fd: int | None = None
        self._reader: BinaryIO | None = None
        self._last_sync = 0.0
        self._syncer: ThreadPoolExecutor | None = None
        self._syncing: Future[None] | None = None
        self._held: Any = None  # the lock: the descriptor holding its flock, or a filelock.FileLock

    # -- opening ------------------------------------------------------------------------------

    @classmethod
    def create(cls, runs_dir: Path, run_id: str | None = None) -> RunStore:
        """Make a new run folder (named ``run_id`` when given, which must be new) and lock it."""
        try:
            runs_dir.mkdir(parents=True, exist_ok=True)
            folder = runs_dir / (run_id or new_run_id())
            folder.mkdir(mode=0o700)
        except FileExistsError:
            raise StoreError(f"run '{run_id}' already exists in {runs_dir}") from None
        except OSError as exc:
            raise StoreWriteError(f"cannot create a run folder in {runs_dir}: {exc.strerror}") from None
        store = cls(folder)
        try:
            store._acquire()
        except OSError as exc:
            raise StoreWriteError(f"cannot lock the new run folder {folder}: {exc.strerror or exc}") from None
        return store

    @classmethod
    def open_existing(cls, runs_dir: Path, run_id: str) -> RunStore:
        """Open a run to resume it; unknown ids and unreadable manifests are errors."""
        folder = runs_dir / run_id
        if not run_id or "/" in run_id or not (folder / MANIFEST).is_file():
            found = sorted(p.name for p in runs_dir.glob("*") if (p / MANIFEST).is_file())  # none: no folder
            listing = ", ".join(found[-10:]) if found else "none"
            raise StoreError(f"no run '{run_id}' in {runs_dir} (runs found: {listing})")
        store = cls(folder)
        store.read_manifest()
        try:
            store._acquire()
        except OSError as exc:  # a read-only mount, or the lock's place taken
            raise StoreError(
                f"cannot resume run {run_id}: its folder {folder} cannot be written "
                f"({exc.strerror or exc}); copy the run to a writable --runs-dir to resume it"
            ) from None
        return store

    def _acquire(self) -> None:
        """Lock the run and record this process as its holder; an OSError when the folder
        cannot be written (the lock released again)."""
        if not self._lock():
            raise StoreError(f"run {self.run_id} is in use by PID {_read_pid(self.folder / 'pid')}")
        try:
            (self.folder / "pid").write_text(str(os.getpid()))
        except OSError:
            self._unlock()
            raise

    def _lock(self) -> bool:
        """Take the run's lock file without waiting (False: another holder has it): ``fcntl.flock``
        where POSIX has it, as filelock does there but without its ~20 ms import; filelock elsewhere."""
        path = self.folder / "lock"
        try:
            import fcntl

            fd, created = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644), True
        except FileExistsError:
            fd, created = os.open(path, os.O_RDWR), False
        except ImportError:  # Windows
            return self._lock_with_filelock()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                return False
            if exc.errno != errno.ENOSYS:
                raise
            if created:  # a file system without flock: filelock's lock, which finds what it left
                path.unlink()
            return self._lock_with_filelock()
        self._held = fd
        return True

    def _lock_with_filelock(self) -> bool:
        from filelock import FileLock, Timeout

        self._held = FileLock(str(self.folder / "lock"), timeout=0)
        try:
            return self._held.acquire() is not None
        except Timeout:
            return False

    def _unlock(self) -> None:
        held, self._held = self._held, None
        if isinstance(held, int):
            os.close(held)  # its only descriptor: closing it releases the flock
        elif held is not None:
            held.release()

    # -- manifest -----------------------------------------------------------------------------

    def read_manifest(self) -> dict[str, Any]:
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreError(f"run {self.run_id}: manifest.json is unreadable ({exc})") from None
        if not isinstance(data, dict):
            raise StoreError(f"run {self.run_id}: manifest.json is not a JSON object")
        return data

    def write_manifest(self, data: dict[str, Any]) -> None:
        """Replace the manifest atomically (temp file, fsync, rename)."""
        tmp = self.folder / f".{MANIFEST}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(redact.current()(json.dumps(data, indent=2, ensure_ascii=True)))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.manifest_path)
        except OSError as exc:
            raise StoreWriteError(f"cannot write {self.manifest_path}: {exc.strerror}") from None

    # -- results ------------------------------------------------------------------------------

    def append(self, line: str) -> None:
        """Append one result line; it is durable against a process kill when this returns."""
        if self._fd is None:
            self._fd = os.open(self.results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        data = (line + "\n").encode("utf-8")
        try:
            written = os.write(self._fd, data)
            while written < len(data):  # only on a signal or a full disk
                written += os.write(self._fd, data[written:])
            now = time.monotonic()
            if now - self._last_sync >= FSYNC_INTERVAL_S:
                self._sync_in_background()
                self._last_sync = now
        except OSError as exc:
            raise StoreWriteError(f"cannot write results to {self.results_path}: {exc.strerror}") from None

    def _sync_in_background(self) -> None:
        """Start an ``fsync`` unless one is still running; a failed one raises (OSError) here."""
        if self._syncing is not None:
            if not self._syncing.done():
                return  # the disk is slow: the running fsync covers this line's write too
            self._syncing.result()
        if self._syncer is None:
            self._syncer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bench-fsync")
        assert self._fd is not None
        self._syncing = self._syncer.submit(os.fsync, self._fd)

    def read_results(self) -> dict[str, str]:
        """The last complete line recorded for each task id (raw JSON text).

        A final line without its newline was cut by a kill: it is copied to
        ``results.torn.jsonl``, removed from the results, and its task counts as not run.
        """
        if not self._regular_results():
            return {}
        raw = self.results_path.read_bytes()
        end = raw.rfind(b"\n") + 1
        if end < len(raw):
            self._set_aside(raw[end:], end)
        # split("\n"), not splitlines(): U+2028, U+0085 and kin may sit raw inside a JSON line.
        return latest_lines(raw[:end].decode("utf-8", errors="replace").split("\n"))

    def latest_refs(self) -> LineRefs:
        """Where each key's latest line starts and whether it finished, scanned line by line so no
        line is held (only its head is parsed); a torn final line is set aside as ``read_results``
        does."""
        refs = LineRefs()
        if not self._regular_results():
            return refs
        with open(self.results_path, "rb") as lines:
            offset = 0
            for raw in lines:
                if not raw.endswith(b"\n"):
                    self._set_aside(raw, offset)
                    break
                head = _line_head(raw.decode("utf-8", errors="replace"))
                if head is not None:
                    refs[head[0]] = LineRef(head[1] in FINISHED_STATUSES, offset)
                offset += len(raw)
        return refs

    def finished(self) -> dict[str, str]:
        """``{key: digest}`` of each key whose latest line finished (passed or failed)."""
        found: dict[str, str] = {}
        for key, ref in self.latest_refs().items():
            line = parsed(self.read_line(ref.offset)) if ref.finished else None
            if line is not None:
                digest = line.get("digest")
                found[key] = digest if isinstance(digest, str) else ""
        return found

    def read_line(self, offset: int) -> str:
        """The result line that starts at byte ``offset`` (from ``latest_refs``)."""
        if self._reader is None:
            self._reader = open(self.results_path, "rb")  # noqa: SIM115 - closed by close()
        self._reader.seek(offset)
        return self._reader.readline().decode("utf-8", errors="replace").rstrip("\n")

    def _regular_results(self) -> bool:
        try:
            info = os.lstat(self.results_path)
        except FileNotFoundError:
            return False
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"run {self.run_id}: {self.results_path} is not a regular file")
        return True

    def _set_aside(self, torn: bytes, offset: int) -> None:
        """A final line cut by a kill: kept in ``results.torn.jsonl``, removed from the results."""
        with open(self.folder / "results.torn.jsonl", "ab") as fh:
            fh.write(torn + b"\n")
        os.truncate(self.results_path, offset)

    def iter_lines(self, order: Iterable[str]) -> Iterator[str]:
        """Each task's latest result line (JSON text), in the given order; ids never recorded are
        skipped. Only where each line starts is held (``latest_refs``): each is read as it is
        yielded, so a large store is never in memory whole."""
        latest = self.latest_refs()
        if not latest:
            return
        with open(self.results_path, "rb") as lines:
            for task_id in order:
                ref = latest.pop(task_id, None)
                if ref is not None:
                    lines.seek(ref.offset)
                    yield lines.readline().decode("utf-8", errors="replace").rstrip("\n")

    def iter_results(self, order: Iterable[str]) -> Iterator[dict[str, Any]]:
        """Each task's latest result as a dict, in the given order."""
        for line in self.iter_lines(order):
            yield json.loads(line)

    def close(self) -> None:
        if self._syncer is not None:
            self._syncer.shutdown(wait=True)  # the fsync in flight ends before its descriptor closes
            self._syncer = self._syncing = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(self._fd)
            os.close(self._fd)
            self._fd = None
        self._unlock()


class LineRef(NamedTuple):
    """A key's latest result line: whether it finished (passed or failed), and where it starts."""

    finished: bool
    offset: int


class LineRefs:
    """Each key's ``LineRef``, in the order the keys first appear, held compactly (a ``KeyTable``
    of ``offset * 2 + finished``: about 40 bytes a key, where a dict of ``LineRef`` held 180)."""

    def __init__(self) -> None:
        self._table = KeyTable()

    def __setitem__(self, key: str, ref: LineRef) -> None:
        self._table[key] = ref.offset * 2 + ref.finished

    def __getitem__(self, key: str) -> LineRef:
        found = self._table.get(key)
        if found is None:
            raise KeyError(key)
        return _ref(found)

    def pop(self, key: str, default: None = None) -> LineRef | None:
        """The key's ref, which is then removed; ``default`` when it has none."""
        found = self._table.pop(key)
        return default if found is None else _ref(found)

    def items(self) -> Iterator[tuple[str, LineRef]]:
        return ((key, _ref(value)) for key, value in self._table.items())

    def __len__(self) -> int:
        return len(self._table)

    def __bool__(self) -> bool:
        return len(self._table) > 0


def _ref(value: int) -> LineRef:
    return LineRef(bool(value & 1), value >> 1)


LATEST = "latest"


def run_manifests(runs_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every run in ``runs_dir`` with a readable manifest, oldest first: by start time, then by
    when the manifest was last written (two runs started in the same second), then by id."""
    found: list[tuple[str, int, str, dict[str, Any]]] = []
    if runs_dir.is_dir():
        for folder in runs_dir.iterdir():
            path = folder / MANIFEST
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                written = os.stat(path).st_mtime_ns
            except (OSError, ValueError, RecursionError):  # nested too deeply: not a run either
                continue
            if isinstance(data, dict) and not folder.name.startswith("."):
                found.append((str(data.get("started_at", "")), written, folder.name, data))
    return [(name, data) for _, _, name, data in sorted(found, key=lambda row: row[:3])]


def newest_run(runs_dir: Path, suite: str | None = None) -> str | None:
    """The id of the newest run in ``runs_dir`` (of ``suite`` when given), ``None`` when none."""
    runs = [name for name, data in run_manifests(runs_dir) if suite is None or data.get("suite") == suite]
    return runs[-1] if runs else None


def resolve_run(runs_dir: Path, ref: str, what: str, suite: str | None = None) -> str:
    """``ref`` itself, or for ``latest`` the newest run (of ``suite`` when given); ``what`` names
    the option or command in the error when there is none."""
    if ref != LATEST:
        return ref
    newest = newest_run(runs_dir, suite)
    if newest is None:
        of = f" of suite '{suite}'" if suite is not None else ""
        raise StoreError(f"{what} latest: no run{of} in {runs_dir}")
    return newest


def read_run(runs_dir: Path, ref: str, what: str) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """A stored run's id, manifest and latest result per task (``latest``: the newest run), read
    without the run's lock and without repairing it, so a run still in progress can be read."""
    run_id = resolve_run(runs_dir, ref, what)
    folder = runs_dir / run_id
    try:
        if not run_id or "/" in run_id or run_id.startswith("."):
            raise FileNotFoundError(run_id)
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        known = ", ".join(name for name, _ in run_manifests(runs_dir)[-10:]) or "none"
        raise StoreError(f"no run '{ref}' in {runs_dir} (runs found: {known})") from None
    except (OSError, ValueError) as exc:
        raise StoreError(f"run {run_id}: manifest.json is unreadable ({exc})") from None
    if not isinstance(manifest, dict):
        raise StoreError(f"run {run_id}: manifest.json is not a JSON object")
    path = results_path(folder)
    results = read_latest_results(path) if path.is_file() else []
    return run_id, manifest, results


def read_latest_results(path: Path) -> list[dict[str, Any]]:
    """Each task's latest result in a ``results.jsonl``, read-only: a torn last line (its task did
    not finish) is skipped, never set aside as ``RunStore.read_results`` does for a resume."""
    results: list[dict[str, Any]] = []
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in latest_lines(lines).values():
            try:
                results.append(json.loads(line))
            except ValueError:
                continue
    return results


_ID_PREFIX = '{"id":'
_REPEAT = ',"repeat":'
_decoder = json.JSONDecoder()


def latest_lines(lines: Iterable[str]) -> dict[str, str]:
    """The last line recorded for each result key (``id`` or ``id@N``), in first-seen order."""
    latest: dict[str, str] = {}
    for line in lines:
        key = _line_id(line)
        if key is not None:
            latest[key] = line
    return latest


_STATUS = ',"status":'


def parsed(line: str) -> dict[str, Any] | None:
    """A result line as a dict; None when it is not a JSON object (a damaged line)."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):  # nested too deeply is damaged too
        return None
    return data if isinstance(data, dict) else None


def _line_head(line: str) -> tuple[str, Any] | None:
    """The key and status of a result line, parsing only its head when it is in the store's
    compact form (``id``, ``repeat``, ``status`` first); None for a line without a key."""
    key = _line_id(line)
    if key is None:
        return None
    try:
        value, end = _decoder.raw_decode(line, len(_ID_PREFIX)) if line.startswith(_ID_PREFIX) else (None, 0)
        if value is not None and line.startswith(_REPEAT, end):
            _, end = _decoder.raw_decode(line, end + len(_REPEAT))
        if value is not None and line.startswith(_STATUS, end):
            return key, _decoder.raw_decode(line, end + len(_STATUS))[0]
    except ValueError:  # not the compact form after all (a space after a colon): parse it whole
        pass
    try:
        data = json.loads(line)
    except ValueError:
        return key, None
    return key, data.get("status") if isinstance(data, dict) else None


def _line_id(line: str) -> str | None:
    """The key of a result line (``id``, or ``id@N`` for repeat N), without parsing the whole line."""
    try:
        if not line.startswith(_ID_PREFIX):
            raise ValueError("not the store's compact form")
        value, end = _decoder.raw_decode(line, len(_ID_PREFIX))
        repeat = 0
        if line.startswith(_REPEAT, end):
            repeat, _ = _decoder.raw_decode(line, end + len(_REPEAT))
    except ValueError:  # not the store's compact form (a space after a colon, say): parse it whole
        try:
            data = json.loads(line)
            value, repeat = data["id"], data.get("repeat", 0)
        except (ValueError, KeyError, TypeError, RecursionError):
            return None
    if not isinstance(value, str) or not isinstance(repeat, int):
        return None
    return RunKey(value, repeat).key()


def _read_pid(path: Path) -> str:
    try:
        return path.read_text().strip() or "unknown"
    except OSError:
        return "unknown"
