"""Sessions: package (each package's tests with only bench-core and that package installed),
tests (the cross-package tests on 3.11; on every other Python 3.10-3.13 this machine has, the tests
of every folder marked ``every_python``), browser (the HTML report in headless Chromium), lint,
typecheck, demo, bench; outside the default set, latest (the suite on the newest versions the
pyproject ranges allow) and lock (write the lock again).

Every session but latest installs from the lock, ``constraints.txt``, so that an upstream release
cannot turn CI red; docs/contributing.md says how to refresh it. Interpreters installed with pyenv
are made visible automatically; a missing one is skipped, also under CI=true.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

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
#: Packages whose tests finish sooner in one process than pytest-xdist's workers take to start
#: (measured on a 2-core machine: about half the wall and CPU time of ``-n auto``).
ONE_PROCESS = ["bench-deterministic", "bench-rag", "bench-safety", "bench-agent"]
#: The Python of the per-package sessions; on the others, `tests` runs the packages' tests too.
PACKAGE_PYTHON = "3.11"
CORE = ["-e", "packages/bench-core[testing]"]
PACKAGES = CORE + [
    arg for name in PACKAGE_NAMES[1:] if name not in OWN_SESSION for arg in ("-e", f"packages/{name}")
]
#: The similarity evaluator needs torch; a CPU build of torch 2.13.0 lies on this machine's disk for
#: Python 3.11 only, in the folder PIP_FIND_LINKS names. Elsewhere the similarity tests are skipped.
SIMILARITY_PYTHON = "3.11"
SIMILARITY_PACKAGE = "bench-nlp-metrics"
SIMILARITY = ["torch==2.13.0", "-e", f"packages/{SIMILARITY_PACKAGE}[similarity]"]
#: Package sessions that install it: bench-ray's tests route similarity's tasks to a GPU pool.
SIMILARITY_SESSIONS = [SIMILARITY_PACKAGE, "bench-ray"]
# pip: the plugin-install tests run `python -m pip install --target` (uv's environments have no pip).
TEST_DEPS = ["pytest>=8", "pytest-timeout>=2.3", "pytest-xdist>=3.5", "psutil>=5.9", "hatchling>=1.24", "pip"]
PLAYWRIGHT = "playwright>=1.45"
RUFF = "ruff==0.17.6"
MYPY = "mypy==2.4.1"
TYPE_STUBS = ["types-PyYAML", "types-regex", "types-psutil"]

#: The lock: the version of everything the sessions install, for every Python in PYTHONS.
LOCK = "constraints.txt"
#: The tests that run on the Pythons other than PACKAGE_PYTHON: those of behaviour that differs
#: between versions (signals, subprocesses, asyncio, file system, plugin discovery, YAML).
EVERY_PYTHON = "every_python"
#: The versions `nox -s latest` prints: the upstreams bench follows most closely.
WATCHED = ["litellm", "openai", "pyyaml", "pydantic", "typer"]

nox.options.error_on_missing_interpreters = False
# uv builds the environments (dev.py installs it next to nox); plain virtualenv + pip otherwise.
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["package", "tests", "browser", "lint", "typecheck"]
#: Set by the latest session: installs resolve the newest versions instead of the lock's.
_UNLOCKED = "BENCH_NOX_UNLOCKED"
nox.options.reuse_existing_virtualenvs = True
# Python writes bytecode in the sessions, as on a user's machine (pip compiles what it installs).
# Container images often set PYTHONDONTWRITEBYTECODE; then every process the tests and benchmarks
# start compiles bench and its dependencies from source again (0.8 s a `bench run` here) and a
# test never meets what bytecode changes (stale caches, __pycache__ in a workspace's diff).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


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


def _install(session: nox.Session, *args: str) -> None:
    """session.install, held to the lock (unless the latest session is running)."""
    if os.environ.get(_UNLOCKED):
        session.install("--upgrade", *args)
    else:
        session.install("-c", LOCK, *args)


def _install_similarity(session: nox.Session) -> None:
    """torch's CPU build and sentence-transformers.

    The CPU build lies in the folder pip's configuration names (PIP_FIND_LINKS); uv is told of it
    and then links it from its cache in seconds, where pip unpacks 1.4 GB again in every session.
    Without such a folder pip installs it, as configured on the machine.
    """
    links = os.environ.get("PIP_FIND_LINKS", "").split()
    if session.venv_backend == "uv" and links:
        _install(session, *[arg for link in links for arg in ("--find-links", link)], *SIMILARITY)
        return
    lock = [] if os.environ.get(_UNLOCKED) else ["-c", LOCK]
    session.run("python", "-m", "pip", "install", "--quiet", *lock, *SIMILARITY)


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
    if name == NODE_PACKAGE:
        _install_node(session)
    _install(session, *CORE, *own, *_test_group(name), *TEST_DEPS)
    if name in SIMILARITY_SESSIONS and session.python == SIMILARITY_PYTHON:
        _install_similarity(session)
    # One Ray cluster per test process: bench-ray's tests run in one process.
    workers = ["-n", "0"] if name in OWN_SESSION or name in ONE_PROCESS else ["-n", "auto"]
    session.run("pytest", *workers, f"packages/{name}/tests", *session.posargs)


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The cross-package tests (tests/), with every package installed.

    On Pythons other than PACKAGE_PYTHON, where no per-package session runs, the tests marked
    ``every_python`` of tests/ and of the packages run: what differs between versions is tested on
    each, the rest once. Arguments after `--` replace the paths (pytest's testpaths then apply).
    """
    _install(session, *PACKAGES, *TEST_DEPS)
    if session.python != PACKAGE_PYTHON:  # bench-formats' tests marked every_python run here
        _install_node(session)
    else:
        _install_podman(session)
    # The packages with a session of their own are installed without their heavy dependencies
    # (Ray): the cross-package tests read every package's registry (the install-hint catalogue),
    # which imports none of them; their own tests run in their own session.
    session.install("--no-deps", *[arg for name in OWN_SESSION for arg in ("-e", f"packages/{name}")])
    if session.python == SIMILARITY_PYTHON:
        _install_similarity(session)
    own = [f"packages/{name}" for name in PACKAGE_NAMES if name not in OWN_SESSION]
    if session.python == PACKAGE_PYTHON:
        paths, marks = ["tests"], "not browser"
    else:
        paths, marks = ["tests", *own], f"{EVERY_PYTHON} and not scale and not browser"
    # Many tests wait on subprocesses, timeouts and the fake server: two workers halve the time.
    # The browser tests run once, in the browser session.
    session.run("pytest", "-n", "auto", "-m", marks, *(session.posargs or paths))


@nox.session(python=PACKAGE_PYTHON, default=False)
def latest(session: nox.Session) -> None:
    """The whole suite (but Ray's and the browser's) and mypy on the newest versions that the
    pyproject ranges allow, not the lock's: run it before refreshing the lock."""
    os.environ[_UNLOCKED] = "1"
    try:
        _install(session, "--refresh", *PACKAGES, *TEST_DEPS, "mypy==2.4.1", *TYPE_STUBS)
        session.install("--no-deps", *[arg for name in OWN_SESSION for arg in ("-e", f"packages/{name}")])
        _install_similarity(session)
    finally:
        del os.environ[_UNLOCKED]
    session.run("python", "-c", _PRINT_VERSIONS, *WATCHED)
    own = [f"packages/{name}" for name in PACKAGE_NAMES if name not in OWN_SESSION]
    paths = session.posargs or ["tests", *own]
    session.run("pytest", "-n", "auto", "-m", "not browser", *paths, env={_UNLOCKED: "1"})
    session.run("mypy")


_PRINT_VERSIONS = """
import sys
from importlib.metadata import version
print("resolved: " + ", ".join(f"{name} {version(name)}" for name in sys.argv[1:]))
"""


@nox.session(python=False, default=False)
def lock(session: nox.Session) -> None:
    """Write constraints.txt again: every session's installs resolved for Python 3.10-3.13."""
    wanted = [
        *_lines(CORE),
        *[f"-e packages/{name}" for name in PACKAGE_NAMES[1:]],
        *_lines(SIMILARITY),
        *TEST_DEPS,
        PLAYWRIGHT,
        RUFF,
        MYPY,
        *TYPE_STUBS,
    ]
    with tempfile.TemporaryDirectory() as folder:
        wanted_file = Path(folder) / "lock.in"
        wanted_file.write_text("\n".join(wanted) + "\n")
        resolved_file = Path(folder) / "lock.txt"
        session.run(
            "uv",
            "pip",
            "compile",
            "--universal",
            "--python-version",
            PYTHONS[0],
            "--no-header",
            "--no-annotate",
            "--refresh",
            str(wanted_file),
            "-o",
            str(resolved_file),
            external=True,
        )
        resolved = resolved_file.read_text()
    # The repository's own packages are installed from their folders, never pinned.
    pinned = [line for line in resolved.splitlines() if line and not line.startswith("-e ")]
    header = "# The lock: written by `nox -s lock`, read by every other nox session (docs/contributing.md).\n"
    Path(LOCK).write_text(header + "\n".join(pinned) + "\n")
    session.log(f"{LOCK}: {len(pinned)} pins")


def _lines(args: list[str]) -> list[str]:
    """Install arguments as requirement-file lines (``-e PATH`` on one line)."""
    lines, editable = [], False
    for arg in args:
        if arg == "-e":
            editable = True
            continue
        lines.append(f"-e {arg}" if editable else arg)
        editable = False
    return lines


#: Debian's package; Playwright drives it (never `playwright install`, which downloads a browser).
CHROMIUM = "/usr/bin/chromium"


def _apt_install(session: nox.Session, package: str, command: str, tests: str) -> None:
    """apt-get install Debian's ``package`` when ``command`` is missing and apt is usable (root);
    else ``tests`` skip, saying why."""
    if shutil.which(command):
        return
    if not shutil.which("apt-get") or not hasattr(os, "geteuid") or os.geteuid() != 0:
        session.log(f"{command} is missing and apt-get cannot install it here: {tests} will skip")
        return
    install = f"apt-get install -y --no-install-recommends {package}"
    # The package lists may be stale or absent on a fresh machine: update them once and retry.
    session.run(
        "sh", "-c", f"{install} || (apt-get update && {install})", external=True, success_codes=[0, 100]
    )


def _install_chromium(session: nox.Session) -> None:
    if not os.path.exists(CHROMIUM):
        _apt_install(session, "chromium", "chromium", "the browser tests")


#: The package whose tests run promptfoo configs' JavaScript in Node.js (they skip without `node`).
NODE_PACKAGE = "bench-formats"


def _install_node(session: nox.Session) -> None:
    _apt_install(session, "nodejs", "node", "the JavaScript tests")


def _install_podman(session: nox.Session) -> None:
    # runc beside Debian's default crun: crun refuses hosts with hybrid cgroups (some CI containers).
    _apt_install(session, "podman runc", "podman", "the container sandbox tests")
    # podman-docker's /usr/bin/docker runs Podman: the sandbox's Docker command line, run for real
    # (a docker CLI elsewhere on PATH, without a daemon here, proves nothing). It conflicts with
    # Debian's docker.io: where that is installed, apt refuses and the Docker test skips.
    _apt_install(session, "podman-docker", "/usr/bin/docker", "the Docker code path's test")


@nox.session(python=PACKAGE_PYTHON)
def browser(session: nox.Session) -> None:
    """The HTML report opened in headless Chromium (tests marked `browser`, one browser for all)."""
    _install_chromium(session)
    _install(session, *PACKAGES, *TEST_DEPS, PLAYWRIGHT)
    session.run("pytest", "-m", "browser", *(session.posargs or ["tests/browser"]))


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check."""
    _install(session, RUFF)
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python="3.11")
def typecheck(session: nox.Session) -> None:
    """mypy, strict on the bench packages."""
    _install(session, *PACKAGES, MYPY, *TYPE_STUBS)
    session.run("mypy")


@nox.session(python="3.11")
def demo(session: nox.Session) -> None:
    """Run the offline quickstart (one task fails on purpose, so exit code 1 is expected)."""
    _install(session, *PACKAGES)
    session.run("bench", "run", "examples/quickstart/suite.yaml", success_codes=[0, 1])


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Performance benchmarks (see benchmarks/README.md)."""
    _install(session, *PACKAGES, "psutil>=5.9", "pip")
    if "--peers" in session.posargs:
        session.run("python", "benchmarks/run_peers.py", *[a for a in session.posargs if a != "--peers"])
    elif "--llm" in session.posargs:
        session.run("python", "benchmarks/run_llm.py", *[a for a in session.posargs if a != "--llm"])
    elif "--nlp" in session.posargs:
        _install_similarity(session)
        session.run("python", "benchmarks/run_nlp.py", *[a for a in session.posargs if a != "--nlp"])
    elif "--batch" in session.posargs:
        session.run("python", "benchmarks/run_batch.py", *[a for a in session.posargs if a != "--batch"])
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
        _install(session, PLAYWRIGHT)  # optional: also times opening the page in chromium
        session.run("python", "benchmarks/run_html.py", *[a for a in session.posargs if a != "--html"])
    elif "--view" in session.posargs:
        session.run("python", "benchmarks/run_view.py", *[a for a in session.posargs if a != "--view"])
    elif "--matrix" in session.posargs:
        _install(session, PLAYWRIGHT)  # and Debian's chromium, as nox -s browser
        session.run("python", "benchmarks/run_matrix.py", *[a for a in session.posargs if a != "--matrix"])
    elif "--promptfoo-csv" in session.posargs:
        args = [a for a in session.posargs if a != "--promptfoo-csv"]
        session.run("python", "benchmarks/run_promptfoo_csv.py", *args)
    elif "--echo" in session.posargs:
        session.run("python", "benchmarks/run_echo.py", *[a for a in session.posargs if a != "--echo"])
    elif "--ray" in session.posargs:
        _install(session, "-e", "packages/bench-ray")
        session.run("python", "benchmarks/run_ray.py", *[a for a in session.posargs if a != "--ray"])
    elif "--deterministic" in session.posargs:
        args = [a for a in session.posargs if a != "--deterministic"]
        session.run("python", "benchmarks/run_deterministic.py", *args)
    else:
        session.run("python", "benchmarks/run_recorded.py", *session.posargs)
