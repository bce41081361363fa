"""The repository's packages are listed once, in noxfile.py, and every other list agrees with it.

noxfile.py is read without importing it (nox is not installed where the tests run).
"""

from __future__ import annotations

import ast
import os
import re
import sys
from importlib import metadata
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def assigned(path: Path, name: str) -> object:
    """The literal value of the module-level assignment `name = ...` in `path`."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"{path.name} assigns no {name}")


PACKAGES = assigned(ROOT / "noxfile.py", "PACKAGE_NAMES")
PLUGINS = [name for name in PACKAGES if name != "bench-core"]


def test_the_noxfile_lists_exactly_the_folders_under_packages():
    folders = sorted(p.name for p in (ROOT / "packages").iterdir() if not p.name.startswith("."))
    assert sorted(PACKAGES) == folders
    assert PACKAGES[0] == "bench-core"  # the others depend on it


@pytest.mark.parametrize("name", PACKAGES)
def test_each_package_has_its_pyproject_readme_tests_and_py_typed(name):
    folder = ROOT / "packages" / name
    project = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
    assert project["name"] == name
    assert project["license"] == "MIT"
    assert (folder / "README.md").is_file()
    assert list((folder / "tests").glob("test_*.py")), f"{name} has no tests/test_*.py"
    (module,) = [p for p in (folder / "src").iterdir() if p.is_dir() and not p.name.startswith("_")]
    assert (module / "py.typed").is_file()


def test_mypy_checks_every_package():
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    sources = [f"packages/{name}/src" for name in PACKAGES]
    assert mypy["files"] == sources
    assert mypy["mypy_path"] == sources


def test_the_readme_describes_every_package():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Packages") :].split("\n\n")[1]
    assert sorted(re.findall(r"^\| `([\w-]+)` \|", table, re.MULTILINE)) == sorted(PACKAGES)


def test_every_plugin_package_is_installed_alone():
    listed = assigned(ROOT / "tests" / "test_plugins_install_alone.py", "PLUGINS")
    assert isinstance(listed, dict)
    assert sorted(listed) == sorted(PLUGINS)


def test_pre_commit_runs_the_ruff_that_nox_lints_with():
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    (rev,) = re.findall(r"ruff-pre-commit\n\s+rev: v([\d.]+)", config)
    assert f'RUFF = "ruff=={rev}"' in (ROOT / "noxfile.py").read_text()


def test_ruff_sorts_every_package_as_first_party():
    isort = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]["isort"]
    modules = {
        p.name for name in PACKAGES for p in (ROOT / "packages" / name / "src").iterdir() if p.is_dir()
    }
    assert modules <= set(isort["known-first-party"])


def test_a_nox_session_installs_from_the_lock():
    """Every distribution the lock pins and the session has is at the lock's version (an install
    that bypassed constraints.txt shows here)."""
    if "NOX_CURRENT_SESSION" not in os.environ or os.environ.get("BENCH_NOX_UNLOCKED"):
        pytest.skip("the lock is checked in the nox sessions that install from it")
    from packaging.requirements import Requirement

    off_lock = []
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        pin = Requirement(line)
        if pin.marker is not None and not pin.marker.evaluate():
            continue
        try:
            installed = metadata.version(pin.name)
        except metadata.PackageNotFoundError:
            continue
        if not pin.specifier.contains(installed, prereleases=True):
            off_lock.append(f"{pin.name} {installed} (the lock has {pin.specifier})")
    assert off_lock == []
