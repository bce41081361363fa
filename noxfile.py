"""Sessions: tests (every Python 3.10-3.13 this machine has), lint, typecheck, demo, bench.

Interpreters installed with pyenv are made visible automatically; a missing one is skipped,
also under CI=true.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import nox

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
PACKAGES = [
    "-e",
    "packages/bench-core[testing]",
    "-e",
    "packages/bench-deterministic",
    "-e",
    "packages/bench-llm-judge",
    "-e",
    "packages/bench-rag",
    "-e",
    "packages/bench-safety",
    "-e",
    "packages/bench-nlp-metrics",
    "-e",
    "packages/bench-agent",
]
#: The similarity evaluator needs torch; a CPU build of torch 2.13.0 lies on this machine's disk for
#: Python 3.11 only, and pip (not uv) finds it. Elsewhere the similarity tests are skipped.
SIMILARITY_PYTHON = "3.11"
SIMILARITY = ["torch==2.13.0", "-e", "packages/bench-nlp-metrics[similarity]"]
# pip: the plugin-install tests run `python -m pip install --target` (uv's environments have no pip).
TEST_DEPS = ["pytest>=8", "pytest-timeout>=2.3", "pytest-xdist>=3.5", "psutil>=5.9", "hatchling>=1.24", "pip"]

nox.options.error_on_missing_interpreters = False
# uv builds the environments (dev.py installs it next to nox); plain virtualenv + pip otherwise.
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True


def _expose_pyenv_pythons() -> None:
    """Put every pyenv-installed 3.10-3.13 on PYENV_VERSION so that `python3.X` shims resolve."""
    if not shutil.which("pyenv"):
        return
    result = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True, check=False)
    installed = [v.strip() for v in result.stdout.split() if v.strip()]
    current = [v for v in os.environ.get("PYENV_VERSION", "").split(":") if v]
    wanted = [v for v in installed if any(v.startswith(f"{p}.") for p in PYTHONS) and v not in current]
    if wanted:
        os.environ["PYENV_VERSION"] = ":".join(current + sorted(wanted))


_expose_pyenv_pythons()


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The whole test suite on one Python."""
    session.install(*PACKAGES, *TEST_DEPS)
    if session.python == SIMILARITY_PYTHON:
        session.run("python", "-m", "pip", "install", "--quiet", *SIMILARITY)
    # Many tests wait on subprocesses, timeouts and the fake server: two workers halve the time.
    session.run("pytest", "-n", "auto", *session.posargs)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    session.install("ruff==0.17.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """mypy, strict on the bench packages."""
    session.install(*PACKAGES, "mypy==2.4.1", "types-PyYAML", "types-regex", "types-psutil")
    session.run("mypy")


@nox.session(python="3.11")
def demo(session: nox.Session) -> None:
    """Run the offline quickstart (one task fails on purpose, so exit code 1 is expected)."""
    session.install(*PACKAGES)
    session.run("bench", "run", "examples/quickstart/suite.yaml", success_codes=[0, 1])


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Performance benchmarks (see benchmarks/README.md)."""
    session.install(*PACKAGES, "psutil>=5.9", "pip")
    if "--llm" in session.posargs:
        session.run("python", "benchmarks/run_llm.py", *[a for a in session.posargs if a != "--llm"])
    elif "--nlp" in session.posargs:
        session.run("python", "-m", "pip", "install", "--quiet", *SIMILARITY)
        session.run("python", "benchmarks/run_nlp.py", *[a for a in session.posargs if a != "--nlp"])
    elif "--agent" in session.posargs:
        session.run("python", "benchmarks/run_agent.py", *[a for a in session.posargs if a != "--agent"])
    elif "--deterministic" in session.posargs:
        args = [a for a in session.posargs if a != "--deterministic"]
        session.run("python", "benchmarks/run_deterministic.py", *args)
    else:
        session.run("python", "benchmarks/run_recorded.py", *session.posargs)
