"""bench-core's pytest plugin is imported at every pytest start in any environment that has bench
(``pytest11`` entry point), so importing it must cost next to nothing: it and
``bench.testing`` load their dependencies only when a fixture or helper is used.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import bench.testing

#: What the plugin used to import at every start (measured: 234 modules, ~0.7 s added to each
#: pytest start), and the heaviest dependencies that were already lazy (litellm, httpx, rich, typer).
HEAVY = [
    "pydantic",
    "yaml",
    "filelock",
    "sqlite3",
    "multiprocessing",
    "asyncio",
    "bench.vocabulary.models",
    "bench.evaluator",
    "bench.llm.client",
    "bench.pipeline.run",
    "bench.suite.loader",
    "bench.plugins.registry",
    "bench.testing.server",
    "litellm",
    "httpx",
    "rich",
    "typer",
]


def _modules_added_by(module: str, cwd: Path) -> list[str]:
    """The modules a fresh interpreter gains by importing ``module`` once pytest is loaded."""
    code = (
        "import sys, pytest\nbefore = set(sys.modules)\n"
        f"import {module}\nprint(','.join(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().split(",")


def test_importing_the_plugin_adds_only_bench_its_version_and_bench_testing(tmp_path: Path):
    added = _modules_added_by("bench.testing.pytest_plugin", tmp_path)
    assert [m for m in HEAVY if m in added] == []
    assert added == [
        "bench",
        "bench.testing",
        "bench.testing.pytest_plugin",
        "bench.vocabulary",
        "bench.vocabulary.version",
    ]


def test_every_bench_testing_name_resolves_to_its_definition():
    from bench.plugins.registry import build_registry
    from bench.suite.loader import load_suite
    from bench.testing.server import Fault, Reply

    assert (bench.testing.Fault, bench.testing.Reply) == (Fault, Reply)
    assert bench.testing.build_registry is build_registry
    assert bench.testing.load_suite is load_suite
    from bench.testing.pytest_plugin import CONTAINER_IMAGE

    assert bench.testing.CONTAINER_IMAGE == CONTAINER_IMAGE  # the one constant: an image's name
    for name in set(bench.testing.__all__) - {"CONTAINER_IMAGE"}:
        assert callable(getattr(bench.testing, name)), name


def test_an_unknown_bench_testing_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match=r"^module 'bench.testing' has no attribute 'nothing'$"):
        bench.testing.nothing  # noqa: B018
