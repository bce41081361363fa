"""Where the checks read the agent's change: the recorded patch, or git in the task's workspace.

With a ``repo:`` task, bench records the patch (its first 1 MiB) and where the workspace
snapshots are; the checks read the whole patch from those snapshots when the recorded one was
cut, and the full text of the files they parse (Python tests, sectioned configs) before and
after the change. A recorded response (``artifacts.diff.patch``) gives the hunks only: full
texts are known for added and deleted files alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench import EvaluatorError, Sample
from bench.workspace import GitError, git
from bench_agent.hacking.patches import FilePatch, parse

#: The most of a patch the checks read from git: past this, they cannot say what changed.
MAX_PATCH_BYTES = 64 * 1024 * 1024
#: Files larger than this are not parsed (their hunks are still read).
MAX_PARSED_BYTES = 2 * 1024 * 1024

NO_PATCH = (
    "needs the agent's diff with its patch: give the task a repo: (bench records the change), "
    "or a recorded response with artifacts.diff.patch"
)


@dataclass
class Changeset:
    """The changed files with their hunks; full texts where known (``None``: not known)."""

    files: list[FilePatch]
    old_texts: dict[str, str | None] = field(default_factory=dict)
    new_texts: dict[str, str | None] = field(default_factory=dict)
    source: str = "patch"

    def old_text(self, fp: FilePatch) -> str | None:
        """The file's text before the change ('' for an added file)."""
        return "" if fp.status == "added" else self.old_texts.get(fp.path)

    def new_text(self, fp: FilePatch) -> str | None:
        """The file's text after the change ('' for a deleted file)."""
        return "" if fp.status == "deleted" else self.new_texts.get(fp.path)


def _side(fp: FilePatch, kind: str) -> str:
    return "".join(line.text + "\n" for _, line in fp.lines(kind))


async def load(sample: Sample, check: str, wanted: Callable[[FilePatch], bool]) -> Changeset:
    """The sample's change; full texts for the files ``wanted`` selects.

    Raise EvaluatorError (naming ``check``) when there is no patch, or it was cut and no
    workspace is left to read the rest from.
    """
    artifacts = sample.response.artifacts
    diff = artifacts.get("diff")
    workspace = artifacts.get("workspace")
    if not isinstance(diff, dict) or not isinstance(diff.get("patch"), str):
        raise EvaluatorError(f"{check} {NO_PATCH}")
    if isinstance(workspace, dict) and workspace.get("snapshot"):
        return await _from_workspace(workspace, check, wanted, diff)
    if diff.get("patch_truncated"):
        raise EvaluatorError(
            f"{check}: the recorded patch was cut at its size limit and no workspace is left to read the "
            "rest from, so the change cannot be checked whole"
        )
    files = parse(diff["patch"])
    changeset = Changeset(files)
    for fp in files:  # an added or deleted file's hunks hold all of it
        if fp.status == "added":
            changeset.new_texts[fp.path] = _side(fp, "+")
        elif fp.status == "deleted":
            changeset.old_texts[fp.path] = _side(fp, "-")
    return changeset


async def _from_workspace(
    workspace: dict[str, Any], check: str, wanted: Callable[[FilePatch], bool], diff: dict[str, Any]
) -> Changeset:
    snapshot, old, new = workspace["snapshot"], workspace["start_tree"], workspace["end_tree"]
    try:
        if diff.get("patch_truncated"):
            raw = await git(
                "diff-tree", "-p", "-r", "-M", "--no-ext-diff", "--no-textconv", old, new, "--",
                git_dir=snapshot,
            )  # fmt: skip
            if len(raw) > MAX_PATCH_BYTES:
                raise EvaluatorError(
                    f"{check}: the change is larger than {MAX_PATCH_BYTES // (1024 * 1024)} MiB of patch; "
                    "it cannot be checked whole"
                )
            text = raw.decode("utf-8", "replace")
        else:
            text = diff["patch"]
        changeset = Changeset(parse(text), source="workspace")
        for fp in changeset.files:
            if fp.binary or not wanted(fp):
                continue
            if fp.status != "added":
                changeset.old_texts[fp.path] = await _blob(snapshot, old, fp.old_path or fp.path)
            if fp.status != "deleted":
                changeset.new_texts[fp.path] = await _blob(snapshot, new, fp.path)
    except GitError as exc:
        raise EvaluatorError(f"{check}: reading the workspace's change: {exc}") from None
    return changeset


async def _blob(snapshot: str, tree: str, path: str) -> str | None:
    size = int(await git("cat-file", "-s", f"{tree}:{path}", git_dir=snapshot))
    if size > MAX_PARSED_BYTES:
        return None
    return (await git("cat-file", "blob", f"{tree}:{path}", git_dir=snapshot)).decode("utf-8", "replace")
