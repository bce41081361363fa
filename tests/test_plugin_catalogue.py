"""What plugins provide is described by the plugins: install hints come from a catalogue generated
from the packages' registries, and bench-core's source names no type that a plugin registers."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from bench.plugins import catalogue
from bench.plugins.registry import build_registry

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").is_file())
CORE = ROOT / "packages" / "bench-core" / "src" / "bench"
REGENERATE = "python -m bench.plugins.catalogue $(ls packages)"

#: Strings in bench-core that equal a plugin's type name but mean something else, and why. Each is
#: allowed only in the modules listed.
COINCIDENCES: dict[str, tuple[str, frozenset[str]]] = {
    "judge": (
        "the purpose of a model call (target or judge), in accounting and reports; the judge model",
        frozenset(
            {
                "llm/accounting.py",
                "llm/client.py",
                "llm/limits/coordination.py",
                "llm/judge.py",
                "llm/verdict.py",
                "judging/calibration_report.py",
                "report/console.py",
                "judging/calibrate.py",
                "pipeline/calibration_gate.py",
                "scoring/run_stats.py",
            }
        ),
    ),
    "trajectory": (
        "the result record's field that keeps a response's messages (a run imported, an agent's, rescored)",
        frozenset({"intake/replay.py", "execution/runner.py"}),
    ),
    "tool_calls": (
        "the chat-completions field of a message and of a response; the evidence target naming them",
        frozenset(
            {
                "evidence.py",
                "llm/answers.py",
                "llm/batch/protocols.py",
                "testing/batches.py",
                "llm/providers/calls.py",
                "intake/replay.py",
                "llm/providers/direct.py",
                "llm/request.py",
                "llm/verdict.py",
                "execution/runner.py",
                "execution/conversation.py",
                "execution/evaluation.py",
                "report/history.py",
                "testing/server.py",
                "testing/verdicts.py",
                "workspace/trajectory.py",
            }
        ),
    ),
    "code": (
        "an error code in a provider's JSON error body (a live answer's, or a batch line's)",
        frozenset({"llm/failures.py", "testing/server.py", "llm/batch/protocols.py", "testing/batches.py"}),
    ),
    "expected": (
        "the task's `expected:` field and Sample.expected (the reference text); the setting of that "
        "name filled from a task's vars (Evaluator.var_settings)",
        frozenset({"execution/evaluation.py", "suite/expected_block.py", "evaluator.py"}),
    ),
    "exact": (
        "how a sign-flip test's p-value was computed (exact, not Monte Carlo)",
        frozenset({"scoring/sign_flip.py"}),
    ),
    "llm_judge": (
        "AgentClash's vocabulary: `judge_mode: llm_judge` and a scorecard dimension's `source: llm_judge`",
        frozenset({"suite/file_model.py", "suite/tasks.py", "scoring/scorecard.py", "scoring/compute.py"}),
    ),
    "numeric": ("AgentClash's metric declaration `type: numeric`", frozenset({"scoring/scorecard.py"})),
}


@pytest.fixture(scope="module")
def registry():
    # The catalogue lists every package's types: one not installed would read as a stale catalogue.
    missing = [name for name in PACKAGES if not _installed(name)]
    assert not missing, f"not installed: {', '.join(missing)} (pip install -e packages/NAME)"
    registry = build_registry()
    assert not registry.failures, registry.failures
    return registry


def _installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def test_the_package_folders_are_named_after_their_distributions():
    for name in PACKAGES:
        text = (ROOT / "packages" / name / "pyproject.toml").read_text(encoding="utf-8")
        assert f'\nname = "{name}"\n' in text, name


def test_the_catalogue_is_generated_from_the_packages_registries(registry):
    generated = catalogue.generate(registry, PACKAGES)
    shipped = (CORE / "plugins" / catalogue.FILE).read_text(encoding="utf-8")
    assert catalogue.render(generated) == shipped, f"catalogue.json is stale; run: {REGENERATE}"


def test_every_registered_type_of_every_package_has_an_install_hint(registry):
    checked = 0
    for kind in catalogue.KINDS:
        for name, provided in getattr(registry, kind).items():
            if provided.distribution in PACKAGES:
                assert catalogue.provider(kind, name) == provided.distribution, (kind, name)
                checked += 1
    assert checked == sum(len(names) for names in catalogue.load().values())
    assert {dist for names in catalogue.load().values() for dist in names.values()} == set(PACKAGES)


def test_the_generator_refuses_a_distribution_that_registers_nothing(capsys):
    assert catalogue.main(["bench-core", "bench-nope"]) == 1
    assert capsys.readouterr().err == "not installed, or registers nothing: bench-nope\n"


def validate(path: Path, disabled: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BENCH_DISABLE_PLUGINS": disabled}  # as if it were not installed
    return subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path)], env=env, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    ("entry", "dist", "message"),
    [
        (  # an alias that the hard-coded list of old missed
            "{type: answer_relevancy}",
            "bench-rag",
            "4:16: tasks[0].evaluate.type: unknown evaluator type 'answer_relevancy' "
            "(pip install bench-rag provides 'answer_relevancy')",
        ),
        (
            "{type: judge, prompt: x}",
            "bench-llm-judge",
            "4:16: tasks[0].evaluate.type: unknown evaluator type 'judge' "
            "(pip install bench-llm-judge provides 'judge')",
        ),
        (
            "contains-all",
            "bench-deterministic",
            "4:5: tasks[0].evaluate: unknown evaluator 'contains-all' "
            "(pip install bench-deterministic provides 'contains-all')",
        ),
    ],
)
def test_an_alias_of_a_type_not_installed_names_its_package(tmp_path, entry, dist, message):
    path = tmp_path / "suite.yaml"
    path.write_text(f"tasks:\n  - id: a\n    response: x\n    evaluate: {entry}\n", encoding="utf-8")
    result = validate(path, dist)
    assert result.returncode == 2
    assert result.stderr == f"error: {path}:{message}\n"


def test_an_unknown_reporter_names_its_package(monkeypatch, bench_cli, bench_suite_file):
    known = {kind: {} for kind in catalogue.KINDS} | {"reporters": {"pdf": "bench-pdf"}}
    monkeypatch.setattr(catalogue, "load", lambda: known)
    suite = bench_suite_file("tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n")
    result = bench_cli("run", suite, "-q", "--report", "pdf=out.pdf")
    assert result.exit_code == 2
    assert result.stderr == "error: --report: unknown reporter 'pdf' (pip install bench-pdf provides 'pdf')\n"
    result = bench_cli("run", suite, "-q", "--report", "jsn=out.json")
    assert result.exit_code == 2
    assert result.stderr == "error: --report: unknown reporter 'jsn' (did you mean 'json'?)\n"


def _docstrings(tree: ast.Module) -> set[ast.AST]:
    """The docstring constants of a module and of its classes and functions."""
    found: set[ast.AST] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(first.value)
    return found


def _core_strings(docstrings: bool = True) -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(CORE.rglob("*.py")):
        module = path.relative_to(CORE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # cli/'s docstrings are the commands' --help, which users read like any message
        skipped = set() if docstrings or module.startswith("cli/") else _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node not in skipped:
                found.append((module, node.lineno, node.value))
    return found


def test_bench_core_names_no_type_that_a_plugin_registers(registry):
    plugin_types = {
        name: f"{kind[:-1]} of {provided.distribution}"
        for kind in catalogue.KINDS
        for name, provided in getattr(registry, kind).items()
        if provided.distribution != "bench-core"
    }
    named = []
    for module, line, text in _core_strings():
        if text not in plugin_types:
            continue
        allowed = COINCIDENCES.get(text)
        if allowed is not None and module in allowed[1]:
            continue
        named.append(f"{module}:{line}: '{text}' ({plugin_types[text]})")
    assert named == [], "bench-core names plugin types; declare them on the plugin's classes instead"


def test_each_allowed_coincidence_still_occurs_where_it_is_allowed(registry):
    """An entry nothing needs any more is removed, so the list stays short."""
    strings = {(module, text) for module, _, text in _core_strings()}
    for text, (_, modules) in COINCIDENCES.items():
        assert registry.evaluators[text].distribution != "bench-core", text  # still a plugin's type
        for module in modules:
            assert (module, text) in strings, (text, module)


def test_bench_core_names_no_plugin_distribution_in_what_it_says():
    """Messages, help and data name no plugin package: what a plugin provides, the plugin says.

    Docstrings (outside cli/) may: they say which plugin uses a piece of bench-core. The
    catalogue's install hints are data (``catalogue.json``), not string literals.
    """
    plugins = [name for name in PACKAGES if name != "bench-core"]
    assert len(plugins) >= 6, plugins
    named = [
        f"{module}:{line}: {dist}"
        for module, line, text in _core_strings(docstrings=False)
        for dist in plugins
        if dist in text
    ]
    assert named == [], "bench-core names plugin packages"


def test_an_executor_not_installed_names_its_package(monkeypatch, bench_cli, bench_suite_file):
    known = {kind: {} for kind in catalogue.KINDS} | {"executors": {"grid": "bench-grid"}}
    monkeypatch.setattr(catalogue, "load", lambda: known)
    suite = bench_suite_file("tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n")
    result = bench_cli("run", suite, "-q", "--executor", "grid")
    assert result.exit_code == 2
    assert (
        result.stderr
        == "error: --executor: unknown executor 'grid' (pip install bench-grid provides 'grid')\n"
    )
    result = bench_cli("run", suite, "-q", "--executor", "lcoal")
    assert result.exit_code == 2
    assert result.stderr == "error: --executor: unknown executor 'lcoal' (did you mean 'local'?)\n"
