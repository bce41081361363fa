"""Real git repositories in a temporary folder, for tests of workspaces and git evaluators.

repo = git_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\\n    return a - b\\n"})
commit(repo, {"calc.py": FIXED}, branch="solution")   # a second branch with the fix
"""

from __future__ import annotations

import subprocess
from pathlib import Path

_IDENTITY = ["-c", "user.name=bench test", "-c", "user.email=test@localhost", "-c", "commit.gpgsign=false"]


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *_IDENTITY, *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _write(repo: Path, files: dict[str, str | bytes | None]) -> None:
    for name, content in files.items():
        path = repo / name
        if content is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def git_repo(path: Path, files: dict[str, str | bytes | None], *, branch: str = "main") -> Path:
    """A new repository at ``path`` with one commit holding ``files``."""
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "--quiet", f"--initial-branch={branch}")
    _write(path, files)
    _git(path, "add", "-A")
    _git(path, "commit", "--quiet", "-m", "initial")
    return path


def commit(repo: Path, files: dict[str, str | bytes | None], *, branch: str | None = None) -> str:
    """Commit ``files`` (``None`` deletes one) on ``branch`` (made from HEAD when new; the
    repository returns to its previous branch afterwards); return the commit's sha."""
    back = _git(repo, "rev-parse", "--abbrev-ref", "HEAD")
    if branch is not None and branch != back:
        _git(repo, "checkout", "--quiet", "-B", branch)
    _write(repo, files)
    _git(repo, "add", "-A")
    _git(repo, "commit", "--quiet", "--allow-empty", "-m", "change")
    sha = _git(repo, "rev-parse", "HEAD")
    if branch is not None and branch != back:
        _git(repo, "checkout", "--quiet", back)
    return sha
