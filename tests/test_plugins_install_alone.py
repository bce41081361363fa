"""Each plugin package installs and works with bench-core alone.

The packages are built and installed for real (pip, no editable links) into a folder of their
own; the interpreter then runs without any site-packages (``-S``), seeing only that folder and a
folder of links to the third-party libraries bench needs — so a plugin that secretly imports a
sibling package, or a registry that lists what is not installed, fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from bench.testing.distributions import install as install_distributions

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = {
    "bench-deterministic": ("exact_match", "code_execution"),
    "bench-llm-judge": ("llm_judge", "factuality"),
    "bench-rag": ("faithfulness", "precision"),
    "bench-safety": ("toxicity", "pii"),
    "bench-nlp-metrics": ("bleu", "similarity"),
    "bench-agent": ("git-diff", "recovery_behavior"),
    "bench-formats": ("promptfoo",),
    "bench-ray": (),  # registers an executor, no evaluator (checked below)
}
#: Plugins that register executors: the names ``bench plugins`` lists for them.
EXECUTORS = {"bench-ray": "ray"}


@pytest.fixture(scope="module")
def third_party(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Links to every library of this environment except bench's own distributions."""
    farm = tmp_path_factory.mktemp("deps")
    site = Path(sysconfig.get_paths()["purelib"])
    for entry in site.iterdir():
        name = entry.name.lower()
        if "bench" in name or name.endswith(".pth") or name.startswith("__editable__"):
            continue
        (farm / entry.name).symlink_to(entry)
    return farm


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bench-core installed once for every plugin's test (its build is the slow part)."""
    target = tmp_path_factory.mktemp("core")
    install(target, "bench-core")
    return target


def install(target: Path, *packages: str) -> None:
    install_distributions(target, *(ROOT / "packages" / p for p in packages))


def bench(target: Path, deps: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # ``target`` holds the plugin, ``deps`` bench-core's folder and the third-party libraries.
    env = {**os.environ, "PYTHONPATH": f"{target}{os.pathsep}{deps}", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-S", "-m", "bench", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.parametrize("plugin", sorted(PLUGINS))
def test_plugin_installs_and_works_with_core_alone(plugin, core, third_party, tmp_path):
    target = tmp_path / "site"
    install(target, plugin)
    third_party = Path(f"{core}{os.pathsep}{third_party}")
    if plugin in EXECUTORS:
        listed = bench(target, third_party, "plugins", cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        assert f"executors: {EXECUTORS[plugin]}\n" in listed.stdout, listed.stdout
        assert "failed to load" not in listed.stdout, listed.stdout
        return
    listed = bench(target, third_party, "evaluators", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = [line for line in listed.stdout.splitlines() if line.startswith("│")]
    distributions = {cell.strip() for row in rows for cell in row.split("│")[3:4] if cell.strip()}
    assert distributions == {plugin}, listed.stdout
    for type_name in PLUGINS[plugin]:
        assert any(row.split("│")[1].strip() == type_name for row in rows), type_name
    others = [t for p, types in PLUGINS.items() if p != plugin for t in types]
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"tasks:\n  - {{id: a, response: x, evaluate: {{type: {others[0]}}}}}\n")
    missing = bench(target, third_party, "validate", str(suite), cwd=tmp_path)
    assert missing.returncode == 2
    assert f"unknown evaluator type '{others[0]}'" in missing.stderr
    assert "pip install bench-" in missing.stderr
