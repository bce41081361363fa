"""What `bench run` pays before its first task: an offline run reads the attribute
docstrings of the settings types its suite uses, not of every installed type (pydantic's
``use_attribute_docstrings`` read them all at import: about 60 ms), and imports neither litellm
nor aiohttp (the direct path's HTTP client, 0.1 s)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

SUITE = "tasks:\n  - {id: a, response: 'Paris', evaluate: {expected: Paris}}\n"
RUN = """
import atexit, sys

def report():
    from bench.vocabulary.documented import _classes_in
    from bench.plugins.registry import get_registry

    configs = {p.cls.Config for p in get_registry().evaluators.values()}
    described = sorted(
        f"{c.__module__}.{c.__qualname__}"
        for c in configs
        if any(f.description for f in c.model_fields.values())
    )
    print("TYPES", len(configs) > 20, "DESCRIBED", described, "READ", _classes_in.cache_info().currsize)
    print("LITELLM", "litellm" in sys.modules, "AIOHTTP", "aiohttp" in sys.modules)

atexit.register(report)
from bench.cli import main
sys.argv = ["bench", "run", "suite.yaml", "-q", "--runs-dir", "runs"]
main()
"""


def test_an_offline_run_reads_only_the_docstrings_of_the_types_it_uses(tmp_path: Path):
    (tmp_path / "suite.yaml").write_text(SUITE)
    done = subprocess.run(
        [sys.executable, "-c", RUN], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    # Two source files read: bench-deterministic's expected.py and bench's llm/settings.py (the
    # suite's ``llm:`` settings, built at import), of the thirty-odd that define settings.
    assert done.stdout.endswith(
        "TYPES True DESCRIBED ['bench_deterministic.expected.ExpectedConfig'] READ 2\n"
        "LITELLM False AIOHTTP False\n"
    )
