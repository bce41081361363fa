"""bench-formats' modules import one another without a cycle.

Every import that runs counts, deferred ones (inside a function) included: deferring an import
only hides a cycle. Imports under ``if TYPE_CHECKING:`` never run and are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "bench_formats"


def _is_module(source: Path, name: str) -> bool:
    where = source.joinpath(*name.split("."))
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def _module_name(source: Path, path: Path) -> str:
    parts = path.relative_to(source).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(node: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node`` that can run (an ``if TYPE_CHECKING:`` body cannot)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            found.append(child)
        elif isinstance(child, ast.If) and _type_checking_only(child):
            for other in child.orelse:
                found += _runtime_imports(ast.Module(body=[other], type_ignores=[]))
        else:
            found += _runtime_imports(child)
    return found


def import_graph(source: Path, package: str) -> dict[str, set[str]]:
    """module -> the modules of ``package`` it imports at runtime. ``from a.b import c`` imports
    ``a.b.c`` when that is a module, else ``a.b``."""
    graph: dict[str, set[str]] = {}
    for path in sorted((source / package).rglob("*.py")):
        me = _module_name(source, path)
        imported: set[str] = set()
        for statement in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(statement, ast.Import):
                imported |= {a.name for a in statement.names if a.name.split(".")[0] == package}
                continue
            base = statement.module or ""
            if statement.level:
                parts = me.split(".")
                parts = parts[: len(parts) - statement.level + (path.name == "__init__.py")]
                base = ".".join([*parts, *([base] if base else [])])
            if base.split(".")[0] != package:
                continue
            for alias in statement.names:
                name = f"{base}.{alias.name}"
                imported.add(name if _is_module(source, name) else base)
        graph[me] = imported - {me}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (``a``, ``b``, ..., ``a``) through each group of modules that import each other."""
    found: list[list[str]] = []
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph.get(start, ())))]
        path = [start]
        on_path = {start}
        while stack:
            node, pending = stack[-1]
            if not pending:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
                continue
            nxt = pending.pop(0)
            if nxt in on_path:
                found.append([*path[path.index(nxt) :], nxt])
            elif nxt not in done and nxt in graph:
                stack.append((nxt, sorted(graph[nxt])))
                path.append(nxt)
                on_path.add(nxt)
    return found


def test_bench_formats_has_no_import_cycle():
    graph = import_graph(SOURCE, PACKAGE)
    assert "bench_formats.promptfoo.evaluator" in graph  # the walk found the package's modules
    found = cycles(graph)
    assert not found, "import cycles among bench-formats' modules:\n" + "\n".join(
        " -> ".join(c) for c in found
    )


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_deferred_import_that_closes_a_cycle_is_found(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import run\n",
            "pkg/checks/__init__.py": "",
            "pkg/checks/b.py": "from . import c\n",
            "pkg/b.py": "from pkg.checks import b\n\ndef run():\n    from .a import run\n",
        },
    )
    assert cycles(import_graph(tmp_path, "pkg")) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_a_type_checking_import_is_no_cycle(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import X\n",
        },
    )
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.a"] == {"pkg.b"}
    assert cycles(graph) == []
