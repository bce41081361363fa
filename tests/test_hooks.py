"""Each hook, implemented the way a third party would: a distribution installed with pip.

The distribution ``bench-hooks-demo`` has one module per hook, each the runnable example of that
hook's docstring (the reference plugin authors copy), behind its own entry point in the ``bench``
group. Each test runs a suite through the CLI that uses what one hook registered.
``bench-clash-demo`` registers an evaluator under a name the demo registers too, and has an
entry point whose module does not exist.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import hookspecs
from bench.plugins.registry import get_registry
from bench.testing.distributions import hook_example, install

HOOKS = ("evaluators", "targets", "reporters", "suite_loaders")
CLASH = '''
from bench import Evaluator, Result, Sample, hookimpl


class Shouting(Evaluator):
    """Another evaluator called shouting."""

    name = "shouting"

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=True)


@hookimpl
def bench_register_evaluators(register):
    register(Shouting)
'''


def _distribution(root: Path, name: str, modules: dict[str, str], entry_points: dict[str, str]) -> Path:
    package = name.replace("-", "_")
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text("")
    for module, code in modules.items():
        (root / package / f"{module}.py").write_text(code)
    points = "".join(f'{ep} = "{package}.{module}"\n' for ep, module in entry_points.items())
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "{name}"\nversion = "1.2.3"\n\n'
        f"[project.entry-points.bench]\n{points}\n"
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
    )
    return root


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders holding the installed distributions: ``demo`` and ``clash``."""
    src = tmp_path_factory.mktemp("src")
    demo = _distribution(
        src / "demo",
        "bench-hooks-demo",
        {hook: hook_example(getattr(hookspecs, f"bench_register_{hook}")) for hook in HOOKS},
        {hook: hook for hook in HOOKS},
    )
    clash = _distribution(
        src / "clash", "bench-clash-demo", {"plugin": CLASH}, {"clash": "plugin", "broken": "missing"}
    )
    found = {"demo": tmp_path_factory.mktemp("demo-site"), "clash": tmp_path_factory.mktemp("clash-site")}
    install(found["demo"], demo)
    install(found["clash"], clash)
    return found


def _on_path(monkeypatch: pytest.MonkeyPatch, *folders: Path) -> Iterator[None]:
    for folder in folders:
        monkeypatch.syspath_prepend(str(folder))
    get_registry.cache_clear()
    yield
    get_registry.cache_clear()


@pytest.fixture
def demo(sites: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """bench-hooks-demo is installed (for this test, in this process)."""
    yield from _on_path(monkeypatch, sites["demo"])


@pytest.fixture
def clash(sites: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """bench-hooks-demo and bench-clash-demo are installed (found in that order)."""
    yield from _on_path(monkeypatch, sites["clash"], sites["demo"])


@pytest.mark.slow
def test_evaluators_hook(demo, bench_cli, suite_file):
    suite = suite_file(
        """
        tasks:
          - {id: loud, response: HELLO, evaluate: shouting}
          - {id: quiet, response: hello, evaluate: shouting}
        """
    )
    result = bench_cli("run", suite, "-q", "-o", "out.json")
    assert result.exit_code == 1, result.output
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    reasons = [(t["id"], t["passed"], t["evaluators"][0]["reason"]) for t in tasks]
    assert reasons == [("loud", True, "upper case"), ("quiet", False, "not upper case")]
    assert tasks[0]["evaluators"][0]["type"] == "shouting"


@pytest.mark.slow
def test_targets_hook(demo, bench_cli, suite_file):
    suite = suite_file(
        """
        target: {type: reverse}
        tasks:
          - {id: a, prompt: stressed, evaluate: {expected: desserts}}
        """
    )
    result = bench_cli("run", suite, "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    assert json.loads(Path("out.json").read_text())["tasks"][0]["response"] == "desserts"


@pytest.mark.slow
def test_reporters_hook(demo, bench_cli, suite_file):
    suite = suite_file("tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n")
    result = bench_cli("run", suite, "-q", "--report", "pass-count=count.txt")
    assert result.exit_code == 0, result.output
    assert Path("count.txt").read_text() == "1/1\n"


@pytest.mark.slow
def test_suite_loaders_hook(demo, bench_cli, tmp_path):
    (tmp_path / "smoke.lines").write_text("ping\n\npong\n")
    result = bench_cli("run", "smoke.lines", "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    assert [(t["id"], t["response"], t["passed"]) for t in tasks] == [
        ("line-1", "ping", True),
        ("line-2", "pong", True),
    ]


@pytest.mark.slow
def test_bench_plugins_lists_what_each_plugin_registered(demo, bench_cli, monkeypatch):
    monkeypatch.setenv("BENCH_PLUGINS", "bench-core,bench-hooks-demo")
    result = bench_cli("plugins")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout == (
        "bench-core 0.1.0 (entry point 'core')\n"
        "  hooks: bench_register_targets, bench_register_reporters, bench_register_suite_loaders\n"
        "  targets: recorded, echo, python, command, litellm\n"
        "  reporters: json, junit\n"
        "  suite loaders: bench\n"
        "bench-hooks-demo 1.2.3 (entry point 'evaluators')\n"
        "  hooks: bench_register_evaluators\n"
        "  evaluators: shouting\n"
        "bench-hooks-demo 1.2.3 (entry point 'reporters')\n"
        "  hooks: bench_register_reporters\n"
        "  reporters: pass-count\n"
        "bench-hooks-demo 1.2.3 (entry point 'suite_loaders')\n"
        "  hooks: bench_register_suite_loaders\n"
        "  suite loaders: lines\n"
        "bench-hooks-demo 1.2.3 (entry point 'targets')\n"
        "  hooks: bench_register_targets\n"
        "  targets: reverse\n"
    )


BROKEN = (
    "plugin 'broken' from bench-clash-demo failed to load: "
    "ModuleNotFoundError: No module named 'bench_clash_demo.missing'"
)


@pytest.mark.slow
def test_bench_plugins_lists_failures_and_clashes(clash, bench_cli, monkeypatch):
    monkeypatch.setenv("BENCH_PLUGINS", "bench-clash-demo,evaluators")
    result = bench_cli("plugins")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "bench-clash-demo 1.2.3 (entry point 'clash')\n"
        "  hooks: bench_register_evaluators\n"
        "  evaluators: shouting\n"
        "bench-hooks-demo 1.2.3 (entry point 'evaluators')\n"
        "  hooks: bench_register_evaluators\n"
        "  evaluators: shouting\n"
        "\n"
        "failed to load:\n"
        f"  {BROKEN}\n"
        "\n"
        "name clashes (a suite that uses one of these names fails):\n"
        "  evaluator 'shouting': bench-hooks-demo and bench-clash-demo\n"
    )


@pytest.mark.slow
def test_a_clash_fails_only_the_suites_that_use_the_name(clash, bench_cli, suite_file):
    fine = suite_file("tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n", name="fine.yaml")
    result = bench_cli("run", fine, "-q")
    assert result.exit_code == 0, result.output
    assert result.stderr == f"warning: {BROKEN}\n"

    clashing = suite_file("tasks:\n  - {id: a, response: X, evaluate: shouting}\n", name="clashing.yaml")
    result = bench_cli("validate", clashing)
    assert result.exit_code == 2
    assert result.stderr == (
        f"warning: {BROKEN}\n"
        "error: evaluator type 'shouting' is registered by two distributions: "
        "bench-hooks-demo and bench-clash-demo; uninstall one of them\n"
    )
