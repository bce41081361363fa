"""A promptfoo config mapping turned into native suite data."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.promptfoo.config_env import render_config_env, render_providers_env
from bench_formats.promptfoo.evaluator import assertion_problems
from bench_formats.promptfoo.js_config import install_filters
from bench_formats.promptfoo.matrix import Matrix
from bench_formats.promptfoo.prompts import read_prompts
from bench_formats.promptfoo.providers import Provider, read_providers, resolve_cli
from bench_formats.promptfoo.refs import dereference
from bench_formats.promptfoo.render import set_config_env
from bench_formats.promptfoo.serial_plan import serial_suite
from bench_formats.promptfoo.test_provider import wrapped
from bench_formats.promptfoo.tests_reader import iter_tests, load_default_test

OWN_WITH_SETTINGS = (
    "--target with settings cannot run a config whose tests name their own provider ({ids}): "
    "promptfoo answers those tests with it whatever --providers says; name a provider of the "
    "config or a bare target type"
)


def build(
    config: dict[str, Any],
    path: Path,
    target: dict[str, Any] | None,
    warn: Callable[[str], None],
    folder: SuiteFolder,
) -> dict[str, Any]:
    """The native suite of a promptfoo config; ``target`` is ``--target`` (promptfoo's ``--providers``);
    every file it reads must lie in ``folder``."""
    base = path.parent
    config = render_config_env(config)
    set_config_env(config.get("env") or {})
    if config.get("env"):
        warn(
            "env: its values are shown to templates as env.NAME; bench's targets read the process environment"
        )
    install_filters(config.get("nunjucksFilters"), path, folder, warn)
    tests_spec = config.get("tests")
    config = dereference({k: v for k, v in config.items() if k != "tests"}, path)
    prompts = read_prompts(config.get("prompts"), base, path, folder)
    providers, selected = _providers(config, path, target, warn)
    for provider in providers:  # a Python provider's script runs, so it keeps the folder rule too
        if provider.target.get("type") == "promptfoo-python":
            folder.check(base / provider.target["script"], f"provider '{provider.id}' runs its script")
    default = load_default_test(config.get("defaultTest"), base, path, folder)
    for at, why in assertion_problems(default.get("assert")):
        raise ConfigError(why, file=path, field=("defaultTest", "assert", *at))
    matrix = Matrix(
        config,
        path,
        prompts,
        providers,
        default,
        folder,
        single=len(providers) == 1,
        override=target is not None and selected is None,
        warn=warn,
    )
    tasks: list[dict[str, Any]] = []
    for test, test_base, refs in iter_tests(tests_spec, base, path, warn, folder):
        # promptfoo checks every test it reads, standalone files' rows too: their tests are read
        # into the config (combineConfigs) and then read again, one readTest each
        tasks.extend(matrix.tasks(test, test_base, refs, checked=tests_spec is not None))
    suite: dict[str, Any] = {"name": str(config.get("description") or path.stem)}
    if config.get("description"):
        suite["description"] = str(config["description"])
    if selected is not None and providers[0].target != {"type": selected}:
        # labelled with the --target name, bench-core keeps this target rather than replacing it
        suite["targets"] = [{**providers[0].target, "label": selected}]
    elif len(providers) == 1:
        suite["target"] = providers[0].target
    else:
        suite["targets"] = [{"label": p.label, **p.target} for p in providers]
    if matrix.own:
        _answer_own_providers(suite, matrix, target, path)
    repeat = (config.get("evaluateOptions") or {}).get("repeat")
    if isinstance(repeat, int) and repeat > 1:
        suite["repeat"] = repeat
    suite["tasks"] = tasks
    if matrix.uses:
        serial_suite(suite, matrix.uses, target, path)
    return suite


def _answer_own_providers(
    suite: dict[str, Any], matrix: Matrix, target: dict[str, Any] | None, path: Path
) -> None:
    """Each column's target wrapped so that a test's own provider answers its rows, as promptfoo's
    ``callActiveProvider`` does whatever the columns are (``--providers`` too)."""
    if target is not None and set(target) != {"type"}:
        # bench-core replaces a suite's targets with such a --target: the wrapper would be lost
        raise ConfigError(
            OWN_WITH_SETTINGS.format(ids=", ".join(sorted({p.id for p in matrix.own.values()}))), file=path
        )
    own = {key: provider.target for key, provider in matrix.own.items()}
    if "target" in suite:
        one = wrapped(suite.pop("target"), own)
        if target is None:
            suite["target"] = one
        else:  # labelled with the --target name, bench-core keeps it rather than replacing it
            suite["targets"] = [{"label": target["type"], **one}]
    else:
        suite["targets"] = [
            {"label": entry["label"], **wrapped({k: v for k, v in entry.items() if k != "label"}, own)}
            for entry in suite["targets"]
        ]


def _providers(
    config: dict[str, Any], path: Path, target: dict[str, Any] | None, warn: Callable[[str], None]
) -> tuple[list[Provider], str | None]:
    """The providers that run, and the ``--target`` name when it picked one of the config's."""
    spec = render_providers_env(config.get("providers") or config.get("targets"), config.get("env") or {})
    if target is not None:
        # promptfoo eval --providers NAME: the config provider NAME names, else a bare provider
        # that runs every prompt (the per-provider prompt mapping dropped)
        kind = str(target.get("type", "target"))
        chosen = resolve_cli(kind, spec, path) if set(target) == {"type"} else None
        if chosen is None:
            return [Provider(kind, str(target.get("label") or kind), dict(target))], None
        for line in chosen.warnings:
            warn(line)
        return [chosen], kind
    if not spec:
        raise ConfigError("the config has no 'providers:'; add one or run it with --target SPEC", file=path)
    providers = _distinct_labels(read_providers(_without_repeats(spec), path))
    for provider in providers:
        for line in provider.warnings:
            warn(line)
    return providers, None


def _without_repeats(spec: Any) -> Any:
    """The ``providers:`` list without an entry identical to an earlier one, as promptfoo's
    ``combineConfigs`` drops it (same string, or same ``JSON.stringify`` text: key order counts)."""
    if not isinstance(spec, list):
        return spec
    seen: set[str] = set()
    kept = []
    for item in spec:
        key = item if isinstance(item, str) else json.dumps(item, separators=(",", ":"), ensure_ascii=False)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _distinct_labels(providers: list[Provider]) -> list[Provider]:
    """The providers with a bench target label each: promptfoo runs two providers with the same id
    or label as two columns (it keys results by position), so a repeated label gets ``#2``, ``#3``."""
    seen: set[str] = set()
    for provider in providers:
        label, number = provider.label, 1
        while label in seen:
            number += 1
            label = f"{provider.label} #{number}"
        seen.add(label)
        provider.label = label
    return providers
