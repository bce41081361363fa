"""bench-core's folders are the steps of docs/architecture.md, and imports go one way between them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "packages" / "bench-core" / "src" / "bench"
DOC = ROOT / "docs" / "architecture.md"
FOLDERS = {"suite", "execution", "scoring", "report", "plugins", "llm", "workspace", "testing"}
#: The shared vocabulary: every step speaks it, so it imports no step.
VOCABULARY = {
    "errors",
    "models",
    "results",
    "store",
    "compact",
    "documented",
    "jsonio",
    "redact",
    "templates",
    "tool_calls",
}
ROW = re.compile(r"^\| (?:\*top\*|`(\w+)/`) \| .* \| (.*) \| (.*) \|$", flags=re.M)


def documented_rows() -> dict[str, tuple[set[str], str]]:
    """folder ("" for the top) -> (its modules, its "may use" column), as docs/architecture.md has them."""
    return {
        folder: (set(re.findall(r"`([\w/*]+)`", modules)), uses)
        for folder, modules, uses in ROW.findall(DOC.read_text())
    }


def may_use(column: str) -> set[str]:
    """The folders a "may use" column names, parentheses (explanations) left out."""
    return set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", column))) & FOLDERS


#: What each folder may import besides the top modules, from the doc. ``plugins.builtin`` (it
#: registers the core's own targets, reporters and suite format), ``cli``, ``api`` (the Python API)
#: and ``testing`` compose everything.
ALLOWED = {
    folder: may_use(uses) for folder, (_, uses) in documented_rows().items() if folder not in ("", "testing")
}
COMPOSERS = {"bench", "bench.builtin", "bench.cli", "bench.api", "bench.__main__"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def step(module: str) -> str:
    """The folder a module belongs to, or ``top``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in FOLDERS) else "top"


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "bench":
            found.add(node.module)
            if node.module == "bench":  # ``from bench import x`` may name a module
                found |= {f"bench.{a.name}" for a in node.names if (PACKAGE / f"{a.name}.py").exists()}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "bench"}
    return found


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def test_the_package_is_folders_of_steps_with_the_contract_on_top():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == FOLDERS
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__", "cli", "api"}
    contract = {"hookspecs", "evaluator", "target", "evidence", "reporter", "suite_loader", "executor"}
    assert top == contract | VOCABULARY


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_one_way(module):
    if module in COMPOSERS or step(module) == "testing":
        return
    here = step(module)
    wrong = []
    for target in imports(MODULES[module]):
        there = step(target)
        if target in ("bench",) or there == here:
            continue
        if here == "top" and module.split(".")[1] in VOCABULARY:
            ok = there == "top" and target.split(".")[1] in VOCABULARY | {"__init__"}
        elif here == "top":
            ok = there not in {"execution", "report", "scoring", "plugins", "testing"}
        else:
            ok = there == "top" or there in ALLOWED[here]
        if not ok:
            wrong.append(target)
    assert wrong == [], f"{module} reaches {wrong}"


def test_the_architecture_doc_has_one_row_per_folder_listing_its_modules():
    documented = documented_rows()
    assert set(documented) == FOLDERS | {""}
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    assert documented[""][0] >= top
    for folder in FOLDERS:
        actual = {p.stem for p in (PACKAGE / folder).glob("*.py")} - {"__init__"}
        actual |= {
            f"{p.name}/*" for p in (PACKAGE / folder).iterdir() if p.is_dir() and p.name != "__pycache__"
        }
        assert documented[folder][0] == actual, folder


def test_the_doc_says_what_each_folder_may_use():
    assert {
        "suite": {"llm", "plugins", "scoring", "workspace"},
        "execution": {"suite", "llm", "scoring", "workspace"},
        "report": {"suite", "execution", "scoring", "plugins"},
        "scoring": set(),
        "plugins": set(),
        "llm": {"workspace"},
        "workspace": set(),
    } == ALLOWED
