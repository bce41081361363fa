"""git-diff on a local folder (an eval config's ``directory``), as youBencha's git-diff sees it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from bench.workspace import scratch_folder

#: git runs without the user's or the repository's hooks, pagers or external diff programs.
_SAFE = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "--no-optional-locks"]


def _git(folder: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        ["git", *_SAFE, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"git {args[0]} exited with {done.returncode}")
    return done.stdout


def folder_diff(folder: Path, base: str) -> list[dict[str, Any]]:
    """Per-file ``added``/``removed`` of ``folder`` against ``base``, untracked files included.

    youBencha runs ``git add .`` and ``git diff BASE``; this stages into a copy of the index, so
    the user's repository is left as it was.
    """
    with scratch_folder("bench-yb-") as tmp:
        index = tmp / "index"
        git_dir = Path(_git(folder, dict(os.environ), "rev-parse", "--absolute-git-dir").strip())
        if (git_dir / "index").is_file():
            shutil.copyfile(git_dir / "index", index)
        env = {**os.environ, "GIT_INDEX_FILE": str(index), "GIT_CONFIG_NOSYSTEM": "1"}
        _git(folder, env, "add", "-A", ".")
        out = _git(folder, env, "diff", "--cached", "--numstat", "--no-ext-diff", "--no-textconv", base, "--")
    files = []
    for line in out.splitlines():
        added, removed, path = line.split("\t", 2)
        binary = added == "-"
        files.append(
            {
                "path": path,
                "added": 0 if binary else int(added),
                "removed": 0 if binary else int(removed),
                "binary": binary,
            }
        )
    return files
