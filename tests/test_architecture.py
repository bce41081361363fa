"""bench-core is the stack of layers docs/architecture.md draws, and imports only go down it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "packages" / "bench-core" / "src" / "bench"
DOC = (ROOT / "docs" / "architecture.md").read_text()
TOP = "*top*"
#: A row of the layers table: | 4 | `llm/` | what it holds |
LAYER_ROW = re.compile(r"^\| (\d+) \| (`\w+/`|\*\w+\*) \| (.*) \|$", flags=re.M)
#: A folder's section: ### `llm/` followed by "- `module`: what it is" lines.
SECTION = re.compile(r"^### (`\w+/`|\*top\*)\n\n((?:- .*\n)+)", flags=re.M)


def layers() -> dict[str, int]:
    """Folder (``llm``), top module (``api``) or ``top`` -> its layer, as the doc's table has them."""
    found: dict[str, int] = {}
    for number, name, holds in LAYER_ROW.findall(DOC):
        if name == "*composers*":
            found |= {module: int(number) for module in re.findall(r"`(\w+)`", holds)}
        else:
            found[TOP if name == TOP else name.strip("`/")] = int(number)
    return found


LAYERS = layers()


def documented_modules() -> dict[str, set[str]]:
    """Folder (or ``top``) -> the modules its section lists (``cache/local`` for a subfolder's)."""
    sections = {}
    for name, lines in SECTION.findall(DOC):
        listed = set()
        for line in lines.splitlines():
            head = line.split(":", 1)[0]
            listed |= set(re.findall(r"`([\w/]+)`", head))
        sections[TOP if name == TOP else name.strip("`/")] = listed
    return sections


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def room(module: str) -> str:
    """The folder a module is in (``llm`` for ``bench.llm.cache.local``), or the top module's name."""
    parts = module.split(".")
    if len(parts) == 1:
        return "bench"
    return parts[1]


def layer(module: str) -> int:
    here = room(module)
    if here == "bench":  # the facade composes everything
        return max(LAYERS.values())
    if here in LAYERS:
        return LAYERS[here]
    return LAYERS[TOP]


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside ``if TYPE_CHECKING:`` blocks."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inside |= {id(child) for stmt in node.body for child in ast.walk(stmt)}
    return inside


def runtime_imports(path: Path) -> set[str]:
    """The bench modules ``path`` imports when it runs (annotations-only imports left out)."""
    tree = ast.parse(path.read_text())
    typing_only = _type_checking_nodes(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "bench":
                continue
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "bench"}
    return found


def test_the_layers_table_names_every_folder_and_top_module_once():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    rooms = {name for name in LAYERS if name != TOP}
    tops = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert folders <= rooms, f"folders missing from the layers table: {sorted(folders - rooms)}"
    assert rooms <= folders | tops, f"the table names what is not there: {sorted(rooms - folders - tops)}"


def test_each_section_lists_exactly_its_folders_modules():
    documented = documented_modules()
    for folder in [name for name in LAYERS if (PACKAGE / name).is_dir()]:
        actual = {
            p.relative_to(PACKAGE / folder).with_suffix("").as_posix()
            for p in (PACKAGE / folder).rglob("*.py")
            if p.name != "__init__.py"
        }
        assert documented.get(folder, set()) == actual, folder
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert documented[TOP] == top


def test_the_table_keeps_short_cells():
    long = [holds for _, _, holds in LAYER_ROW.findall(DOC) if len(holds.split()) > 15]
    assert long == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_never_run_up_the_layers(module):
    here = layer(module)
    upward = [
        target
        for target in sorted(runtime_imports(MODULES[module]))
        if target in MODULES and room(target) != room(module) and layer(target) > here
    ]
    assert upward == [], f"{module} (layer {here}) imports from higher layers: {upward}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_rooms_of_one_layer_do_not_import_each_other(module):
    here = layer(module)
    if here == max(LAYERS.values()):
        return  # the composers' layer composes
    sideways = [
        target
        for target in sorted(runtime_imports(MODULES[module]))
        if target in MODULES
        and room(target) != room(module)
        and layer(target) == here
        and (PACKAGE / room(target)).is_dir()
        and (PACKAGE / room(module)).is_dir()
    ]
    assert sideways == [], f"{module} imports a sibling room of its layer: {sideways}"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != "bench"))
def test_nothing_inside_the_package_imports_the_facade(module):
    tree = ast.parse(MODULES[module].read_text())
    facade = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "bench")
        or (isinstance(node, ast.Import) and any(a.name == "bench" for a in node.names))
    ]
    allowed = module == "bench.__main__" or room(module) == "testing" or module.startswith("bench.cli")
    assert allowed or facade == [], f"{module}: {facade}"
