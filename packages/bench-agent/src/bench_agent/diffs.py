"""youBencha's ``git-diff``: how much the agent changed, and how spread out the change is."""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.workspace import GitError, changes, git, summarize

NO_DIFF = (
    "needs the task's workspace diff: give the task a repo: (bench records the agent's change), "
    "or a recorded response with artifacts.diff"
)


class Assertions(BaseModel):
    """youBencha's git-diff limits (each optional)."""

    model_config = ConfigDict(extra="forbid")

    max_files_changed: int | None = Field(default=None, ge=0)
    max_lines_added: int | None = Field(default=None, ge=0)
    max_lines_removed: int | None = Field(default=None, ge=0)
    max_total_changes: int | None = Field(default=None, ge=0)
    min_change_entropy: float | None = Field(default=None, ge=0)
    max_change_entropy: float | None = Field(default=None, ge=0)


class GitDiffConfig(EvaluatorConfig, Assertions):
    """Settings of git-diff: the limits flat or under ``assertions:`` (youBencha's form)."""

    assertions: Assertions | None = None
    """youBencha's form: the limits under one key."""
    base_commit: str | None = None
    """Diff against this commit (a sha, tag or branch of the repository) instead of the task's
    starting commit."""

    @model_validator(mode="after")
    def _merge(self) -> GitDiffConfig:
        if self.assertions is not None:
            for key, value in self.assertions.model_dump(exclude_none=True).items():
                if getattr(self, key) is not None:
                    raise ValueError(f"{key} is given both flat and under assertions")
                setattr(self, key, value)
        return self


def change_entropy(files: list[dict[str, Any]]) -> float:
    """Shannon entropy (bits) of each file's share of the changed lines, as youBencha computes it.

    0 when one file holds every changed line; log2(n) when n files share them equally. Files
    without changed lines (binary files, pure renames) do not count.
    """
    sizes = [int(f.get("added", 0)) + int(f.get("removed", 0)) for f in files]
    total = sum(sizes)
    if total == 0:
        return 0.0
    return 0.0 - sum(n / total * math.log2(n / total) for n in sizes if n > 0)  # never -0.0


class GitDiff(Evaluator[GitDiffConfig]):
    """Limits on the agent's change: files changed, lines added/removed, and change entropy.

    Reads the diff bench recorded between the task's starting commit (or ``base_commit``) and the
    workspace after the agent ran, untracked files included. Entropy is the Shannon entropy in
    bits of each file's share of the changed lines (youBencha's ``git-diff.ts``): low means the
    change is concentrated in few files. The score is the fraction of limits met; every limit
    must hold to pass. Renames, deletions and binary files count as changed files.
    """

    name = "git-diff"
    aliases = ("git_diff",)
    Config = GitDiffConfig
    example = """
    name: git-diff-example
    tasks:
      - id: focused-change
        response:
          output: "Fixed the off-by-one in the loop."
          artifacts:
            diff:
              files:
                - {path: src/loop.py, status: modified, added: 2, removed: 1}
        evaluate:
          name: git-diff
          config:
            assertions:
              max_files_changed: 1
              max_lines_added: 10
              max_change_entropy: 1.0
    """

    async def _files(self, sample: Sample) -> tuple[list[dict[str, Any]], str | None]:
        artifacts = sample.response.artifacts
        if self.config.base_commit is None:
            diff = artifacts.get("diff")
            if not isinstance(diff, dict) or not isinstance(diff.get("files"), list):
                raise EvaluatorError(f"git-diff {NO_DIFF}")
            return diff["files"], diff.get("base_commit")
        workspace = artifacts.get("workspace")
        if not isinstance(workspace, dict):
            raise EvaluatorError("git-diff: base_commit needs the task to run in a workspace (repo:)")
        try:
            base = (
                (
                    await git(
                        "rev-parse",
                        "--verify",
                        "--end-of-options",
                        f"{self.config.base_commit}^{{commit}}",
                        git_dir=workspace["mirror"],
                    )
                )
                .decode()
                .strip()
            )
            found = await changes(workspace["snapshot"], base, workspace["end_tree"])
        except GitError as exc:
            raise EvaluatorError(f"git-diff: base_commit {self.config.base_commit}: {exc}") from None
        return summarize(found)["files"], base

    async def evaluate(self, sample: Sample) -> Result:
        files, base = await self._files(sample)
        added = sum(f.get("added", 0) for f in files)
        removed = sum(f.get("removed", 0) for f in files)
        entropy = change_entropy(files)
        c = self.config
        measured = {
            "files_changed": len(files),
            "lines_added": added,
            "lines_removed": removed,
            "total_changes": added + removed,
            "change_entropy": round(entropy, 6),
        }
        limits = [
            ("files_changed", c.max_files_changed, "max_files_changed", "exceeds"),
            ("lines_added", c.max_lines_added, "max_lines_added", "exceeds"),
            ("lines_removed", c.max_lines_removed, "max_lines_removed", "exceeds"),
            ("total_changes", c.max_total_changes, "max_total_changes", "exceeds"),
            ("change_entropy", c.min_change_entropy, "min_change_entropy", "below"),
            ("change_entropy", c.max_change_entropy, "max_change_entropy", "exceeds"),
        ]
        checked = [(m, limit, key, how) for m, limit, key, how in limits if limit is not None]
        violations = []
        for metric, limit, key, how in checked:
            value = measured[metric]
            broken = value < limit if how == "below" else value > limit
            if broken:
                shown = f"{value:.2f}" if metric == "change_entropy" else str(value)
                violations.append(f"{metric} ({shown}) {how} {key} ({limit:g})")
        summary = f"{len(files)} changed files (+{added}/-{removed} lines)"
        score = 1.0 if not checked else (len(checked) - len(violations)) / len(checked)
        details = {**measured, "base_commit": base, "changed_files": files, "violations": violations}
        if violations:
            return Result(False, score, f"{summary} | Violations: {'; '.join(violations)}", details)
        return Result(True, score, summary, details)
