"""YAML loaders with YAML 1.2 scalars, as the tools read them (PyYAML's SafeLoader is YAML 1.1).

``Yaml12BoolLoader`` only drops YAML 1.1's extra booleans (``yes``/``no``/``on``/``off`` stay
strings), as Go's ``yaml.v3`` (AI Eval) reads them. ``JsYamlLoader`` follows js-yaml's core schema
(promptfoo): booleans as above, ``~``/``null`` nulls, decimal/``0o``/``0x`` integers only (``010`` is
ten, ``1_000`` and ``1:30`` are strings), floats with an optional dot (``1e3``); timestamps and merge
keys stay, as promptfoo adds them back to its schema. It reads with libyaml, as bench's own YAML
does: PyYAML's pure-Python scanner ends a flow plain scalar at ``?`` (``{q: What is 2+2?}`` is
refused), which the YAML spec, libyaml and js-yaml read as text.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import yaml

_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_NULL = "tag:yaml.org,2002:null"


def _without(loader: type[Any], tags: set[str]) -> None:
    loader.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag not in tags]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
    }


class Yaml12BoolLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans only (``true``/``True``/``TRUE`` and the false forms)."""


_without(Yaml12BoolLoader, {_BOOL})
Yaml12BoolLoader.add_implicit_resolver(
    _BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


#: libyaml's loader where PyYAML was built with it (as bench's own YAML reads), else the pure one.
_FastLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class JsYamlLoader(_FastLoader):  # type: ignore[misc]
    """SafeLoader with js-yaml's core-schema booleans, nulls, integers and floats."""


_without(JsYamlLoader, {_BOOL, _INT, _FLOAT, _NULL})
JsYamlLoader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
JsYamlLoader.add_implicit_resolver(_NULL, re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
JsYamlLoader.add_implicit_resolver(
    _INT, re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
JsYamlLoader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


def _construct_int(loader: yaml.SafeLoader, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _construct_float(loader: yaml.SafeLoader, node: yaml.Node) -> float:
    text = str(loader.construct_scalar(node)).lower()  # type: ignore[arg-type]
    if text.endswith(".inf"):
        return -math.inf if text.startswith("-") else math.inf
    if text == ".nan":
        return math.nan
    return float(text)


JsYamlLoader.add_constructor(_INT, _construct_int)
JsYamlLoader.add_constructor(_FLOAT, _construct_float)


def load_js_yaml(text: str, path: Path | None = None) -> Any:
    """The YAML text's data as promptfoo's js-yaml reads it, under bench's limits (nesting, alias
    expansion); every problem is a ConfigError naming ``path`` (the file the text came from)."""
    from bench_formats.reading import yaml_data

    return yaml_data(path or Path("<yaml>"), text, JsYamlLoader)
