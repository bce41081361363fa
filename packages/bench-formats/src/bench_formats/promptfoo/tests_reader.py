"""promptfoo's ``tests:`` (and ``defaultTest``): lists, files, globs, var files, defaults merged."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.promptfoo.csv_tests import iter_csv_tests
from bench_formats.promptfoo.paths import FILE, expand, strip_file
from bench_formats.promptfoo.python_config import generated_tests, python_file
from bench_formats.reading import json_data

Warn = Callable[[str], None]
_TEST_FILES = {".csv", ".json", ".jsonl", ".yaml", ".yml"}


def iter_tests(
    spec: Any, base: Path, config: Path, warn: Warn, folder: SuiteFolder
) -> Iterator[tuple[dict[str, Any], Path, bool]]:
    """Each test of ``tests:``, the folder its relative paths start from and whether promptfoo
    resolves its ``$ref`` pointers (tests written in the config or read by a glob), in promptfoo's order.

    As promptfoo's ``readTests``: a YAML path, and each path of a list, is a glob whose JSON, JSONL
    and YAML tests are taken as written; a lone non-YAML path (and a CSV anywhere) is a
    "standalone" file whose tests are described ``Row #N`` when they have no description.
    Every file must lie in ``folder``.
    """
    if spec is None:
        yield {}, base, False  # promptfoo runs every prompt once with no vars
        return
    settings = None  # a {path, config} entry's config: a generator's argument
    if isinstance(spec, dict) and isinstance(spec.get("path"), str):
        spec, settings = spec["path"], spec.get("config")
    if isinstance(spec, str) and python_file(spec) is not None:
        for test in generated_tests(spec, base, config, folder, ("tests",), settings):
            yield test, base, False
        return
    if isinstance(spec, str):
        if spec.endswith(("yaml", "yml")):
            yield from _globbed(spec, base, config, warn, ("tests",), folder)
        else:
            yield from _standalone(spec, base, config, warn, ("tests",), folder)
        return
    items = spec if isinstance(spec, list) else [spec]
    for index, item in enumerate(items):
        generator = item.get("path") if isinstance(item, dict) else item
        if isinstance(generator, str) and python_file(generator) is not None:
            settings = item.get("config") if isinstance(item, dict) else None
            for test in generated_tests(generator, base, config, folder, ("tests", index), settings):
                yield test, base, False
        elif isinstance(item, dict):
            yield item, base, True
        elif isinstance(item, str) and ":" in strip_file(item):  # a sheet or function: standalone
            yield from _standalone(item, base, config, warn, ("tests", index), folder)
        elif isinstance(item, str):
            yield from _globbed(item, base, config, warn, ("tests", index), folder)
        else:
            raise ConfigError(
                f"a test is a mapping or a file:// path, not {type(item).__name__}",
                file=config,
                field=("tests", index),
            )


def check_test(test: dict[str, Any], config: Path) -> None:
    """promptfoo's ``readTest`` check, made on every test of ``tests:`` (standalone files' rows
    too): a test says at least one thing besides its description."""
    keys = ("assert", "vars", "options", "metadata", "provider", "providerOutput")
    threshold = test.get("threshold")
    if any(_truthy(test.get(key)) for key in keys) or (
        isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
    ):
        return
    # promptfoo shows the test pretty-printed; one line here keeps bench's "error: " form
    shown = json.dumps(test, ensure_ascii=False)
    raise ConfigError(
        "Test case must contain one of the following properties: assert, vars, options, metadata, "
        f"provider, providerOutput, threshold. Instead got: {shown}",
        file=config,
    )


def _truthy(value: Any) -> bool:
    """JavaScript truthiness: an empty list or mapping is true, 0, "" and null are not."""
    if isinstance(value, (list, dict)):
        return True
    return bool(value) and value == value  # NaN is false


def _globbed(
    item: str, base: Path, config: Path, warn: Warn, at: tuple[Any, ...], folder: SuiteFolder
) -> Iterator[tuple[dict[str, Any], Path, bool]]:
    """``loadTestsFromGlob``: each match in glob order; JSON/JSONL/YAML tests as written."""
    files = expand(strip_file(item), base, folder, f"tests reads {item}")
    if not files:
        raise ConfigError(f"no tests file matches '{item}'", file=config, field=at)
    for path in files:
        if path.suffix.lower() == ".csv":
            for test in read_tests_file(path, config, warn):
                yield test, path.parent, False
        else:
            for test in read_tests_file(path, config, warn, rows=False):
                yield test, path.parent, True


def _standalone(
    item: str, base: Path, config: Path, warn: Warn, at: tuple[Any, ...], folder: SuiteFolder
) -> Iterator[tuple[dict[str, Any], Path, bool]]:
    """``readStandaloneTestsFile``: one file (no glob), tests described ``Row #N`` by default."""
    path = base / strip_file(item)
    if not path.is_file():
        raise ConfigError(f"no tests file matches '{item}'", file=config, field=at)
    folder.check(path, f"tests reads {item}", field=at)
    for test in read_tests_file(path, config, warn):
        yield test, path.parent, False


def read_tests_file(path: Path, config: Path, warn: Warn, rows: bool = True) -> Iterator[dict[str, Any]]:
    """The tests of one CSV, JSON, JSONL or YAML file; ``rows``: describe them ``Row #N`` by default."""
    suffix = path.suffix.lower()
    if suffix not in _TEST_FILES:
        raise ConfigError(
            f"tests file '{path.name}' is not CSV, JSON, JSONL or YAML: bench does not run test generators",
            file=config,
            field=("tests",),
        )
    if suffix == ".csv":
        yield from iter_csv_tests(path, warn)
        return
    text = _read(path, config)
    if suffix == ".jsonl":
        tests = [json_data(path, line) for line in text.splitlines() if line.strip()]
    else:
        data = json_data(path, text) if suffix == ".json" else _yaml(text, path)
        tests = data if isinstance(data, list) else [data]
    for number, test in enumerate(tests, start=1):
        if not isinstance(test, dict):
            raise ConfigError(f"a test in '{path.name}' is not a mapping", file=path)
        if rows and not test.get("description"):
            test = {**test, "description": f"Row #{number}"}
        yield test


def read_vars_files(spec: str | list[str], base: Path, config: Path, folder: SuiteFolder) -> dict[str, Any]:
    """A test's ``vars:`` given as path(s) or glob(s) of YAML/JSON files (in ``folder``), merged in order."""
    merged: dict[str, Any] = {}
    for pattern in [spec] if isinstance(spec, str) else spec:
        files = expand(strip_file(pattern), base, folder, f"vars reads {pattern}")
        if not files:
            raise ConfigError(f"no vars file matches '{pattern}'", file=config, field=("tests", "vars"))
        for path in files:
            data = _yaml(_read(path, config), path)
            if isinstance(data, dict):
                merged.update(data)
    return merged


def load_default_test(spec: Any, base: Path, config: Path, folder: SuiteFolder) -> dict[str, Any]:
    """``defaultTest``: a mapping, or a ``file://`` YAML/JSON file (in ``folder``) holding one."""
    if spec is None:
        return {}
    if isinstance(spec, str) and spec.startswith(FILE):
        files = expand(strip_file(spec), base, folder, f"defaultTest reads {spec}")
        if not files:
            raise ConfigError(f"no defaultTest file matches '{spec}'", file=config, field=("defaultTest",))
        spec = _yaml(_read(files[0], config), files[0])
    if not isinstance(spec, dict):
        raise ConfigError("defaultTest is a mapping or a file:// path", file=config, field=("defaultTest",))
    default: dict[str, Any] = dict(spec)
    if isinstance(default.get("vars"), (str, list)):  # paths or globs of var files
        default["vars"] = read_vars_files(default["vars"], base, config, folder)
    return default


def merge_default(test: dict[str, Any], default: dict[str, Any]) -> dict[str, Any]:
    """A test with ``defaultTest`` merged in (docs/formats/promptfoo.md): the test wins, asserts
    concatenate."""
    if not default:
        return test
    merged = {**default, **test}
    merged["vars"] = {**(default.get("vars") or {}), **(test.get("vars") or {})}
    merged["assert"] = [*(default.get("assert") or []), *(test.get("assert") or [])]
    merged["options"] = {**(default.get("options") or {}), **(test.get("options") or {})}
    merged["metadata"] = {**(default.get("metadata") or {}), **(test.get("metadata") or {})}
    threshold = test.get("threshold")
    merged["threshold"] = default.get("threshold") if threshold is None else threshold
    return merged


def _read(path: Path, config: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read '{path}': {exc.strerror}", file=config) from None


def _yaml(text: str, path: Path) -> Any:
    from bench_formats.yaml12 import load_js_yaml

    return load_js_yaml(text, path)
