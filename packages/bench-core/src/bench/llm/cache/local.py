"""The persistent response cache: SQLite in WAL mode, values stored as JSON (never pickle).

A corrupt or locked database is a miss, never a crash: the corrupt file is moved aside once
with a warning, and the run goes on uncached (docs/reliability.md G07, G09, H09). A cache folder that
other users can write is not used at all.

The cache lives in the user's cache folder by default (``~/.cache/bench`` on Linux), shared by
every project, since a key never holds anything project-specific beyond the request itself;
``BENCH_CACHE_DIR`` moves it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
#: The environment variable that moves the cache folder.
CACHE_DIR_ENV = "BENCH_CACHE_DIR"
CACHE_FILE = "llm.sqlite3"


def default_cache_path() -> Path:
    """``$BENCH_CACHE_DIR/llm.sqlite3``, else the file in the platform's user cache folder."""
    folder = os.environ.get(CACHE_DIR_ENV)
    if not folder:
        from platformdirs import user_cache_dir

        folder = user_cache_dir("bench", appauthor=False)
    return Path(folder).expanduser() / CACHE_FILE


_AGE = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_age(text: str, option: str) -> float:
    """``30m``, ``12h``, ``7d``, ``2w`` as seconds; anything else is a ``ConfigError``."""
    from bench.vocabulary.errors import ConfigError

    match = _AGE.fullmatch(text.strip().lower())
    if match is None:
        raise ConfigError(f"{option} {text}: write an age as a number and a unit: 90s, 30m, 12h, 7d, 2w")
    return float(match[1]) * _UNIT_SECONDS[match[2]]


@dataclass(frozen=True)
class CacheInfo:
    """What ``bench cache info`` shows."""

    path: Path
    entries: int
    size_bytes: int
    oldest: float | None
    newest: float | None


def cache_key(material: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of what changes the answer (never credentials)."""
    text = json.dumps({"v": SCHEMA_VERSION, **material}, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class ResponseCache:
    """get/put of JSON values by key; every failure is logged once and treated as a miss."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        self._broken = False

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None or self._broken:
            return self._db
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            folder = self.path.parent.stat()
            if folder.st_mode & 0o022 or folder.st_uid != os.getuid():
                # Anyone who can write here can plant answers (RELIABILITY H09): not ours to trust.
                self._broken = True
                sys.stderr.write(
                    f"warning: response cache folder {self.path.parent} is writable by other users; "
                    "running uncached\n"
                )
                return None
            db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA busy_timeout=5000")
            db.execute(
                "CREATE TABLE IF NOT EXISTS responses "
                "(key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL)"
            )
        except sqlite3.DatabaseError as exc:
            self._set_aside(exc)
            return None
        except OSError as exc:  # the folder cannot be made or read: run uncached, say why
            self._broken = True
            sys.stderr.write(
                f"warning: response cache {self.path} is unusable ({exc.strerror}); running uncached\n"
            )
            return None
        self._db = db
        return db

    def _set_aside(self, exc: Exception) -> None:
        self._broken = True
        moved = ""
        if self.path.exists() and "locked" not in str(exc):
            aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
            with contextlib.suppress(OSError):
                os.replace(self.path, aside)
                moved = f"; moved it to {aside}"
        sys.stderr.write(
            f"warning: response cache {self.path} is unusable ({exc}){moved}; running uncached\n"
        )

    def get(self, key: str) -> dict[str, Any] | None:
        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            value = json.loads(row[0]) if row else None
        except (sqlite3.DatabaseError, ValueError) as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                return None  # another process holds it: a miss, not an error
            self._set_aside(exc)
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> dict[str, Any]:
        """Store ``value`` unless ``key`` already has one: the first writer wins, and the value
        stored is returned (``value`` itself when this call stored it, or when the cache is unusable),
        so two racing callers use the same answer."""
        db = self._connect()
        if db is None:
            return value
        try:
            inserted = db.execute(
                "INSERT OR IGNORE INTO responses (key, value, created) VALUES (?, ?, ?)",
                (key, json.dumps(value, ensure_ascii=True), time.time()),
            ).rowcount
            if inserted:
                return value
            row = db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            stored = json.loads(row[0]) if row else None
            if not isinstance(stored, dict):  # not an answer (get treats it as a miss): replace it
                db.execute(
                    "REPLACE INTO responses (key, value, created) VALUES (?, ?, ?)",
                    (key, json.dumps(value, ensure_ascii=True), time.time()),
                )
                return value
        except (sqlite3.DatabaseError, ValueError) as exc:
            if not (isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)):
                self._set_aside(exc)
            return value
        return stored

    def empty(self) -> bool:
        """Whether no answer is kept (every lookup would miss)."""
        if not self.path.exists():
            return True
        db = self._connect()
        if db is None:
            return True
        try:
            return db.execute("SELECT 1 FROM responses LIMIT 1").fetchone() is None
        except sqlite3.DatabaseError:
            return True

    def info(self) -> CacheInfo:
        """Entries, size on disk and the ages of the oldest and newest entry (none when absent)."""
        size = sum(p.stat().st_size for p in self._files())
        if not self.path.exists():
            return CacheInfo(self.path, 0, size, None, None)
        db = self._connect()
        if db is None:
            return CacheInfo(self.path, 0, size, None, None)
        entries, oldest, newest = db.execute(
            "SELECT COUNT(*), MIN(created), MAX(created) FROM responses"
        ).fetchone()
        return CacheInfo(self.path, entries, size, oldest, newest)

    def clear(self, older_than: float | None = None) -> int:
        """Delete the entries stored more than ``older_than`` seconds ago (all without it); the count."""
        if not self.path.exists():
            return 0
        db = self._connect()
        if db is None:
            return 0
        if older_than is None:
            removed = db.execute("DELETE FROM responses").rowcount
        else:
            removed = db.execute(
                "DELETE FROM responses WHERE created < ?", (time.time() - older_than,)
            ).rowcount
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("VACUUM")
        return removed

    def _files(self) -> list[Path]:
        names = (self.path.name, f"{self.path.name}-wal", f"{self.path.name}-shm")
        return [p for p in (self.path.with_name(n) for n in names) if p.exists()]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
