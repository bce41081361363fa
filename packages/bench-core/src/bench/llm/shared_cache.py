"""The shared second level of the response cache: one JSON object per key on any fsspec URL.

An entry is ``URL/ab/<sha256>.json`` (``ab`` the key's first two hex digits), its value JSON, never
pickle. Writes are create-only, so racing writers converge: the first object stays, and a writer
that finds one already there reads it and uses it.

- ``file://`` (or a plain path): the answer is written to a temporary file beside the object and
  hard-linked into place, which fails if the object exists; a reader never sees half an object.
- any other filesystem: ``pipe_file(mode="create")``, whose guarantee is the backend's. s3fs sends
  ``If-None-Match: *`` (atomic on AWS S3 and stores that implement conditional writes); ``memory://``
  checks under the interpreter's lock; fsspec's generic fallback checks, then writes (not atomic:
  two writers in the same instant may each keep their own answer for that run).

Anything unreadable is a miss: a damaged object warns once and is left alone (delete it to store
a fresh answer), and a filesystem error warns once and turns the second level off for the run.
Everyone who can write the URL can plant answers: point it only at storage your team controls.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from typing import Any

#: The environment variable that names a shared cache when ``--shared-cache`` does not.
SHARED_CACHE_ENV = "BENCH_SHARED_CACHE"


def shared_cache_url(option: str | None = None) -> str | None:
    """``option``, else ``$BENCH_SHARED_CACHE``, else ``None`` (no second level)."""
    return option or os.environ.get(SHARED_CACHE_ENV) or None


class SharedCache:
    """get/put of JSON values by key under ``url``; put is create-only and returns the stored value."""

    def __init__(self, url: str) -> None:
        from bench.errors import ConfigError

        try:
            import fsspec
            from fsspec.implementations.local import LocalFileSystem

            fs, root = fsspec.core.url_to_fs(url)
        except (ImportError, ValueError) as exc:  # an unknown protocol, or its package is missing
            raise ConfigError(f"--shared-cache {url}: {exc}") from None
        self.url = url
        self._fs = fs
        self._root = str(root).rstrip("/")
        self._local = isinstance(fs, LocalFileSystem)
        self._off = False
        self._warned: set[str] = set()

    def path(self, key: str) -> str:
        """Where the value of ``key`` lives, in the filesystem's own terms."""
        return f"{self._root}/{key[:2]}/{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        if self._off:
            return None
        path = self.path(key)
        try:
            data = self._fs.cat_file(path)
        except FileNotFoundError:
            return None
        except Exception as exc:  # any backend's error: run on without the second level
            self._turn_off(exc)
            return None
        try:
            value = json.loads(data)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            self._warn(
                path, f"warning: shared cache object {path} is not a whole JSON object; treated as a miss\n"
            )
            return None
        return value

    def put(self, key: str, value: dict[str, Any]) -> dict[str, Any]:
        """Store ``value`` unless ``key`` has an object already; the value to use (the stored one)."""
        if self._off:
            return value
        path = self.path(key)
        data = json.dumps(value, ensure_ascii=True, sort_keys=True).encode()
        try:
            created = self._create_local(path, data) if self._local else self._create(path, data)
        except Exception as exc:  # as in get
            self._turn_off(exc)
            return value
        if created:
            return value
        stored = self.get(key)  # another writer was first: its answer is the one
        return value if stored is None else stored

    def _create(self, path: str, data: bytes) -> bool:
        try:
            self._fs.pipe_file(path, data, mode="create")
        except FileExistsError:
            return False
        return True

    def _create_local(self, path: str, data: bytes) -> bool:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".part-")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            try:
                os.link(temporary, path)  # fails if the object exists: create-only, and whole
            except FileExistsError:
                return False
            return True
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)

    def _turn_off(self, exc: Exception) -> None:
        self._off = True
        self._warn("", f"warning: shared cache {self.url} is unusable ({exc}); running without it\n")

    def _warn(self, about: str, text: str) -> None:
        if about not in self._warned:
            self._warned.add(about)
            sys.stderr.write(text)
