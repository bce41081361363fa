"""Each hook, implemented the way a third party would: a distribution installed with pip.

The distribution ``bench-hooks-demo`` has one module per hook, each the runnable example of that
hook's docstring (the reference plugin authors copy), behind its own entry point in the ``bench``
group. Each test runs a suite through the CLI that uses what one hook registered.
``bench-clash-demo`` registers an evaluator under a name the demo registers too, and has an
entry point whose module does not exist. ``bench-clash-all`` registers one name of each kind
that the demo registers too; ``bench-bad-demo`` registers a class that is no evaluator and one
with an invalid name before a good one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import hookspecs
from bench.plugins.registry import get_registry
from bench.testing.distributions import hook_example, install

HOOKS = ("evaluators", "targets", "reporters", "suite_loaders", "executors", "importers", "sandboxes")
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


CLASH_ALL = '''
from pathlib import Path

from bench import Evaluator, Reporter, Response, Result, Sample, SuiteLoader, Target, hookimpl


class Shouting(Evaluator):
    name = "shouting"

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=True)


class Reverse(Target):
    name = "reverse"

    async def respond(self, task):
        return Response(output=task.prompt)


class PassCount(Reporter):
    name = "pass-count"

    def write(self, report, path: Path) -> None:
        path.write_text("clash")


class OtherLines(SuiteLoader):
    """Claims only .other files, which the demo's loader of the same name does not."""

    name = "lines"

    def claims(self, path: Path) -> bool:
        return path.suffix == ".other"

    def load(self, path: Path):
        raise AssertionError("a clashing loader must not be used")


@hookimpl
def bench_register_evaluators(register):
    register(Shouting)


@hookimpl
def bench_register_targets(register):
    register(Reverse)


@hookimpl
def bench_register_reporters(register):
    register(PassCount)


@hookimpl
def bench_register_suite_loaders(register):
    register(OtherLines)
'''
BAD = """
from bench import Evaluator, Result, Sample, hookimpl


class Spaced(Evaluator):
    name = "bad name"

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=True)


class Whisper(Evaluator):
    name = "whisper"

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=sample.output.islower(), reason="lower case")


@hookimpl
def bench_register_evaluators(register):
    register(object)
    register(Spaced)
    register(Whisper)
"""


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
    """Folders holding the installed distributions: ``demo``, ``clash``, ``clash-all``, ``bad``."""
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
    clash_all = _distribution(src / "clash-all", "bench-clash-all", {"plugin": CLASH_ALL}, {"all": "plugin"})
    bad = _distribution(src / "bad", "bench-bad-demo", {"plugin": BAD}, {"bad": "plugin"})
    sources = {"demo": demo, "clash": clash, "clash-all": clash_all, "bad": bad}
    found = {name: tmp_path_factory.mktemp(f"{name}-site") for name in sources}
    for name, source in sources.items():
        install(found[name], source)
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
def test_evaluators_hook(demo, bench_cli, bench_suite_file):
    suite = bench_suite_file(
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
def test_targets_hook(demo, bench_cli, bench_suite_file):
    suite = bench_suite_file(
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
def test_reporters_hook(demo, bench_cli, bench_suite_file):
    suite = bench_suite_file("tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n")
    result = bench_cli("run", suite, "-q", "--report", "pass-count=count.txt")
    assert result.exit_code == 0, result.output
    assert Path("count.txt").read_text() == "1/1\n"


@pytest.mark.slow
def test_a_reporters_declared_extension_picks_it_for_dash_o(demo, bench_cli, bench_suite_file):
    suite = bench_suite_file("tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n")
    result = bench_cli("run", suite, "-q", "-o", "passes.count")
    assert result.exit_code == 0, result.output
    assert Path("passes.count").read_text() == "1/1\n"
    result = bench_cli("run", suite, "-q", "-o", "passes.txt")
    assert result.stderr == (
        "error: -o passes.txt: unknown report extension '.txt' "
        "(known: .count, .csv, .html, .json, .jsonl, .md, .xml; - writes JSON to stdout)\n"
    )


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
def test_executors_hook(demo, bench_cli, bench_suite_file):
    suite = bench_suite_file(
        """
        tasks:
          - {id: a, response: x, evaluate: {expected: x}}
          - {id: b, response: y, evaluate: {expected: x}}
        """
    )
    result = bench_cli("run", suite, "-q", "-o", "out.json", "--executor", "serial", "--runs-dir", "runs")
    assert result.exit_code == 1, result.output
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    assert [(t["id"], t["passed"]) for t in tasks] == [("a", True), ("b", False)]
    [manifest] = Path("runs").glob("*/manifest.json")
    assert json.loads(manifest.read_text())["executor"] == "serial"
    result = bench_cli("run", suite, "-q", "--executor", "serail")
    assert result.exit_code == 2
    assert result.stderr == "error: --executor: unknown executor 'serail' (did you mean 'serial'?)\n"
    result = bench_cli("run", suite, "-q", "--executor", "serial", "--executor-option", "fast")
    assert result.exit_code == 2
    assert result.stderr == "error: --executor-option 'fast': write KEY=VALUE\n"


@pytest.mark.slow
def test_importers_hook(demo, bench_cli, tmp_path):
    (tmp_path / "answers.json").write_text('{"answers": {"What is 2+2?": "4"}}')
    result = bench_cli("import", "answers.json", "-o", "answered", "--runs-dir", "runs")
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    assert result.stdout.startswith("imported answers.json (answers): 1 tasks: 0 passed, 0 failed, 1 errors")
    [line] = Path("runs/answered/results.jsonl").read_text().splitlines()
    row = json.loads(line)
    assert (row["id"], row["prompt"], row["response"], row["status"]) == ("q1", "What is 2+2?", "4", "error")
    assert json.loads(Path("runs/answered/manifest.json").read_text())["source"]["importer"] == "answers"


@pytest.mark.slow
def test_sandboxes_hook(demo, bench_cli, bench_suite_file):
    if os.system("unshare --map-root-user --net true 2>/dev/null") != 0:
        pytest.skip("unshare cannot make a user and network namespace here")
    suite = bench_suite_file(
        """
        target:
          type: command
          command: [python3, -c, "import os, socket; socket.create_connection(('127.0.0.1', 9), 1)"]
          sandbox: {type: offline}
        tasks: [{id: a, prompt: p, evaluate: {expected: x}}]
        """
    )
    result = bench_cli("run", suite, "-q", "-o", "out.json", "--runs-dir", "runs")
    assert result.exit_code == 3, result.output  # the task is an error: the program failed
    [task] = json.loads(Path("out.json").read_text())["tasks"]
    assert task["error"].endswith("OSError: [Errno 101] Network is unreachable"), task["error"]


@pytest.mark.slow
def test_bench_plugins_lists_what_each_plugin_registered(demo, bench_cli, monkeypatch):
    monkeypatch.setenv("BENCH_PLUGINS", "bench-core,bench-hooks-demo")
    result = bench_cli("plugins")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout == (
        "bench-core 0.1.0 (entry point 'core')\n"
        "  hooks: bench_register_targets, bench_register_reporters, bench_register_suite_loaders,\n"
        "    bench_register_executors, bench_register_importers, bench_register_sandboxes\n"
        "  targets: recorded, echo, python, command, litellm\n"
        "  reporters: json, jsonl, csv, junit, markdown, html\n"
        "  suite loaders: bench\n"
        "  executors: local\n"
        "  importers: bench\n"
        "  sandboxes: container\n"
        "bench-hooks-demo 1.2.3 (entry point 'evaluators')\n"
        "  hooks: bench_register_evaluators\n"
        "  evaluators: shouting\n"
        "bench-hooks-demo 1.2.3 (entry point 'executors')\n"
        "  hooks: bench_register_executors\n"
        "  executors: serial\n"
        "bench-hooks-demo 1.2.3 (entry point 'importers')\n"
        "  hooks: bench_register_importers\n"
        "  importers: answers\n"
        "bench-hooks-demo 1.2.3 (entry point 'reporters')\n"
        "  hooks: bench_register_reporters\n"
        "  reporters: pass-count\n"
        "bench-hooks-demo 1.2.3 (entry point 'sandboxes')\n"
        "  hooks: bench_register_sandboxes\n"
        "  sandboxes: offline\n"
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
def test_a_clash_fails_only_the_suites_that_use_the_name(clash, bench_cli, bench_suite_file):
    fine = bench_suite_file("tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n", name="fine.yaml")
    result = bench_cli("run", fine, "-q")
    assert result.exit_code == 0, result.output
    assert result.stderr == f"warning: {BROKEN}\n"

    clashing = bench_suite_file(
        "tasks:\n  - {id: a, response: X, evaluate: shouting}\n", name="clashing.yaml"
    )
    result = bench_cli("validate", clashing)
    assert result.exit_code == 2
    assert result.stderr == (
        f"warning: {BROKEN}\n"
        "error: evaluator type 'shouting' is registered by two distributions: "
        "bench-hooks-demo and bench-clash-demo; uninstall one of them\n"
    )


@pytest.fixture
def clash_all(sites: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """bench-hooks-demo and bench-clash-all are installed (found in that order)."""
    yield from _on_path(monkeypatch, sites["clash-all"], sites["demo"])


def _clash(kind: str, name: str) -> str:
    return (
        f"error: {kind} type '{name}' is registered by two distributions: "
        "bench-hooks-demo and bench-clash-all; uninstall one of them\n"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("file", "text", "args", "error"),
    [
        ("suite.yaml", "tasks:\n  - {id: a, response: X, evaluate: shouting}\n", (),
         _clash("evaluator", "shouting")),
        ("suite.yaml", "target: {type: reverse}\ntasks:\n  - {id: a, prompt: ab, evaluate: {expected: ba}}\n",
         (), _clash("target", "reverse")),
        ("suite.yaml", "tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n",
         ("--report", "pass-count=count.txt"), _clash("reporter", "pass-count")),
        # only the second provider of "lines" (bench-clash-all's) claims .other files
        ("smoke.other", "ping\n", (), _clash("suite loader", "lines")),
        ("smoke.lines", "ping\n", (), _clash("suite loader", "lines")),
    ],
    ids=["evaluator", "target", "reporter", "suite-loader-second-claims", "suite-loader-first-claims"],
)  # fmt: skip
def test_a_clashing_name_fails_what_uses_it(clash_all, bench_cli, tmp_path, file, text, args, error):
    (tmp_path / file).write_text(text)
    result = bench_cli("run", file, "-q", *args)
    assert (result.exit_code, result.stderr) == (2, error), result.output
    assert not (tmp_path / "count.txt").exists()


@pytest.mark.slow
def test_a_clash_does_not_fail_suites_that_do_not_use_the_name(clash_all, bench_cli, bench_suite_file):
    fine = bench_suite_file("tasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n")
    result = bench_cli("run", fine, "-q", "--report", "json=out.json")
    assert (result.exit_code, result.stderr) == (0, ""), result.output


BAD_CLASSES = [
    "plugin 'bad' from bench-bad-demo failed to load: bench-bad-demo registered <class 'object'> "
    "as an evaluator, but it is not a subclass of bench.evaluator.Evaluator; skipped",
    "plugin 'bad' from bench-bad-demo failed to load: bench-bad-demo registered an evaluator "
    "with an invalid name 'bad name'; skipped",
]


@pytest.fixture
def bad(sites: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """bench-hooks-demo and bench-bad-demo are installed."""
    yield from _on_path(monkeypatch, sites["bad"], sites["demo"])


@pytest.mark.slow
def test_bench_plugins_lists_a_bad_registration_as_a_failure(bad, bench_cli, monkeypatch):
    monkeypatch.setenv("BENCH_PLUGINS", "bench-bad-demo,evaluators")
    result = bench_cli("plugins")
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    assert result.stdout == (
        "bench-bad-demo 1.2.3 (entry point 'bad')\n"
        "  hooks: bench_register_evaluators\n"
        "  evaluators: whisper\n"
        "bench-hooks-demo 1.2.3 (entry point 'evaluators')\n"
        "  hooks: bench_register_evaluators\n"
        "  evaluators: shouting\n"
        "\n"
        "failed to load:\n"
        f"  {BAD_CLASSES[0]}\n"
        f"  {BAD_CLASSES[1]}\n"
    )


@pytest.mark.slow
def test_a_bad_registration_skips_only_that_class(bad, bench_cli, bench_suite_file):
    suite = bench_suite_file(
        """
        tasks:
          - {id: quiet, response: hello, evaluate: whisper}
          - {id: loud, response: HELLO, evaluate: [shouting, {expected: HELLO}]}
        """
    )
    result = bench_cli("run", suite, "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    assert result.stderr == "".join(f"warning: {line}\n" for line in BAD_CLASSES)
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    assert [[e["type"] for e in t["evaluators"]] for t in tasks] == [["whisper"], ["shouting", "expected"]]
