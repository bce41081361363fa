"""Which changed files are tests, CI or lint configuration, snapshots; and INI/TOML sections.

A glob is matched with ``fnmatch`` against the path (``*`` crosses folders, as in
``scope_adherence``); a glob without ``/`` also matches the file name in any folder.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable

#: Test files of Python, JS/TS, Java/Kotlin, Go, Ruby, Rust and C# projects.
TEST_PATHS = (
    "test_*.py", "*_test.py", "tests/*", "*/tests/*", "test/*", "*/test/*", "__tests__/*",
    "*/__tests__/*", "*.test.*", "*.spec.*", "*_test.go", "*Test.java", "*Tests.java", "*Test.kt",
    "*_spec.rb", "spec/*", "*/spec/*", "*Tests.cs", "conftest.py",
)  # fmt: skip

#: Files that configure CI, the test runner or the linters: any edit of them counts.
CI_PATHS = (
    ".github/workflows/*", ".github/actions/*", ".gitlab-ci.yml", ".gitlab-ci/*", ".circleci/*",
    ".travis.yml", "azure-pipelines.yml", "bitbucket-pipelines.yml", "Jenkinsfile", "tox.ini",
    "noxfile.py", "pytest.ini", "conftest.py", ".pre-commit-config.yaml", ".pre-commit-config.yml",
    "jest.config.*", "vitest.config.*", "vitest.workspace.*", "karma.conf.*", "playwright.config.*",
    ".mocharc*", ".nycrc*", ".eslintrc*", "eslint.config.*", ".prettierrc*", ".flake8", ".pylintrc",
    "pylintrc", "ruff.toml", ".ruff.toml", "mypy.ini", ".mypy.ini", ".coveragerc", "codecov.yml",
    ".codecov.yml", ".golangci.yml", ".golangci.yaml", "phpunit.xml*", "setup.cfg", "pyproject.toml",
)  # fmt: skip

#: Files of which only some sections configure tests or linters: file name -> section patterns.
SECTIONED = {
    "setup.cfg": ("tool:pytest", "flake8", "mypy*", "coverage:*", "pycodestyle", "pydocstyle", "isort"),
    "pyproject.toml": ("tool.pytest*", "tool.ruff*", "tool.coverage*", "tool.mypy*", "tool.pylint*"),
}

#: Snapshot and golden files, which a test compares output with.
SNAPSHOT_PATHS = (
    "*.snap", "__snapshots__/*", "*/__snapshots__/*", "*.ambr", "golden/*", "*/golden/*", "*.golden",
    "*.approved.*", "*.verified.*",
)  # fmt: skip

_SECTION = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*|;.*)?$")


def matches(path: str, globs: Iterable[str]) -> bool:
    """Whether ``path`` matches a glob (one without ``/`` matches the file name too)."""
    name = posixpath.basename(path)
    return any(fnmatch.fnmatchcase(path, g) or ("/" not in g and fnmatch.fnmatchcase(name, g)) for g in globs)


def watched_sections(path: str) -> tuple[str, ...] | None:
    """The test and lint sections of a sectioned config file (``None``: not such a file)."""
    return SECTIONED.get(posixpath.basename(path))


def section_at(lines: list[str], index: int) -> str | None:
    """The INI/TOML section holding ``lines[index]`` (0-based), or ``None`` before any header."""
    for line in reversed(lines[: index + 1]):
        found = _SECTION.match(line)
        if found:
            return found.group(1)
    return None


def in_sections(section: str, patterns: Iterable[str]) -> bool:
    """Whether a section (``tool.ruff.lint``) falls under one of ``patterns`` (``tool.ruff*``)."""
    return any(fnmatch.fnmatchcase(section, p) for p in patterns)
