"""bench-core stays in pieces a reader can hold: short functions, modules and folders, few dependencies.

Every module of the ``bench`` package is measured: a function or method runs at most 80 lines
(from ``def`` to its last line, decorators left out), a module at most 500 lines and imports at
most 15 of bench's own modules (every import, deferred and type-only ones included), and a folder
holds at most 12 modules (``__init__.py`` not counted).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "packages" / "bench-core" / "src"
PACKAGE = SOURCE / "bench"

MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 500
MAX_IMPORTED_MODULES = 15
MAX_FOLDER_MODULES = 12

#: Files being rewritten on other branches while these limits came in, whose offences those
#: branches remove: each entry is exempt until it is merged, and must still offend (a stale entry
#: fails). Every branch named here has been merged: nothing is exempt.
OWNED_ELSEWHERE: list[str] = []


def display(path: Path) -> str:
    """A file or folder as the messages name it: relative to bench-core's ``src``."""
    name = path.relative_to(SOURCE).as_posix()
    return f"{name}/" if path.is_dir() else name


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    """Whether the dotted ``name`` is a module or package of bench (not a name defined in one)."""
    where = SOURCE.joinpath(*name.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def functions(
    tree: ast.AST, prefix: str = ""
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method in ``tree`` with its qualified name (``Class.method``), nested ones too."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield f"{prefix}{node.name}", node
            yield from functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from functions(node, f"{prefix}{node.name}.")
        else:
            yield from functions(node, prefix)


def function_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from ``def`` to the function's last line (``lineno`` is the ``def``, not a decorator)."""
    assert node.end_lineno is not None
    return node.end_lineno - node.lineno + 1


def bench_imports(tree: ast.AST, module: str, is_package: bool = False) -> set[str]:
    """The distinct bench modules ``tree`` imports, wherever the import stands: ``from bench.x
    import y`` counts ``bench.x.y`` when that is a module, else ``bench.x``."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "bench"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*package, *([base] if base else [])])
            if base.split(".")[0] != "bench":
                continue
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if is_module(f"{base}.{alias.name}") else base)
    return found - {module}


MODULES = sorted(PACKAGE.rglob("*.py"))


@functools.cache
def parsed(path: Path) -> tuple[ast.Module, int]:
    """A module's tree and its number of lines."""
    text = path.read_text(encoding="utf-8")
    return ast.parse(text), len(text.splitlines())


FOLDERS = sorted({path.parent for path in MODULES})


def long_functions() -> dict[str, list[str]]:
    """file -> its functions over the limit, as ``line name: N lines``."""
    found: dict[str, list[str]] = {}
    for path in MODULES:
        for name, node in functions(parsed(path)[0]):
            if function_lines(node) > MAX_FUNCTION_LINES:
                found.setdefault(display(path), []).append(
                    f"{display(path)}:{node.lineno} {name}: {function_lines(node)} lines"
                )
    return found


def long_modules() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in MODULES:
        lines = parsed(path)[1]
        if lines > MAX_MODULE_LINES:
            found[display(path)] = [f"{display(path)}: {lines} lines"]
    return found


def heavy_importers() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in MODULES:
        imported = bench_imports(parsed(path)[0], module_name(path), path.name == "__init__.py")
        if len(imported) > MAX_IMPORTED_MODULES:
            found[display(path)] = [
                f"{display(path)}: {len(imported)} bench modules ({', '.join(sorted(imported))})"
            ]
    return found


def crowded_folders() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for folder in FOLDERS:
        modules = sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")
        if len(modules) > MAX_FOLDER_MODULES:
            found[display(folder)] = [f"{display(folder)}: {len(modules)} modules ({', '.join(modules)})"]
    return found


def offences(found: dict[str, list[str]]) -> list[str]:
    """What ``found`` holds outside ``OWNED_ELSEWHERE``, one line each."""
    return [line for where, lines in sorted(found.items()) if where not in OWNED_ELSEWHERE for line in lines]


def test_the_package_is_measured():
    assert PACKAGE / "hookspecs.py" in MODULES
    assert PACKAGE / "llm" / "cache" / "local.py" in MODULES
    assert PACKAGE / "llm" / "cache" in FOLDERS


def test_no_function_is_longer_than_80_lines():
    too_long = offences(long_functions())
    assert not too_long, "split these functions (at most 80 lines each):\n" + "\n".join(too_long)


def test_no_module_is_longer_than_500_lines():
    too_long = offences(long_modules())
    assert not too_long, "split these modules (at most 500 lines each):\n" + "\n".join(too_long)


def test_no_module_imports_more_than_15_bench_modules():
    heavy = offences(heavy_importers())
    assert not heavy, "these modules import too much of bench (at most 15 modules):\n" + "\n".join(heavy)


def test_no_folder_holds_more_than_12_modules():
    crowded = offences(crowded_folders())
    assert not crowded, "split these folders (at most 12 modules each):\n" + "\n".join(crowded)


def test_every_file_owned_elsewhere_still_offends():
    found = {**long_functions(), **long_modules(), **heavy_importers(), **crowded_folders()}
    stale = [where for where in OWNED_ELSEWHERE if where not in found]
    assert not stale, f"these no longer break a limit: remove them from OWNED_ELSEWHERE: {stale}"


def test_a_function_is_measured_from_def_to_its_last_line():
    tree = ast.parse("@decorator\n@other\ndef f():\n    def inner():\n        pass\n\n    return 1\n")
    assert {name: function_lines(node) for name, node in functions(tree)} == {"f": 5, "f.inner": 2}


def test_methods_are_named_with_their_class():
    tree = ast.parse("class A:\n    async def m(self):\n        pass\n")
    assert [name for name, _ in functions(tree)] == ["A.m"]


def test_imports_count_modules_not_the_names_they_define():
    tree = ast.parse(
        "from bench.llm.cache import local, layers\n"
        "from bench.vocabulary.errors import ConfigError, StoreError\n"
        "import bench.document\n"
        "from . import names\n"
        "if TYPE_CHECKING:\n    from bench.target import Target\n"
        "def later():\n    from bench.suite import plan\n"
        "import json\n"
    )
    assert bench_imports(tree, "bench.plugins.registry") == {
        "bench.llm.cache.local",
        "bench.llm.cache.layers",
        "bench.vocabulary.errors",
        "bench.document",
        "bench.plugins.names",
        "bench.target",
        "bench.suite.plan",
    }
