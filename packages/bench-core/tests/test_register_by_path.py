"""``register(name, "module:Class")``: a plugin registers a type by name and import path; bench
imports the class on the first lookup of the name, checks it then, and reports a path that is
broken like a broken plugin. ``register(cls)`` works as before, beside it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import Evaluator, EvaluatorConfig, PluginError, RegisterEvaluator, Result, Sample, hookimpl
from bench.api import RunResult, execute
from bench.pipeline.options import RunOptions
from bench.plugins.listing import describe
from bench.plugins.names import Deferred
from bench.plugins.registry import Registry, build_registry
from bench.suite.binding import Binder
from bench.suite.loader import load_suite
from bench.vocabulary.errors import InvalidSuite

MODULE = '''
from bench import Evaluator, Result, Sample


class Shouting(Evaluator):
    """Passes when the output is in upper case."""

    name = "shouting"
    aliases = ("loud",)

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=sample.output.isupper())
'''


class WhisperConfig(EvaluatorConfig):
    whispered: bool = True


class Whisper(Evaluator[WhisperConfig]):
    """Registered as a class, the way plugins always could; ``{whispered: ...}`` selects it."""

    name = "whisper"
    infer_from = ("whispered",)
    Config = WhisperConfig

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=sample.output.islower())


def _registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *paths: tuple[Any, ...]) -> Registry:
    """A registry of one plugin that registers ``Whisper`` and ``paths`` (the module written
    under a name no other test uses): ``(name, path)``, or ``(name, path, infer_from)``."""
    (tmp_path / "by_path_demo.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "by_path_demo", raising=False)
    monkeypatch.setenv("BENCH_PLUGINS", "bench-core")

    class Plugin:
        @hookimpl
        def bench_register_evaluators(self, register: RegisterEvaluator) -> None:
            register(Whisper)
            for name, path, *declared in paths:
                register(name, path, **({"infer_from": declared[0]} if declared else {}))

    return build_registry([("bench-by-path", "demo", Plugin())])


def _deferred(registry: Registry, name: str) -> bool:
    return isinstance(dict.__getitem__(registry.evaluators, name), Deferred)


def test_a_type_registered_by_path_is_imported_on_its_first_lookup(tmp_path, monkeypatch):
    paths = [("shouting", "by_path_demo:Shouting"), ("loud", "by_path_demo:Shouting")]
    registry = _registry(tmp_path, monkeypatch, *paths)
    assert "by_path_demo" not in sys.modules
    assert "shouting" in registry.evaluators
    provided = registry.evaluators["loud"]
    assert "by_path_demo" in sys.modules
    assert (provided.name, provided.cls.__name__, provided.distribution) == (
        "loud",
        "Shouting",
        "bench-by-path",
    )
    assert registry.evaluators["shouting"].cls is provided.cls
    assert registry.evaluators["whisper"].cls is Whisper
    assert registry.failures == []


def test_a_suite_imports_only_the_types_it_uses(tmp_path, monkeypatch, bench_suite_file):
    registry = _registry(tmp_path, monkeypatch, ("shouting", "by_path_demo:Shouting"))
    suite = bench_suite_file("tasks:\n  - {id: a, response: hi, evaluate: whisper}\n")
    [task] = load_suite(suite, registry).tasks
    assert task.evaluators[0].type == "whisper"
    assert _deferred(registry, "shouting")
    assert "by_path_demo" not in sys.modules


def test_listing_loads_every_type_in_registration_order(tmp_path, monkeypatch):
    paths = [("shouting", "by_path_demo:Shouting"), ("loud", "by_path_demo:Shouting")]
    text = describe(_registry(tmp_path, monkeypatch, *paths))
    assert text.startswith(
        "bench-by-path (entry point 'demo')\n"
        "  hooks: bench_register_evaluators\n"
        "  evaluators: whisper, shouting (loud)\n"
    )


BROKEN = (
    "plugin 'demo' from bench-by-path failed to load: bench-by-path registered evaluator "
    "'gone' as 'by_path_demo.missing:Gone': ModuleNotFoundError: No module named "
    "'by_path_demo.missing'; 'by_path_demo' is not a package; skipped"
)


def test_a_bad_import_path_fails_like_a_broken_plugin(tmp_path, monkeypatch, bench_suite_file):
    registry = _registry(tmp_path, monkeypatch, ("gone", "by_path_demo.missing:Gone"))
    assert registry.failures == []  # not imported yet
    suite = bench_suite_file("tasks:\n  - {id: a, response: hi, evaluate: [whisper, gone]}\n")
    with pytest.raises(PluginError) as raised:
        load_suite(suite, registry)
    assert str(raised.value) == BROKEN
    assert [str(f) for f in registry.failures] == [BROKEN]
    with pytest.raises(PluginError, match="registered evaluator 'gone'"):
        registry.evaluators.get("gone")  # the same failure on every lookup, recorded once
    assert [p.name for p in registry.evaluator_types()] == ["whisper"]
    assert describe(registry).endswith(f"\nfailed to load:\n  {BROKEN}\n")


@pytest.mark.parametrize(
    ("name", "path", "problem"),
    [
        ("quiet", "by_path_demo:Shouting", "evaluator 'quiet' as 'by_path_demo:Shouting', but that class is named 'shouting'"),
        ("shouting", "by_path_demo:Nope", "evaluator 'shouting' as 'by_path_demo:Nope': AttributeError: module 'by_path_demo' has no attribute 'Nope'"),
        ("shouting", "by_path_demo", "evaluator 'shouting' as 'by_path_demo', which is not an import path 'module:Class'"),
        ("bad name", "by_path_demo:Shouting", "an evaluator with an invalid name 'bad name'"),
        ("sample", "bench:Sample", "<class 'bench.evaluator.Sample'> as an evaluator, but it is not a subclass of bench.evaluator.Evaluator"),
    ],
    ids=["other-name", "no-such-class", "no-colon", "invalid-name", "not-an-evaluator"],
)  # fmt: skip
def test_a_path_that_is_not_the_named_type_is_a_failure(tmp_path, monkeypatch, name, path, problem):
    registry = _registry(tmp_path, monkeypatch, (name, path))
    registry.load_all()
    message = f"plugin 'demo' from bench-by-path failed to load: bench-by-path registered {problem}; skipped"
    assert [str(f) for f in registry.failures] == [message]
    assert [p.name for p in registry.evaluator_types()] == ["whisper"]


def test_two_distributions_registering_one_name_by_path_clash(tmp_path, monkeypatch):
    registry = _registry(tmp_path, monkeypatch)
    registry.evaluators.add(Deferred("whisper", "other:Whisper", "bench-other", _never))
    with pytest.raises(PluginError, match="registered by two distributions: bench-by-path and bench-other"):
        registry.evaluators.get("whisper")


def _never(deferred: Deferred[Any]) -> Any:
    raise AssertionError(f"{deferred.path} imported")


def test_an_untyped_mapping_imports_only_the_types_that_claim_its_keys(
    tmp_path, monkeypatch, bench_suite_file
):
    registry = _registry(tmp_path, monkeypatch, ("shouting", "by_path_demo:Shouting", ()))
    assert "shouting" in registry.evaluators
    assert registry.failures == []
    suite = bench_suite_file("tasks:\n  - {id: a, response: hi, evaluate: [{whispered: true}]}\n")
    [task] = load_suite(suite, registry).tasks
    assert task.evaluators[0].type == "whisper"
    assert "by_path_demo" not in sys.modules  # declared to claim nothing: not imported to ask


def test_a_type_registered_by_path_without_infer_from_is_imported_to_ask(
    tmp_path, monkeypatch, bench_suite_file
):
    registry = _registry(tmp_path, monkeypatch, ("shouting", "by_path_demo:Shouting"))
    suite = bench_suite_file("tasks:\n  - {id: a, response: hi, evaluate: [{whispered: true}]}\n")
    [task] = load_suite(suite, registry).tasks
    assert task.evaluators[0].type == "whisper"
    assert "by_path_demo" in sys.modules  # it might claim 'whispered': the class says


def test_an_untyped_mapping_is_inferred_once_per_set_of_keys(tmp_path, monkeypatch, bench_suite_file):
    registry = _registry(tmp_path, monkeypatch)
    asked: list[frozenset[str]] = []
    infer = Binder._infer
    monkeypatch.setattr(Binder, "_infer", lambda self, keys: asked.append(keys) or infer(self, keys))
    rows = "".join(
        f"  - {{id: t{i}, response: hi, evaluate: [{{whispered: {i % 2 == 0}}}{extra}]}}\n"
        for i, extra in enumerate(["", "", ", {whispered: true, weight: 2}", ""])
    )
    plan = load_suite(bench_suite_file(f"tasks:\n{rows}"), registry)
    assert [e.type for task in plan.tasks for e in task.evaluators] == ["whisper"] * 5
    assert asked == [frozenset({"whispered"}), frozenset({"whispered", "weight"})]


def test_a_declared_infer_from_that_is_not_the_class_s_is_a_failure(tmp_path, monkeypatch, bench_suite_file):
    registry = _registry(tmp_path, monkeypatch, ("shouting", "by_path_demo:Shouting", ("loud",)))
    suite = bench_suite_file("tasks:\n  - {id: a, response: HI, evaluate: [{loud: true}]}\n")
    message = (
        "plugin 'demo' from bench-by-path failed to load: bench-by-path registered evaluator "
        "'shouting' as 'by_path_demo:Shouting' with infer_from=('loud',), but that class's "
        "infer_from is (); skipped"
    )
    with pytest.raises(InvalidSuite) as raised:
        load_suite(suite, registry)
    assert str(raised.value).endswith("tasks[0].evaluate[0]: cannot tell the evaluator type; add 'type:'")
    assert [str(f) for f in registry.failures] == [message]


@pytest.mark.parametrize(
    ("cls", "path", "declared", "problem"),
    [
        ("shouting", "by_path_demo:Shouting", "loud", "evaluator 'shouting' with infer_from='loud', which is not a tuple of setting names"),
        (Whisper, None, ("whispered",), f"evaluator {Whisper!r} with infer_from=, which only a name and import path take"),
    ],
    ids=["not-a-tuple", "with-a-class"],
)  # fmt: skip
def test_a_bad_infer_from_declaration_is_a_failure(cls, path, declared, problem):
    class Plugin:
        @hookimpl
        def bench_register_evaluators(self, register: RegisterEvaluator) -> None:
            register(cls, path, infer_from=declared)

    registry = build_registry([("bench-by-path", "demo", Plugin())])
    message = f"plugin 'demo' from bench-by-path failed to load: bench-by-path registered {problem}; skipped"
    assert [str(f) for f in registry.failures if f.distribution == "bench-by-path"] == [message]


def test_the_installed_plugins_declare_their_types_claims_as_the_classes_do():
    """The claims read without importing are those every imported class gives (so no untyped
    mapping is inferred differently), and no declaration is refused."""
    registry = build_registry()
    claims = {key: {p.name for p in found} for key, found in registry.evaluator_claims().items()}
    imported = registry.load_all()
    expected: dict[str, set[str]] = {}
    for provided in imported.evaluator_types():
        for key in provided.cls.infer_from:
            expected.setdefault(key, set()).add(provided.name)
    assert claims == expected
    assert imported.failures == []


def test_a_run_imports_no_type_its_suite_does_not_use(tmp_path, monkeypatch, bench_suite_file):
    """The run's behavioural signals (every type's ``signal_collector``) are read only for a
    scorecard: starting the runner must not read them."""
    registry = _registry(tmp_path, monkeypatch, ("shouting", "by_path_demo:Shouting", ()))
    suite = bench_suite_file("tasks:\n  - {id: a, response: hi, evaluate: [{whispered: true}]}\n")
    options = RunOptions(runs_dir=tmp_path / "runs", handle_signals=False)
    result = asyncio.run(execute(suite, options, registry=registry))
    assert isinstance(result, RunResult)
    assert (result.summary.total, result.summary.passed) == (1, 1)
    assert "by_path_demo" not in sys.modules
