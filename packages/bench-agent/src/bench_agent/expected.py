"""youBencha's ``expected-diff``: how close the agent's result is to a reference solution."""

from __future__ import annotations

import difflib
import fnmatch
import io
import os
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample, Task
from bench.workspace import GitError, git, list_inside, read_inside, rebuilt

#: Files larger than this are compared byte for byte, not line by line.
LINE_COMPARE_BYTES = 256 * 1024
DEFAULT_THRESHOLD = 0.8


class ExpectedDiffConfig(EvaluatorConfig):
    """Settings of expected-diff: a reference branch of the task's repository, or a folder."""

    reference_branch: str | None = None
    """A branch, tag or commit of the task's repository holding the expected result."""
    reference_dir: str | None = None
    """A folder (relative to the suite) holding the expected result."""
    ignore_patterns: list[str] = Field(default_factory=list)
    """Globs of paths left out of the comparison (``*.lock``, ``build/*``); ``.git`` always is."""

    @model_validator(mode="after")
    def _one_reference(self) -> ExpectedDiffConfig:
        if (self.reference_branch is None) == (self.reference_dir is None):
            raise ValueError("give reference_branch (in the task's repository) or reference_dir (a folder)")
        return self


def similarity(a: bytes, b: bytes) -> float:
    """Line similarity of two files (difflib's ratio); large or binary files: equal or not."""
    if a == b:
        return 1.0
    if len(a) > LINE_COMPARE_BYTES or len(b) > LINE_COMPARE_BYTES or b"\0" in a[:8192] or b"\0" in b[:8192]:
        return 0.0
    left = a.decode("utf-8", "replace").splitlines()
    right = b.decode("utf-8", "replace").splitlines()
    return difflib.SequenceMatcher(None, left, right, autojunk=False).ratio()


def compare(actual: dict[str, bytes], expected: dict[str, bytes]) -> dict[str, Any]:
    """youBencha's aggregate: mean similarity of common files minus (added + removed) / all files."""
    files: list[dict[str, Any]] = []
    for path in sorted(actual.keys() | expected.keys()):
        if path in actual and path in expected:
            value = similarity(actual[path], expected[path])
            files.append(
                {
                    "path": path,
                    "similarity": round(value, 6),
                    "status": "matched" if value == 1 else "changed",
                }
            )
        else:
            files.append(
                {"path": path, "similarity": 0.0, "status": "added" if path in actual else "removed"}
            )
    counts = {
        s: sum(1 for f in files if f["status"] == s) for s in ("matched", "changed", "added", "removed")
    }
    common = [f["similarity"] for f in files if f["status"] in ("matched", "changed")]
    if not common:
        aggregate = 1.0 if not files else 0.0
    else:
        penalty = (counts["added"] + counts["removed"]) / len(files)
        aggregate = max(0.0, sum(common) / len(common) - penalty)
    return {
        "aggregate_similarity": min(1.0, aggregate),
        **{f"files_{k}": v for k, v in counts.items()},
        "file_similarities": files,
    }


class ExpectedDiff(Evaluator[ExpectedDiffConfig]):
    """Similarity of the agent's workspace to a reference solution, file by file (youBencha).

    Every file of the workspace after the run is compared with the reference (a branch of the
    task's repository, or a folder): files in both score their line similarity (difflib ratio),
    and the aggregate is their mean minus a penalty of (files only on one side) / (all files).
    Passes at ``threshold`` (default 0.8). ``ignore_patterns`` are globs matched against the path
    and the file name.
    """

    name = "expected-diff"
    aliases = ("expected_diff",)
    Config = ExpectedDiffConfig
    example = """
    name: expected-diff-example
    tasks:
      - id: greeting
        workspace: after
        response: "Changed the greeting."
        evaluate:
          name: expected-diff
          config:
            reference_dir: solution
            threshold: 0.85
            ignore_patterns: ["*.lock"]
    """
    path_settings = ("reference_dir",)
    example_files: ClassVar[dict[str, str]] = {
        "after/hello.py": 'print("Hello, world!")\n',
        "after/poetry.lock": "# generated\n",
        "solution/hello.py": 'print("Hello, world!")\n',
    }

    def _reference_dir(self) -> Path:
        assert self.config.reference_dir is not None
        return (self.folder or Path.cwd()) / self.config.reference_dir

    def check(self, task: Task) -> None:
        if self.config.reference_dir is not None and not self._reference_dir().is_dir():
            raise ValueError(f"reference_dir {self.config.reference_dir} is not a folder")

    def _ignored(self, path: str) -> bool:
        name = os.path.basename(path)
        return any(fnmatch.fnmatch(path, p) or fnmatch.fnmatch(name, p) for p in self.config.ignore_patterns)

    def _folder(self, root: Path | str) -> dict[str, bytes]:
        entries, _ = list_inside(root)
        files: dict[str, bytes] = {}
        for entry in entries:
            if entry.endswith("/") or entry == ".git" or entry.startswith(".git/") or self._ignored(entry):
                continue
            try:
                read = read_inside(root, entry, max_bytes=LINE_COMPARE_BYTES + 1)
            except EvaluatorError as exc:
                files[entry] = f"<unreadable: {exc}>".encode()
                continue
            if read is not None:
                files[entry] = read.text.encode()
        return files

    async def _branch(self, mirror: str | Path | None) -> dict[str, bytes]:
        if mirror is None:
            raise EvaluatorError(
                "expected-diff: reference_branch needs the task to run in a workspace (repo:)"
            )
        ref = self.config.reference_branch
        try:
            data = await git("archive", "--format=tar", "--end-of-options", f"{ref}", git_dir=mirror)
        except GitError as exc:
            raise EvaluatorError(f"expected-diff: reference_branch {ref}: {exc}") from None
        import tarfile  # here, not at the top: ~12 ms that every `bench run` would pay at start-up

        files: dict[str, bytes] = {}
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in archive:
                if member.isfile() and not self._ignored(member.name):
                    handle = archive.extractfile(member)
                    files[member.name] = handle.read() if handle else b""
        return files

    async def evaluate(self, sample: Sample) -> Result:
        task, diff = sample.task, sample.response.artifacts.get("diff")
        if task.workspace is None and task.repo is not None and isinstance(diff, dict):
            # A stored run re-scored: its workspace is gone; judge the tree made again from the
            # repository at the run's base commit and the patch the run kept.
            try:
                async with rebuilt(task.repo, diff) as checkout:
                    return await self._judge(checkout.path, checkout.mirror)
            except GitError as exc:
                raise EvaluatorError(
                    f"expected-diff: cannot rebuild the task's workspace on a rescore: {exc}"
                ) from None
        if task.workspace is None:
            raise EvaluatorError("expected-diff needs the task's workspace (repo: or workspace:)")
        workspace = sample.response.artifacts.get("workspace")
        return await self._judge(task.workspace, workspace["mirror"] if isinstance(workspace, dict) else None)

    async def _judge(self, folder: str | Path, mirror: str | Path | None) -> Result:
        """The agent's tree in ``folder`` against the reference (``mirror``: the task's repository)."""
        actual = self._folder(folder)
        if self.config.reference_dir is not None:
            expected = self._folder(self._reference_dir())
        else:
            expected = await self._branch(mirror)
        found = compare(actual, expected)
        value = found["aggregate_similarity"]
        parts = [
            f"Similarity: {value:.1%}",
            f"Files: {found['files_matched']} matched, {found['files_changed']} changed",
        ]
        parts += [f"{found[f'files_{k}']} {k}" for k in ("added", "removed") if found[f"files_{k}"]]
        return Result(value >= DEFAULT_THRESHOLD, value, " | ".join(parts), found)
