"""What every layer of bench speaks: errors, tasks and responses, results, the run store, JSON,
redaction, templates.

The public API for plugins (docs/plugins.md) is the text helpers below: ``quoted`` and
``excerpt`` redact secrets before they cut or quote text, ``dumps`` and ``loads_strict`` write and
read JSON as bench does, ``render`` and ``placeholders`` fill and read prompt templates, and
``did_you_mean`` suggests the nearest name. The types (``Task``, ``Response``, ``Message``...) are
exported by ``bench`` and ``bench.llm``. Names load on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.vocabulary.errors import did_you_mean as did_you_mean
    from bench.vocabulary.jsonio import dumps as dumps
    from bench.vocabulary.jsonio import loads_strict as loads_strict
    from bench.vocabulary.redact import excerpt as excerpt
    from bench.vocabulary.redact import quoted as quoted
    from bench.vocabulary.templates import MissingPlaceholder as MissingPlaceholder
    from bench.vocabulary.templates import placeholders as placeholders
    from bench.vocabulary.templates import render as render

#: name -> the module that defines it
_EXPORTS = {
    "quoted": "bench.vocabulary.redact",
    "excerpt": "bench.vocabulary.redact",
    "dumps": "bench.vocabulary.jsonio",
    "loads_strict": "bench.vocabulary.jsonio",
    "render": "bench.vocabulary.templates",
    "placeholders": "bench.vocabulary.templates",
    "MissingPlaceholder": "bench.vocabulary.templates",
    "did_you_mean": "bench.vocabulary.errors",
}

__all__ = [*_EXPORTS]


def lazy_exports(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A package's ``__getattr__`` (PEP 562): each name of ``table`` (name -> the module defining
    it) imported on first use; a name equal to its module's last part is that module itself."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = importlib.import_module(module)
        return loaded if module == f"{package}.{name}" else getattr(loaded, name)

    return __getattr__


__getattr__ = lazy_exports("bench.vocabulary", _EXPORTS)
