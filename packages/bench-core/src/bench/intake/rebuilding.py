"""A stored agent run's workspace made again (``bench rescore``), for evaluators that read the tree.

The run kept its change (``Checkout.finish``): the patch, the binary files' content
(``git diff --binary``) and the files git ignores that the workspace held, or why the tree
cannot be made again. ``rebuilt`` applies them to a fresh copy of the repository at the run's
base commit, or refuses naming why: a partial tree is never handed out.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bench.vocabulary.models import RepoSpec
from bench.workspace.checkout import IGNORED_FILES, MAX_PATCH_BYTES, Checkout, Workspaces
from bench.workspace.safe_git import GitError, git

#: A section of the text patch that holds no content: the file is binary (``rebuild.binary`` has it).
_BINARY_SECTION = re.compile(r"^Binary files .* differ$", re.MULTILINE)
_SECTION_START = re.compile(r"^(?=diff --git )", re.MULTILINE)


def text_sections(text: str) -> tuple[str, int]:
    """The stored patch without its binary files' sections (they hold no content), and their count."""
    sections = _SECTION_START.split(text)
    kept = [s for s in sections if not _BINARY_SECTION.search(s)]
    return "".join(kept), len(sections) - len(kept)


@contextlib.asynccontextmanager
async def rebuilt(repo: RepoSpec, diff: dict[str, Any], root: Path | None = None) -> AsyncIterator[Checkout]:
    """A task's workspace made again after it is gone (``bench rescore``): a fresh copy of
    ``repo`` at the run's base commit, as a run makes it, with the run's stored change applied by
    git (the patch, its binary files and the files git ignores, ``rebuild``); removed on exit.
    ``diff`` is what the result kept (``base_commit``, ``patch``, ``patch_truncated``,
    ``rebuild``). Raise GitError naming why when the change was not kept whole or does not
    apply: a partial tree is never handed out."""
    base, record = diff.get("base_commit"), diff.get("rebuild")
    if diff.get("patch_truncated"):
        raise GitError(
            f"the stored patch was cut at {MAX_PATCH_BYTES // (1024 * 1024)} MiB (patch_truncated), "
            "and a partial tree is never judged"
        )
    if not isinstance(base, str) or not base:
        raise GitError("the run kept no base commit of the workspace")
    if not isinstance(record, dict):
        raise GitError(
            "the run kept neither its binary files' content nor the files git ignores (it was made "
            "before bench kept them), and a partial tree is never judged: run the task again"
        )
    if record.get("refused"):
        raise GitError(f"the run's workspace cannot be made again: {record['refused']}")
    workspaces = Workspaces(root=root)
    try:
        checkout = await workspaces.prepare(RepoSpec(source=repo.source, ref=base))
        await _apply(checkout, diff.get("patch") or "", record, f"{repo.source} at {base}")
        yield checkout
    finally:
        workspaces.close()


async def _apply(checkout: Checkout, text: str, record: dict[str, Any], where: str) -> None:
    """Apply a stored change to a fresh checkout: the patch without its binary sections, the
    binary files' own patch and the ignored files (added to a tree without the ignored files the
    repository tracks, as the run's snapshot had it)."""
    text, named = text_sections(text)
    # A binary file renamed or with its mode changed, content kept, is whole in the text patch.
    sections = _SECTION_START.split(str(record.get("binary") or ""))
    binary = [section for section in sections if "\nGIT binary patch\n" in section]
    if named != len(binary):
        raise GitError(
            f"the stored change names {named} binary files but holds the content of {len(binary)}, "
            "and a partial tree is never judged"
        )
    listed = await git(*IGNORED_FILES, git_dir=checkout.snapshot, work_tree=checkout.path, cwd=checkout.path)
    for name in filter(None, listed.split(b"\0")):  # tracked, yet ignored: the run's snapshot had none
        os.unlink(os.path.join(checkout.path, os.fsdecode(name)))
    whole = text + "".join(binary) + str(record.get("ignored") or "")
    if whole:  # git apply refuses an empty patch: no change leaves the base tree
        try:
            await git(
                "apply", "--binary", "--whitespace=nowarn", "-", stdin=whole.encode(), cwd=checkout.path
            )
        except GitError as exc:
            raise GitError(f"the stored patch does not apply to {where}: {exc}") from None
