"""Plugins use only the public API: ``bench`` and its documented submodules, names in ``__all__``.

The ``bench`` facade holds the contracts (at most 40 names); ``bench.llm``, ``bench.workspace``,
``bench.vocabulary``, ``bench.evidence`` and ``bench.distributed`` the rest, and every name they
export is described in docs/plugins.md or docs/python-api.md. Every package in the repository
and the example third-party plugin are checked, module by module, and each module is imported to
show that the names it takes from bench exist. The plugin packages' tests may also use
``bench.testing`` (names in its ``__all__``). Names that moved out of ``bench`` still work there,
with a ``DeprecationWarning`` that this repository's tests turn into an error.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest

import bench
import bench.testing

ROOT = Path(__file__).resolve().parents[1]
#: The modules a plugin may import from (``bench.testing`` only in its tests).
PUBLIC = (
    "bench",
    "bench.llm",
    "bench.workspace",
    "bench.vocabulary",
    "bench.evidence",
    "bench.importer",
    "bench.distributed",
)
#: The modules whose names load on first use (``__getattr__``).
LAZY = ("bench", "bench.llm", "bench.workspace", "bench.vocabulary", "bench.distributed", "bench.testing")
DOCS = ("plugins.md", "python-api.md")
FACADE_LIMIT = 40


def public_names(modules: tuple[str, ...]) -> dict[str, set[str]]:
    return {name: set(importlib.import_module(name).__all__) for name in modules}


PLUGIN_SOURCES = sorted(
    [p for p in (ROOT / "packages").glob("*/src/*") if p.is_dir() and p.name != "bench"]
    + [p for p in (ROOT / "examples" / "plugin-example" / "src").glob("*") if p.is_dir()],
    key=lambda p: p.name,
)


def bench_imports(
    source: str, filename: str = "<plugin>", modules: tuple[str, ...] = ("bench",)
) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of each import of bench or one of its modules, and of each name
    reached through ``import bench`` (or ``import bench.llm as llm``): ``bench.x.y`` is reported
    as ``(line, MODULE, [NAME])`` where MODULE is the longest of ``modules`` it starts with."""
    found = []
    tree = ast.parse(source, filename)
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "bench":
            found.append((node.lineno, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "bench":
                    found.append((node.lineno, a.name, []))
                    aliases[a.asname or "bench"] = a.name if a.asname else "bench"
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            path = _dotted(node)
            if path and path[0] in aliases:
                parts = [*aliases[path[0]].split("."), *path[1:]]
                module = max(
                    (m for m in modules if parts[: m.count(".") + 1] == m.split(".")),
                    key=len,
                    default="bench",
                )
                found.append((node.lineno, module, parts[module.count(".") + 1 :][:1]))
    return sorted(found)


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None when the chain does not start with a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else None


def test_the_check_sees_names_reached_through_a_public_submodule():
    source = "import bench.llm\nimport bench.workspace as ws\nbench.llm.Judge\nbench.llm.client.X\nws.git\n"
    assert bench_imports(source, modules=PUBLIC) == [
        (1, "bench.llm", []),
        (2, "bench.workspace", []),
        (3, "bench.llm", ["Judge"]),
        (4, "bench.llm", ["client"]),
        (5, "bench.workspace", ["git"]),
    ]


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


def public_use(path: Path, public: dict[str, set[str]]) -> list[str]:
    """What ``path`` takes from bench outside ``public`` (module -> its exported names)."""
    misuse = []
    for line, name, names in bench_imports(path.read_text(), str(path), tuple(public)):
        where = f"{path.relative_to(ROOT)}:{line}"
        if name not in public:
            misuse.append(f"{where}: imports {name} (use bench or one of {', '.join(sorted(public)[1:])})")
            continue
        misuse += [f"{where}: {name} has no public {n}" for n in names if n not in public[name]]
    return misuse


@pytest.mark.parametrize("package", PLUGIN_SOURCES, ids=lambda p: p.name)
def test_a_plugin_imports_only_public_names_of_bench(package: Path):
    public = public_names(PUBLIC)
    misuse = [m for module in sorted(package.rglob("*.py")) for m in public_use(module, public)]
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
    """A plugin's tests use what a third party's can: the public modules and ``bench.testing``."""
    public = public_names((*PUBLIC, "bench.testing"))
    modules = sorted(tests.rglob("*.py"))
    assert modules, tests
    misuse = [m for module in modules for m in public_use(module, public)]
    assert misuse == []


def test_the_check_names_a_private_import_and_a_name_no_public_module_exports(tmp_path: Path):
    plugin = ROOT / "examples" / "plugin-example" / "src" / "bench_wordcount" / "plugin.py"
    source = "from bench.llm.judge import Judge\nfrom bench.llm import Nope\nfrom bench import Judge\n"
    public = public_names(PUBLIC)
    lines = bench_imports(source, modules=PUBLIC)
    assert lines == [(1, "bench.llm.judge", ["Judge"]), (2, "bench.llm", ["Nope"]), (3, "bench", ["Judge"])]
    misuse = [line for line in lines if line[1] not in public or set(line[2]) - public[line[1]]]
    assert misuse == lines
    assert public_use(plugin, public) == []


@pytest.mark.parametrize("package", PLUGIN_SOURCES, ids=lambda p: p.name)
def test_each_plugin_module_imports_and_the_package_is_typed(package: Path, monkeypatch):
    monkeypatch.syspath_prepend(str(package.parent))  # the example plugin is not installed here
    assert (package / "py.typed").is_file()
    for module in sorted(package.rglob("*.py")):
        parts = module.relative_to(package.parent).with_suffix("").parts
        importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))


def test_every_public_name_resolves_and_is_declared_for_type_checkers():
    for module_name in (*PUBLIC, "bench.testing"):
        module = importlib.import_module(module_name)
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module_name}.{name}"
        # A name __getattr__ serves is declared in the TYPE_CHECKING block (``import X as X``).
        tree = ast.parse(Path(module.__file__ or "").read_text())
        assert set(module.__all__) - _defined(tree) == _declared_for_type_checkers(tree), module_name
    assert (Path(bench.__file__).parent / "py.typed").is_file()


def _defined(tree: ast.Module) -> set[str]:
    """The names a module's own top-level statements bind (not in a TYPE_CHECKING block)."""
    defined = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.ImportFrom):
            defined |= {a.asname or a.name for a in node.names}
    return defined


def _declared_for_type_checkers(tree: ast.Module) -> set[str]:
    return {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for stmt in node.body
        if isinstance(stmt, ast.ImportFrom)
        for alias in stmt.names
        if alias.asname == alias.name
    }


@pytest.mark.parametrize("module_name", list(LAZY))
def test_an_unknown_name_says_so(module_name: str):
    module = importlib.import_module(module_name)
    with pytest.raises(AttributeError, match=f"module '{module_name}' has no attribute 'Nope'"):
        _ = module.Nope


def test_the_facade_holds_at_most_40_names():
    assert len(bench.__all__) <= FACADE_LIMIT, sorted(bench.__all__)


def test_the_public_modules_load_nothing_until_a_name_is_used():
    """``bench --help`` stays instant: importing the facade and the lazy submodules imports none
    of the modules their names come from."""
    code = f"import sys, {', '.join(LAZY)}; print(sorted(m for m in sys.modules if m.startswith('bench')))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == str(sorted({*LAZY, "bench.vocabulary", "bench.vocabulary.version"}))


def documented_names(text: str) -> dict[str, set[str]]:
    """Module -> the names a docs page describes: under a ``### `bench...` `` heading, the
    backticked names in the first cell of a table row whose second cell says what they are."""
    found: dict[str, set[str]] = {}
    module = None
    for line in text.splitlines():
        heading = re.fullmatch(r"#{1,6} `(bench(?:\.\w+)*)`", line)
        if heading or line.startswith("#"):
            module = heading.group(1) if heading else None
            continue
        row = re.fullmatch(r"\| ((?:`\w+`(?:, )?)+) \| (.*\w.*) \|", line)
        if module and row:
            found.setdefault(module, set()).update(re.findall(r"`(\w+)`", row.group(1)))
    return found


def test_the_docs_check_reads_names_under_their_module_heading():
    text = "### `bench.llm`\n\n| name | what |\n| --- | --- |\n| `Judge`, `Vote` | judging |\n| `Nope` |  |\n"
    text += "## Later\n| `Outside` | not under a module |\n"
    assert documented_names(text) == {"bench.llm": {"Judge", "Vote"}}


@pytest.mark.parametrize("module_name", [*PUBLIC, "bench.testing"])
def test_every_exported_name_is_documented(module_name: str):
    documented: dict[str, set[str]] = {}
    for page in DOCS:
        for module, names in documented_names((ROOT / "docs" / page).read_text()).items():
            documented.setdefault(module, set()).update(names)
    exported = set(importlib.import_module(module_name).__all__)
    assert sorted(exported - documented.get(module_name, set())) == [], "exported but not documented"
    assert sorted(documented.get(module_name, set()) - exported) == [], "documented but not exported"


def _moved() -> dict[str, str]:
    return dict(bench._MOVED)


def test_a_moved_name_is_exported_by_its_new_module_only():
    for name, module_name in _moved().items():
        assert name in importlib.import_module(module_name).__all__, f"{module_name}.{name}"
        assert name not in bench.__all__


@pytest.mark.parametrize("name", sorted(_moved()))
def test_an_old_name_still_works_and_warns_naming_its_new_place(name: str):
    new = _moved()[name]
    with pytest.warns(DeprecationWarning, match=rf"^bench\.{name} is deprecated") as caught:
        old = getattr(bench, name)
    assert old is getattr(importlib.import_module(new), name)
    assert [str(w.message) for w in caught] == [
        f"bench.{name} is deprecated: import it from {new} ({new}.{name}); "
        f"bench.{name} will be removed in the next release"
    ]
    assert caught[0].filename == __file__  # the line that used the old name


def test_from_bench_import_an_old_name_warns_at_the_import():
    module = ModuleType("old_plugin")
    with pytest.warns(DeprecationWarning, match=r"^bench\.Judge is deprecated: import it from bench\.llm"):
        exec(compile("from bench import Judge\n", "old_plugin.py", "exec"), module.__dict__)
    assert module.Judge is importlib.import_module("bench.llm").Judge


def test_this_repositorys_tests_fail_on_an_old_name():
    """pyproject.toml's filterwarnings makes the deprecation an error, so no code of the
    repository (a plugin, a test, a docs example) can keep using an old name."""
    with pytest.raises(DeprecationWarning, match=r"^bench\.quoted is deprecated"):
        _ = bench.quoted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert bench.quoted is importlib.import_module("bench.vocabulary").quoted
