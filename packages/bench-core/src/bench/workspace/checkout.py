"""Fresh copies of a git repository, one per task, and what the agent changed in them.

Per run, each repository is cloned once into a bench-owned mirror; per task, the mirror is
cloned (``--no-hardlinks``, so nothing the agent does reaches the mirror or the source) into
``<home>/work``, the workspace the target runs in. Before the target runs, the starting tree is
snapshotted into a git directory bench owns outside the workspace; afterwards the diff is
computed there (see ``bench.workspace.safe_git`` for why). Anything that appears in ``<home>`` besides
``work`` was written outside the workspace (``../x``) and is reported, as are symlinks the
agent made that point outside it. Workspaces are removed after evaluation unless kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import os
import shutil
import stat
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.vocabulary.models import CaptureCheck, RepoSpec
from bench.workspace.captures import capture, shown
from bench.workspace.roots.abandoned import hold, let_go, remove_tree, sweep
from bench.workspace.safe_git import GitError as GitError  # re-exported: the runner catches it
from bench.workspace.safe_git import git
from bench.workspace.walk import walk

#: How much of the patch text the response keeps.
MAX_PATCH_BYTES = 1024 * 1024
#: What a task's result keeps of its workspace's diff: ``bench rescore`` judges the change again
#: from it (``stored_response``) once the workspace is gone.
#: ``rebuild``: what ``bench.intake.rebuilding`` needs besides the patch to make the tree again.
DIFF_FIELDS = (
    "files_changed",
    "lines_added",
    "lines_removed",
    "files",
    "patch",
    "patch_truncated",
    "rebuild",
)
#: The ``artifacts`` key of a replayed response's stored workspace summary: the new result keeps it.
STORED_WORKSPACE = "stored_workspace"
#: The name a run's workspace root starts with, in the temp folder.
ROOT_PREFIX = "bench-ws-"
#: Files larger than this are never read into the snapshot (a sparse 5 GB file would be hashed
#: whole): a placeholder naming the size stands in for them and the change says ``truncated``.
MAX_SNAPSHOT_FILE_BYTES = 100 * 1024 * 1024
SYMLINK_MODE = "120000"
GITLINK_MODE = "160000"
_NESTED = "is a git repository inside the workspace, and no patch holds its files"
#: The files git ignores in a work tree that its index does not track (one ``-z`` list).
IGNORED_FILES = ("ls-files", "-z", "--others", "--ignored", "--exclude-standard")
_OVER_KEPT = f"over the {MAX_PATCH_BYTES // (1024 * 1024)} MiB of patch a result keeps"


@dataclass(frozen=True)
class FileChange:
    """One changed path between two trees (``old_path`` set for a rename or copy)."""

    path: str
    status: str  # added, modified, deleted, renamed, copied, type_changed
    added: int = 0
    removed: int = 0
    binary: bool = False
    old_path: str | None = None
    mode: str | None = None
    #: Set when the file was too large to snapshot: its size in bytes (its lines are not counted).
    size: int | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "status": self.status,
            "added": self.added,
            "removed": self.removed,
        }
        if self.binary:
            data["binary"] = True
        if self.old_path is not None:
            data["old_path"] = self.old_path
        if self.size is not None:
            data["truncated"] = True
            data["size"] = self.size
            data["reason"] = (
                f"larger than the {MAX_SNAPSHOT_FILE_BYTES // (1024 * 1024)} MiB snapshot cap: not compared"
            )
        return data


_STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied", "T": "type_changed"}


async def changes(git_dir: Path, old: str, new: str) -> list[FileChange]:
    """Every path that differs between two trees (renames detected), with line counts."""
    common = ("-r", "-z", "-M", "--no-ext-diff", "--no-textconv", old, new, "--")
    raw = (await git("diff-tree", "--raw", *common, git_dir=git_dir)).split(b"\0")
    numstat = (await git("diff-tree", "--numstat", *common, git_dir=git_dir)).split(b"\0")
    counts: dict[str, tuple[int, int, bool]] = {}
    i = 0
    while i < len(numstat) and numstat[i]:
        added, removed, rest = numstat[i].split(b"\t", 2)
        if rest:  # a plain path
            name, i = rest, i + 1
        else:  # a rename: "added\tremoved\t\0old\0new"
            name, i = numstat[i + 2], i + 3
        binary = added == b"-"
        counts[shown(name)] = (0 if binary else int(added), 0 if binary else int(removed), binary)
    result: list[FileChange] = []
    i = 0
    while i < len(raw) and raw[i]:
        meta = raw[i].decode().lstrip(":").split()  # ":oldmode newmode oldsha newsha STATUS"
        letter = meta[4][0]
        if letter in "RC":
            old_path, path, i = shown(raw[i + 1]), shown(raw[i + 2]), i + 3
        else:
            old_path, path, i = None, shown(raw[i + 1]), i + 2
        lines_added, lines_removed, binary = counts.get(path, (0, 0, False))
        mode = meta[1] if letter != "D" else meta[0]
        result.append(
            FileChange(
                path, _STATUS.get(letter, "modified"), lines_added, lines_removed, binary, old_path, mode
            )
        )
    return result


async def _diff(git_dir: Path, old: str, new: str, *options: str, paths: list[str] | None = None) -> bytes:
    specs = [":(top,literal)" + p for p in paths or ()]
    return await git(
        "diff-tree", "-p", "-r", "-M", "--no-ext-diff", "--no-textconv", *options, old, new, "--", *specs,
        git_dir=git_dir,
    )  # fmt: skip


def _kept(raw: bytes, what: str) -> tuple[str, str | None]:
    """``raw`` as the text a result keeps, and why it cannot make the tree again (None: it can)."""
    if len(raw) > MAX_PATCH_BYTES:
        return "", f"{what} are {_OVER_KEPT}"
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return "", f"{what} hold bytes that are not UTF-8 (a file or a name in another encoding)"


def _size(path: str) -> int:
    try:
        return os.lstat(path).st_size
    except OSError:  # gone since it was listed: git add says so
        return 0


def oversized(root: Path, limit: int = MAX_SNAPSHOT_FILE_BYTES) -> dict[bytes, os.stat_result]:
    """Regular files under ``root`` larger than ``limit`` (relative path -> ``lstat``), never read.

    Links are not followed and ``.git`` folders are skipped, as git itself does; nor is a nested
    repository entered (a folder holding ``.git`` below the root): git records it as one commit.
    """
    found: dict[bytes, os.stat_result] = {}
    top = os.fsencode(root)

    def plain(folder: os.DirEntry[bytes]) -> bool:
        return folder.name != b".git" and not os.path.lexists(os.path.join(folder.path, b".git"))

    for entry in walk(top, descend=plain):
        try:
            if entry.is_dir(follow_symlinks=False):
                continue
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            found[os.path.relpath(entry.path, top)] = info
    return found


def summarize(files: list[FileChange]) -> dict[str, Any]:
    """youBencha's git-diff figures: files changed, lines added and removed."""
    return {
        "files_changed": len(files),
        "lines_added": sum(f.added for f in files),
        "lines_removed": sum(f.removed for f in files),
        "files": [f.as_dict() for f in files],
    }


@dataclass
class Checkout:
    """One task's workspace and bench's snapshot of where it started."""

    repo: RepoSpec
    home: Path
    snapshot: Path
    mirror: Path
    base_commit: str
    start_tree: str = ""
    end_tree: str = ""
    #: Files too large to snapshot at the last ``tree()`` (shown path -> size in bytes).
    too_large: dict[str, int] = field(default_factory=dict)
    #: The workspace's name inside ``home``.
    work: str = "work"

    @property
    def path(self) -> Path:
        """The workspace folder (where the target runs)."""
        return self.home / self.work

    async def tree(self) -> str:
        """Snapshot the workspace as it is now into bench's git directory; return the tree id.

        Files over ``MAX_SNAPSHOT_FILE_BYTES`` are left out of ``git add`` and a placeholder blob
        naming their size and modification time stands in for them (B09).
        """
        snap, work = self.snapshot, self.path
        big = await self._unignored(oversized(self.path))
        pathspecs = b".\0" + b"".join(b":(top,exclude,literal)" + name + b"\0" for name in big)
        await git(
            "add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul",
            stdin=pathspecs, git_dir=snap, work_tree=work,
        )  # fmt: skip
        entries = b""
        for name, info in big.items():
            note = f"bench: not snapshotted: {info.st_size} bytes, modified {info.st_mtime_ns}\n"
            blob = await git("hash-object", "-w", "--stdin", stdin=note.encode(), git_dir=snap)
            entries += b"100644 " + blob.strip() + b"\t" + name + b"\0"
        if entries:
            await git("update-index", "-z", "--index-info", stdin=entries, git_dir=snap, work_tree=work)
        self.too_large = {shown(name): info.st_size for name, info in big.items()}
        return (await git("write-tree", git_dir=snap, work_tree=work)).decode().strip()

    async def _unignored(self, found: dict[bytes, os.stat_result]) -> dict[bytes, os.stat_result]:
        """Leave out files ``git add -A`` would ignore anyway (``.gitignore``, not tracked)."""
        if not found:
            return found
        names = b"".join(name + b"\0" for name in found)
        try:
            ignored = await git(
                "check-ignore", "-z", "--stdin", stdin=names, git_dir=self.snapshot, work_tree=self.path,
                cwd=self.path,
            )  # fmt: skip
        except GitError:  # exit status 1: none is ignored
            return found
        skip = set(ignored.split(b"\0"))
        return {name: info for name, info in found.items() if name not in skip}

    async def finish(self, checks: list[CaptureCheck], max_capture_bytes: int) -> dict[str, Any]:
        """What the target did: the diff, captures and anything that left the workspace."""
        self.end_tree = await self.tree()
        files = [
            replace(f, added=0, removed=0, size=self.too_large[f.path]) if f.path in self.too_large else f
            for f in await changes(self.snapshot, self.start_tree, self.end_tree)
        ]
        raw = await _diff(self.snapshot, self.start_tree, self.end_tree)
        text, cut = raw[:MAX_PATCH_BYTES].decode("utf-8", "replace"), len(raw) > MAX_PATCH_BYTES
        diff = {"base_commit": self.base_commit, **summarize(files), "patch": text, "patch_truncated": cut}
        diff["rebuild"] = await self._rebuild(files, raw)
        artifacts: dict[str, Any] = {
            "diff": diff,
            "workspace": {
                "repo": self.repo.source,
                "revision": self.repo.revision,
                "base_commit": self.base_commit,
                "path": str(self.path),
                "snapshot": str(self.snapshot),
                "mirror": str(self.mirror),
                "start_tree": self.start_tree,
                "end_tree": self.end_tree,
            },
            "escapes": self._escapes(files),
        }
        if checks:
            artifacts.update(capture(self.path, checks, max_capture_bytes))
        return artifacts

    async def _rebuild(self, files: list[FileChange], raw: bytes) -> dict[str, str]:
        """What ``rebuilt`` needs besides the patch to make this tree again: the binary files'
        content (``binary``, ``git diff --binary``) and the files git ignores that the workspace
        holds (``ignored``: evaluators reading the whole tree saw them, no patch has them); or
        why it cannot (``refused``). Empty values are left out."""
        big = [f.path for f in files if f.path in self.too_large]
        nested = [f.path for f in files if f.mode == GITLINK_MODE and f.status != "deleted"]
        if big:
            return {"refused": f"{big[0]} was larger than the snapshot cap, and its content was not kept"}
        if nested:
            return {"refused": f"{nested[0]} {_NESTED}"}
        _, why = _kept(raw, "the change's files")
        binary = [p for f in files if f.binary for p in (f.path, f.old_path) if p is not None]
        found = {"binary": "", "ignored": ""}
        if why is None and binary:
            found["binary"], why = _kept(
                await _diff(
                    self.snapshot, self.start_tree, self.end_tree, "--binary", "--full-index", paths=binary
                ),
                "the binary files changed",
            )
        if why is None:
            try:
                found["ignored"], why = await self._ignored()
            except GitError as exc:
                why = f"the files git ignores in the workspace could not be read: {exc}"
        return {"refused": why} if why is not None else {k: v for k, v in found.items() if v}

    async def _ignored(self) -> tuple[str, str | None]:
        """The files git ignores in the workspace, as a binary patch adding them to the end tree."""
        snap, work = self.snapshot, self.path
        listed = await git(*IGNORED_FILES, git_dir=snap, work_tree=work, cwd=work)
        names = [name for name in listed.split(b"\0") if name]
        if not names:
            return "", None
        nested = [name for name in names if name.endswith(b"/")]
        if nested:
            return "", f"{shown(nested[0][:-1])} {_NESTED}"
        size = sum(_size(os.path.join(work, os.fsdecode(name))) for name in names)
        if size > MAX_PATCH_BYTES:
            return "", f"the files git ignores in the workspace ({len(names)}, {size} bytes) are {_OVER_KEPT}"
        index = snap / "index.ignored"
        shutil.copyfile(snap / "index", index)
        try:
            specs = b"".join(b":(top,literal)" + name + b"\0" for name in names)
            await git(
                "add", "--force", "--pathspec-from-file=-", "--pathspec-file-nul", stdin=specs,
                git_dir=snap, work_tree=work, index_file=index,
            )  # fmt: skip
            full = (await git("write-tree", git_dir=snap, work_tree=work, index_file=index)).decode().strip()
        finally:
            index.unlink(missing_ok=True)
        return _kept(
            await _diff(snap, self.end_tree, full, "--binary", "--full-index"), "the files git ignores"
        )

    def _escapes(self, files: list[FileChange]) -> list[dict[str, str]]:
        found: list[dict[str, str]] = []
        for name in sorted(os.listdir(self.home)):
            if name != self.work:
                found.append({"path": f"../{shown(name)}", "kind": "written outside the workspace"})
        root = self.path.resolve()
        for change in files:
            if change.status == "deleted" or change.mode != SYMLINK_MODE:
                continue
            link = self.path / change.path
            try:
                target = os.readlink(link)
            except OSError:
                continue
            resolved = Path(os.path.normpath(link.parent / target))
            if os.path.isabs(target) or (resolved != root and root not in resolved.parents):
                found.append(
                    {"path": change.path, "kind": "symlink leading outside", "target": shown(target)}
                )
        return found

    def summary(self, artifacts: dict[str, Any], keep: bool) -> dict[str, Any]:
        """What a task's result says about its workspace: the change, escapes, captured sizes."""
        diff = artifacts.get("diff") or {}
        found: dict[str, Any] = {
            "repo": self.repo.source,
            "revision": self.repo.revision,
            "base_commit": self.base_commit,
            **{k: diff[k] for k in DIFF_FIELDS if k in diff},
            "escapes": artifacts.get("escapes", []),
        }
        captured = artifacts.get("files")
        if isinstance(captured, dict) and captured:
            found["captured"] = {
                path: {k: v for k, v in record.items() if k != "content"} for path, record in captured.items()
            }
        if keep or self.repo.workspace_dir is not None:
            found["path"] = str(self.path)
        return found

    def cleanup(self) -> None:
        """Remove the workspace and the snapshot (the agent may have made files read-only)."""
        remove_tree(self.home)
        remove_tree(self.snapshot)


class Workspaces:
    """Prepares workspaces for a run; ``close`` removes the mirrors (and workspaces not kept)."""

    def __init__(self, keep: bool = False, root: Path | None = None) -> None:
        self.keep = keep
        # In a thread: a killed run's mirrors can be gigabytes, whose removal must not stall the loop.
        parent = root or Path(tempfile.gettempdir())
        self._sweep = threading.Thread(
            target=sweep, args=(parent, ROOT_PREFIX, remove_tree), name="bench-sweep"
        )
        self._sweep.start()
        self.root = Path(tempfile.mkdtemp(prefix=ROOT_PREFIX, dir=root))
        #: While it is held, no other run's sweep takes this root; kept workspaces are never swept.
        self._owner = None if keep else hold(self.root)
        self._mirrors: dict[str, asyncio.Task[Path]] = {}
        self._count = 0

    async def _mirror(self, source: str) -> Path:
        key = hashlib.sha256(source.encode()).hexdigest()[:16]
        mirror = self.root / "mirrors" / f"{key}.git"
        mirror.parent.mkdir(exist_ok=True)
        await git("clone", "--mirror", "--quiet", "--no-hardlinks", "--", source, str(mirror), timeout=600)
        return mirror

    async def prepare(self, repo: RepoSpec) -> Checkout:
        """A fresh workspace at ``repo``'s revision, snapshotted; raise GitError if git fails."""
        if repo.source not in self._mirrors:
            self._mirrors[repo.source] = asyncio.ensure_future(self._mirror(repo.source))
        mirror = await asyncio.shield(self._mirrors[repo.source])
        commit = (
            (
                await git(
                    "rev-parse", "--verify", "--end-of-options", f"{repo.revision}^{{commit}}", git_dir=mirror
                )
            )
            .decode()
            .strip()
        )
        self._count += 1
        if repo.workspace_dir is None:
            home, work = self.root / "tasks" / str(self._count), "work"
            home.mkdir(parents=True)
        else:
            home, work = placed_home(Path(repo.workspace_dir), repo.workspace_name or "run"), "src-modified"
        snapshot = self.root / "snapshots" / f"{self._count}.git"
        snapshot.parent.mkdir(exist_ok=True)
        checkout = Checkout(repo, home, snapshot, mirror, commit, work=work)
        work = str(checkout.path)
        await git("clone", "--quiet", "--no-hardlinks", "--no-checkout", "--", str(mirror), work)
        if repo.branch and not repo.ref:
            await git("checkout", "--quiet", "-B", repo.branch, commit, cwd=work)
        else:
            await git("checkout", "--quiet", "--detach", commit, cwd=work)
        await git("init", "--quiet", "--bare", str(snapshot))
        (snapshot / "objects" / "info" / "alternates").write_text(f"{mirror / 'objects'}\n")
        checkout.start_tree = await checkout.tree()
        return checkout

    def release(self, checkout: Checkout) -> None:
        """Remove a task's workspace unless workspaces are kept (a placed one always is)."""
        if self.keep or checkout.repo.workspace_dir is not None:
            return
        with contextlib.suppress(OSError):  # what is left goes with the run's folder in close()
            checkout.cleanup()

    def close(self) -> None:
        """Remove the mirrors; remove everything when workspaces are not kept."""
        for task in self._mirrors.values():
            task.cancel()
        if self.keep:  # only the workspaces stay; the snapshots need the mirrors
            remove_tree(self.root / "mirrors")
            remove_tree(self.root / "snapshots")
        else:
            remove_tree(self.root)
        let_go(self.root, self._owner)
        self._owner = None
        self._sweep.join()


def placed_home(folder: Path, name: str) -> Path:
    """A new run folder ``NAME-YYYY-MM-DD-MS`` in ``folder`` (youBencha's ``generateWorkspacePaths``),
    ``-2``, ``-3``... added when a run in the same millisecond took the name; never one that exists."""
    now = time.time()
    stem = f"{name}-{time.strftime('%Y-%m-%d', time.gmtime(now))}-{int(now * 1000)}"
    folder.mkdir(parents=True, exist_ok=True)
    for n in itertools.count(1):
        home = folder / (stem if n == 1 else f"{stem}-{n}")
        try:
            home.mkdir()
        except FileExistsError:
            continue
        return home
    raise AssertionError("unreachable")
