"""Sessions: package (each package's tests with only bench-core and that package installed),
tests (the cross-package tests, on every Python 3.10-3.13 this machine has), browser (the HTML
report in headless Chromium), lint, typecheck, demo, bench.

Interpreters installed with pyenv are made visible automatically; a missing one is skipped,
also under CI=true.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import nox

PYTHONS = ["3.10", "3.11", "3.12", "3.13"]
#: Every distribution in packages/, by folder name: the one list of the repository's packages
#: (tests/test_packages.py checks it against the folders and every other place that names them).
PACKAGE_NAMES = [
    "bench-core",
    "bench-deterministic",
    "bench-llm-judge",
    "bench-rag",
    "bench-safety",
    "bench-nlp-metrics",
    "bench-agent",
    "bench-formats",
    "bench-ray",
]
#: Packages whose tests run once, in their own `package` session, never in `tests` (Ray: a
#: cluster per test session, a 79 MB wheel; the `tests` sessions neither install nor collect it).
OWN_SESSION = ["bench-ray"]
#: The Python of the per-package sessions; on the others, `tests` runs the packages' tests too.
PACKAGE_PYTHON = "3.11"
CORE = ["-e", "packages/bench-core[testing]"]
PACKAGES = CORE + [
    arg for name in PACKAGE_NAMES[1:] if name not in OWN_SESSION for arg in ("-e", f"packages/{name}")
]
#: The similarity evaluator needs torch; a CPU build of torch 2.13.0 lies on this machine's disk for
#: Python 3.11 only, and pip (not uv) finds it. Elsewhere the similarity tests are skipped.
SIMILARITY_PYTHON = "3.11"
SIMILARITY_PACKAGE = "bench-nlp-metrics"
SIMILARITY = ["torch==2.13.0", "-e", f"packages/{SIMILARITY_PACKAGE}[similarity]"]
#: Package sessions that install it: bench-ray's tests route similarity's tasks to a GPU pool.
SIMILARITY_SESSIONS = [SIMILARITY_PACKAGE, "bench-ray"]
# pip: the plugin-install tests run `python -m pip install --target` (uv's environments have no pip).
TEST_DEPS = ["pytest>=8", "pytest-timeout>=2.3", "pytest-xdist>=3.5", "psutil>=5.9", "hatchling>=1.24", "pip"]

nox.options.error_on_missing_interpreters = False
# uv builds the environments (dev.py installs it next to nox); plain virtualenv + pip otherwise.
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["package", "tests", "browser", "lint", "typecheck"]
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


def _test_group(name: str) -> list[str]:
    """What a package's tests need beyond the package: its pyproject's [dependency-groups] test,
    with the repository's own packages installed from their folders."""
    pyproject = nox.project.load_toml(f"packages/{name}/pyproject.toml")
    if "test" not in pyproject.get("dependency-groups", {}):
        return []
    found = nox.project.dependency_groups(pyproject, "test")
    return [arg for req in found for arg in (["-e", f"packages/{req}"] if req in PACKAGE_NAMES else [req])]


@nox.session(python=PACKAGE_PYTHON)
@nox.parametrize("name", PACKAGE_NAMES, ids=PACKAGE_NAMES)
def package(session: nox.Session, name: str) -> None:
    """One package's tests, with only bench-core and that package installed.

    A dependency the package uses but does not declare fails here instead of hiding behind a
    sibling's.
    """
    own = [] if name == "bench-core" else ["-e", f"packages/{name}"]
    session.install(*CORE, *own, *_test_group(name), *TEST_DEPS)
    if name in SIMILARITY_SESSIONS and session.python == SIMILARITY_PYTHON:
        session.run("python", "-m", "pip", "install", "--quiet", *SIMILARITY)
    # One Ray cluster per test process: bench-ray's tests run in one process.
    workers = ["-n", "0"] if name in OWN_SESSION else ["-n", "auto"]
    session.run("pytest", *workers, f"packages/{name}/tests", *session.posargs)


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The cross-package tests (tests/), with every package installed.

    On Pythons other than PACKAGE_PYTHON, where no per-package session runs, the packages' own
    tests run here as well. Arguments after `--` replace the paths (pytest's testpaths then apply).
    """
    session.install(*PACKAGES, *TEST_DEPS)
    # The packages with a session of their own are installed without their heavy dependencies
    # (Ray): the cross-package tests read every package's registry (the install-hint catalogue),
    # which imports none of them; their own tests run in their own session.
    session.install("--no-deps", *[arg for name in OWN_SESSION for arg in ("-e", f"packages/{name}")])
    if session.python == SIMILARITY_PYTHON:
        session.run("python", "-m", "pip", "install", "--quiet", *SIMILARITY)
    own = [f"packages/{name}" for name in PACKAGE_NAMES if name not in OWN_SESSION]
    paths = ["tests"] if session.python == PACKAGE_PYTHON else ["tests", *own]
    # Many tests wait on subprocesses, timeouts and the fake server: two workers halve the time.
    # The browser tests run once, in the browser session.
    session.run("pytest", "-n", "auto", "-m", "not browser", *(session.posargs or paths))


#: Debian's package; Playwright drives it (never `playwright install`, which downloads a browser).
CHROMIUM = "/usr/bin/chromium"


def _install_chromium(session: nox.Session) -> None:
    """apt-get install chromium when it is missing and apt is usable (root); else the tests skip."""
    if shutil.which("chromium") or os.path.exists(CHROMIUM):
        return
    if not shutil.which("apt-get") or not hasattr(os, "geteuid") or os.geteuid() != 0:
        session.log("chromium is missing and apt-get cannot install it here: the browser tests will skip")
        return
    install = "apt-get install -y --no-install-recommends chromium"
    # The package lists may be stale or absent on a fresh machine: update them once and retry.
    session.run(
        "sh", "-c", f"{install} || (apt-get update && {install})", external=True, success_codes=[0, 100]
    )


@nox.session(python=PACKAGE_PYTHON)
def browser(session: nox.Session) -> None:
    """The HTML report opened in headless Chromium (tests marked `browser`, one browser for all)."""
    _install_chromium(session)
    session.install(*PACKAGES, *TEST_DEPS, "playwright>=1.45")
    session.run("pytest", "-m", "browser", *(session.posargs or ["tests/browser"]))


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
    elif "--pytest-startup" in session.posargs:
        args = [a for a in session.posargs if a != "--pytest-startup"]
        session.run("python", "benchmarks/run_pytest_startup.py", *args)
    elif "--startup" in session.posargs:
        session.run("python", "benchmarks/run_startup.py", *[a for a in session.posargs if a != "--startup"])
    elif "--compare" in session.posargs:
        session.run("python", "benchmarks/run_compare.py", *[a for a in session.posargs if a != "--compare"])
    elif "--html" in session.posargs:
        session.install("playwright>=1.45")  # optional: also times opening the page in chromium
        session.run("python", "benchmarks/run_html.py", *[a for a in session.posargs if a != "--html"])
    elif "--view" in session.posargs:
        session.run("python", "benchmarks/run_view.py", *[a for a in session.posargs if a != "--view"])
    elif "--promptfoo-csv" in session.posargs:
        args = [a for a in session.posargs if a != "--promptfoo-csv"]
        session.run("python", "benchmarks/run_promptfoo_csv.py", *args)
    elif "--echo" in session.posargs:
        session.run("python", "benchmarks/run_echo.py", *[a for a in session.posargs if a != "--echo"])
    elif "--ray" in session.posargs:
        session.install("-e", "packages/bench-ray")
        session.run("python", "benchmarks/run_ray.py", *[a for a in session.posargs if a != "--ray"])
    elif "--deterministic" in session.posargs:
        args = [a for a in session.posargs if a != "--deterministic"]
        session.run("python", "benchmarks/run_deterministic.py", *args)
    else:
        session.run("python", "benchmarks/run_recorded.py", *session.posargs)
