"""Make the small git repository the agent examples work on (``repo/`` next to this file).

    python examples/agent/make_repo.py            # or: python make_repo.py DEST

``main`` has a bug (add() subtracts) and a README; the ``solution`` branch holds the reference
fix and its test, which expected-diff compares the agent's result with.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

CALC = '''"""A tiny calculator."""


def add(a, b):
    return a - b


def mul(a, b):
    return a * b
'''
FIXED = CALC.replace("return a - b", "return a + b")
TEST = (Path(__file__).resolve().parent / "reference_test.py").read_text()
README = "# calc\n\nA tiny calculator.\n"


def git(*args: str, cwd: Path) -> None:
    env_free = [
        "-c",
        "user.name=bench example",
        "-c",
        "user.email=example@localhost",
        "-c",
        "commit.gpgsign=false",
    ]
    subprocess.run(["git", *env_free, *args], cwd=cwd, check=True, capture_output=True)


def make(dest: Path) -> Path:
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    git("init", "--quiet", "--initial-branch=main", cwd=dest)
    (dest / "calc.py").write_text(CALC)
    (dest / "README.md").write_text(README)
    git("add", "-A", cwd=dest)
    git("commit", "--quiet", "-m", "calc with a bug", cwd=dest)
    git("checkout", "--quiet", "-b", "solution", cwd=dest)
    (dest / "calc.py").write_text(FIXED)
    (dest / "test_calc.py").write_text(TEST)
    git("add", "-A", cwd=dest)
    git("commit", "--quiet", "-m", "fix add() and test it", cwd=dest)
    git("checkout", "--quiet", "main", cwd=dest)
    return dest


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "repo"
    print(f"made {make(target)}")
