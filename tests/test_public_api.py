"""Plugins use only the public API: ``from bench import NAME`` with NAME in ``bench.__all__``.

Every package in the repository and the example third-party plugin are checked, module by
module, and each module is imported to show that the names it takes from ``bench`` exist. The
plugin packages' tests may also use ``bench.testing`` (names in its ``__all__``).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import bench
import bench.testing

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_SOURCES = sorted(
    [p for p in (ROOT / "packages").glob("*/src/*") if p.is_dir() and p.name != "bench"]
    + [p for p in (ROOT / "examples" / "plugin-example" / "src").glob("*") if p.is_dir()],
    key=lambda p: p.name,
)


def bench_imports(source: str, filename: str = "<plugin>") -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of each import of bench or one of its modules, and of each
    ``bench.NAME`` reached through ``import bench`` (reported as ``(line, "bench", [NAME])``)."""
    found = []
    tree = ast.parse(source, filename)
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "bench":
            found.append((node.lineno, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "bench":
                    found.append((node.lineno, a.name, []))
                    aliases.add(a.asname or "bench")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            found.append((node.lineno, "bench", [node.attr]))
    return sorted(found)


def test_the_check_sees_private_paths_reached_through_import_bench():
    source = "import bench\nimport bench as b\nbench.suite.loader.load_suite('x')\nb.Evaluator\nb.run\n"
    assert bench_imports(source) == [
        (1, "bench", []),
        (2, "bench", []),
        (3, "bench", ["suite"]),
        (4, "bench", ["Evaluator"]),
        (5, "bench", ["run"]),
    ]


def test_the_plugin_packages_are_all_found():
    assert [p.name for p in PLUGIN_SOURCES] == [
        "bench_agent",
        "bench_deterministic",
        "bench_formats",
        "bench_llm_judge",
        "bench_nlp_metrics",
        "bench_rag",
        "bench_ray",
        "bench_safety",
        "bench_wordcount",
    ]


@pytest.mark.parametrize("package", PLUGIN_SOURCES, ids=lambda p: p.name)
def test_a_plugin_imports_only_public_names_of_bench(package: Path):
    public = set(bench.__all__)
    misuse = []
    for module in sorted(package.rglob("*.py")):
        for line, name, names in bench_imports(module.read_text(), str(module)):
            where = f"{module.relative_to(ROOT)}:{line}"
            if name != "bench":
                misuse.append(f"{where}: imports {name} (use `from bench import ...`)")
            misuse += [f"{where}: bench has no public {n}" for n in names if n not in public]
    assert misuse == []


PLUGIN_TESTS = sorted(p for p in (ROOT / "packages").glob("*/tests") if p.parent.name != "bench-core")


def test_the_plugin_packages_tests_are_all_found():
    assert [p.parent.name for p in PLUGIN_TESTS] == [
        "bench-agent",
        "bench-deterministic",
        "bench-formats",
        "bench-llm-judge",
        "bench-nlp-metrics",
        "bench-rag",
        "bench-ray",
        "bench-safety",
    ]


@pytest.mark.parametrize("tests", PLUGIN_TESTS, ids=lambda p: p.parent.name)
def test_a_plugins_tests_import_only_bench_and_bench_testing(tests: Path):
    """A plugin's tests use what a third party's can: ``bench`` and ``bench.testing``."""
    public = {"bench": set(bench.__all__), "bench.testing": set(bench.testing.__all__)}
    misuse = []
    modules = sorted(tests.rglob("*.py"))
    assert modules, tests
    for module in modules:
        for line, name, names in bench_imports(module.read_text(), str(module)):
            where = f"{module.relative_to(ROOT)}:{line}"
            if name not in public:
                misuse.append(f"{where}: imports {name} (use `from bench import ...` or bench.testing)")
                continue
            misuse += [f"{where}: {name} has no public {n}" for n in names if n not in public[name]]
    assert misuse == []


@pytest.mark.parametrize("package", PLUGIN_SOURCES, ids=lambda p: p.name)
def test_each_plugin_module_imports_and_the_package_is_typed(package: Path, monkeypatch):
    monkeypatch.syspath_prepend(str(package.parent))  # the example plugin is not installed here
    assert (package / "py.typed").is_file()
    for module in sorted(package.rglob("*.py")):
        parts = module.relative_to(package.parent).with_suffix("").parts
        importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))


def test_every_public_name_resolves_and_is_declared_for_type_checkers():
    for name in bench.__all__:
        assert getattr(bench, name) is not None
    # The TYPE_CHECKING block names exactly what __getattr__ serves.
    tree = ast.parse(Path(bench.__file__).read_text())
    declared = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for stmt in node.body
        if isinstance(stmt, ast.ImportFrom)
        for alias in stmt.names
    }
    assert declared == set(bench.__all__) - {"__version__"}
    assert (Path(bench.__file__).parent / "py.typed").is_file()


def test_an_unknown_name_says_so():
    with pytest.raises(AttributeError, match="module 'bench' has no attribute 'Nope'"):
        _ = bench.Nope  # type: ignore[attr-defined]
