"""Make the git repository the test case runs in (``repo/`` next to this file).

    python examples/from-youbencha/make_repo.py

``main`` says goodbye; the ``solution`` branch says hello (what expected-diff compares with).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
BAD = 'def greet(name):\n    return f"Goodbye, {name}!"\n'
README = "# greeter\n\nSays hello.\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=example", "-c", "user.email=example@localhost", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def main() -> None:
    repo = HERE / "repo"
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir()
    git(repo, "init", "--quiet", "--initial-branch=main")
    (repo / "greet.py").write_text(BAD)
    (repo / "README.md").write_text(README)
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "greeter")
    git(repo, "checkout", "--quiet", "-b", "solution")
    (repo / "greet.py").write_text(BAD.replace("Goodbye", "Hello"))
    git(repo, "commit", "--quiet", "-am", "say hello")
    git(repo, "checkout", "--quiet", "main")
    print(f"made {repo}")


if __name__ == "__main__":
    main()
