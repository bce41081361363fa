"""Install hints: which distribution provides a type that is not installed.

The hints are data, ``catalogue.json`` next to this module, generated from the registries of
bench's own packages (a test fails when it is stale). Regenerate it from the repository's root,
with every package installed::

    python -m bench.plugins.catalogue $(ls packages)
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Collection
from importlib.resources import files
from pathlib import Path

from bench.plugins.registry import Registry, build_registry

#: The registry's tables, each a kind of thing a plugin provides.
KINDS = ("evaluators", "targets", "reporters", "suite_loaders", "executors")
FILE = "catalogue.json"

Catalogue = dict[str, dict[str, str]]


@functools.cache
def load() -> Catalogue:
    """The catalogue shipped with bench-core: kind -> type name -> distribution."""
    data: Catalogue = json.loads(files("bench.plugins").joinpath(FILE).read_text(encoding="utf-8"))
    return data


def provider(kind: str, name: str) -> str | None:
    """The distribution that provides ``name`` (a type of ``kind``), when the catalogue knows it."""
    return load().get(kind, {}).get(name)


def hint(kind: str, name: str) -> str:
    """`` (pip install DIST provides 'NAME')`` when the catalogue knows who provides ``name``."""
    dist = provider(kind, name)
    return f" (pip install {dist} provides '{name}')" if dist else ""


def generate(registry: Registry, distributions: Collection[str]) -> Catalogue:
    """Every name (aliases included) that ``distributions`` register, by kind, sorted."""
    return {
        kind: {
            name: provided.distribution
            for name, provided in sorted(getattr(registry, kind).items())
            if provided.distribution in distributions
        }
        for kind in KINDS
    }


def render(catalogue: Catalogue) -> str:
    """The catalogue as the text of ``catalogue.json``."""
    return json.dumps(catalogue, indent=2, sort_keys=True) + "\n"


def main(distributions: list[str]) -> int:
    """Write ``catalogue.json`` from the installed ``distributions``' registries."""
    if not distributions:
        print(__doc__, file=sys.stderr)
        return 2
    registry = build_registry()
    if registry.failures:
        print("\n".join(map(str, registry.failures)), file=sys.stderr)
        return 1
    catalogue = generate(registry, distributions)
    found = {dist for table in catalogue.values() for dist in table.values()}
    missing = sorted(set(distributions) - found)
    if missing:
        print(f"not installed, or registers nothing: {', '.join(missing)}", file=sys.stderr)
        return 1
    (Path(__file__).parent / FILE).write_text(render(catalogue), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
