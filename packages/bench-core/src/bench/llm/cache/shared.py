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

Anything unreadable is a miss: a damaged object (not JSON, or not shaped as ``schema`` says) warns
once and is left alone (delete it to store a fresh answer), an object this user may not read is a
miss with one warning, a cache this user may not write is read and never written (one warning),
and any other filesystem error warns once and turns the second level off for the run. Everyone
who can write the URL can plant answers: point it only at storage your team controls.

On a folder, who may read is the folder's owner's choice: each ``ab/`` folder takes the cache
folder's permissions and each object the cache folder's read bits (group and others), whatever
the writer's umask, so a team sharing a group-readable folder reads each other's answers.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import tempfile
from typing import Any

from pydantic import BaseModel, ValidationError

#: The environment variable that names a shared cache when ``--shared-cache`` does not.
SHARED_CACHE_ENV = "BENCH_SHARED_CACHE"


def shared_cache_url(option: str | None = None) -> str | None:
    """``option``, else ``$BENCH_SHARED_CACHE``, else ``None`` (no second level)."""
    return option or os.environ.get(SHARED_CACHE_ENV) or None


class SharedCache:
    """get/put of JSON values by key under ``url``; put is create-only and returns the stored value.

    With ``schema``, a stored object that does not validate against it is damaged: a miss.
    """

    def __init__(self, url: str, schema: type[BaseModel] | None = None) -> None:
        from bench.vocabulary.errors import ConfigError

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
        self._schema = schema
        self._folder_mode: int | None = None
        self._off = False
        self._read_only = False
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
        except PermissionError as exc:  # this object only (an older bench wrote them owner-only)
            self._warn(
                "unreadable",
                f"warning: shared cache object {path} is not readable ({exc.strerror or exc}); "
                "treated as a miss, as is any other you cannot read\n",
            )
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
        if self._schema is not None:
            try:
                self._schema.model_validate(value)
            except ValidationError as exc:
                self._warn(
                    path,
                    f"warning: shared cache object {path} is not a cached answer ({_first_error(exc)}); "
                    "treated as a miss\n",
                )
                return None
        return value

    def put(self, key: str, value: dict[str, Any]) -> dict[str, Any]:
        """Store ``value`` unless ``key`` has an object already; the value to use (the stored one)."""
        if self._off or self._read_only:
            return value
        path = self.path(key)
        data = json.dumps(value, ensure_ascii=True, sort_keys=True).encode()
        try:
            created = self._create_local(path, data) if self._local else self._create(path, data)
        except PermissionError as exc:  # a team's cache others fill: still worth reading
            self._read_only = True
            self._warn(
                "read-only",
                f"warning: shared cache {self.url} is read-only for you ({exc.strerror or exc}); "
                "reading it, storing nothing in it\n",
            )
            return value
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
        if os.path.exists(path):  # nothing to write (and a folder you may only read stays usable)
            return False
        folder = os.path.dirname(path)
        folder_mode = self._make_folder(folder)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".part-")
        try:
            # mkstemp makes it 0600: readable by the cache folder's readers too, never writable.
            os.fchmod(handle, stat.S_IRUSR | stat.S_IWUSR | (folder_mode & (stat.S_IRGRP | stat.S_IROTH)))
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

    def _make_folder(self, folder: str) -> int:
        """Make ``folder`` (an ``ab/`` folder) with the cache folder's permissions; those permissions."""
        if self._folder_mode is None:
            os.makedirs(self._root, exist_ok=True)
            self._folder_mode = stat.S_IMODE(os.stat(self._root).st_mode)
        try:
            os.mkdir(folder)
        except FileExistsError:
            return self._folder_mode
        os.chmod(folder, self._folder_mode)  # mkdir's mode passes through the umask; this does not
        return self._folder_mode

    def _turn_off(self, exc: Exception) -> None:
        self._off = True
        self._warn("", f"warning: shared cache {self.url} is unusable ({exc}); running without it\n")

    def _warn(self, about: str, text: str) -> None:
        if about not in self._warned:
            self._warned.add(about)
            sys.stderr.write(text)


def _first_error(exc: ValidationError) -> str:
    """``tool_calls: Input should be a valid list``: where the first error is, and what."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else error["msg"]
