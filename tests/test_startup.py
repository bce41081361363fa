"""What `bench run` pays before its first task: an offline run reads the attribute
docstrings of the settings types its suite uses, not of every installed type (pydantic's
``use_attribute_docstrings`` read them all at import: about 60 ms), imports neither litellm
nor aiohttp (the direct path's HTTP client, 0.1 s), and imports no evaluator, target, reporter
or format class its suite does not use (a third of a one-task run's CPU), nor the machinery of
features it does not use (batches, calibration, the live progress bar, .env files)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

SUITE = "tasks:\n  - {id: a, response: 'Paris', evaluate: {expected: Paris}}\n"
#: Modules of classes the suite does not use (its untyped ``{expected: ...}`` names one type).
UNUSED = [
    "bench_deterministic.text",  # the other evaluator types, and the judge that infers from prompt:
    "bench_llm_judge.judges",
    "bench_formats.promptfoo.checks",  # the format packages' evaluators
    "bench.execution.targets.command",  # targets and reporters the run does not use
    "bench.report.reporters.html",
    "bench.llm.batch.collector",  # the batch machinery: no model of the suite is set to batch
    "bench.judging.calibrate",  # the calibration gate's judges: the suite has no bar
    "rich.progress",  # the live bar: stderr is not a terminal
    "rich._emoji_codes",  # bench prints no :emoji: codes
    "dotenv",  # no .env file to read
    "multiprocessing",  # the killable workers' pool: no evaluator of the suite sends work there
    "filelock",  # the run folder's lock is fcntl.flock (POSIX); only labels and Windows need filelock
]
RUN = """
import atexit, sys

def report():
    print("UNUSED", [name for name in UNUSED_MODULES if name in sys.modules])
    from bench.vocabulary.documented import _classes_in
    from bench.plugins.registry import get_registry

    configs = {p.cls.Config for p in get_registry().evaluators.values()}
    described = sorted(
        f"{c.__module__}.{c.__qualname__}"
        for c in configs
        if any(f.description for f in c.model_fields.values())
    )
    print("TYPES", len(configs) > 20, "DESCRIBED", described, "READ", _classes_in.cache_info().currsize)
    print("LITELLM", "litellm" in sys.modules, "AIOHTTP", "aiohttp" in sys.modules)
    import gc
    print("GC", gc.isenabled(), gc.get_threshold(), gc.get_freeze_count() > 10_000)

atexit.register(report)
from bench.cli import main
sys.argv = ["bench", "run", "suite.yaml", "-q", "--runs-dir", "runs"]
main()
""".replace("UNUSED_MODULES", repr(UNUSED))


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What a one-task offline ``bench run`` reports at exit (one process for the tests here)."""
    folder = tmp_path_factory.mktemp("startup")
    (folder / "suite.yaml").write_text(SUITE)
    done = subprocess.run(
        [sys.executable, "-c", RUN], cwd=folder, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_offline_run_imports_no_class_its_suite_does_not_use(offline_run: str):
    assert "UNUSED []\n" in offline_run


def test_an_offline_run_reads_only_the_docstrings_of_the_types_it_uses(offline_run: str):
    # Two source files read: bench-deterministic's expected.py and bench's llm/settings.py (the
    # suite's ``llm:`` settings, built at import), of the thirty-odd that define settings.
    assert (
        "TYPES True DESCRIBED ['bench_deterministic.expected.ExpectedConfig'] READ 2\n"
        "LITELLM False AIOHTTP False\n"
    ) in offline_run


def test_an_offline_run_collects_garbage_again_once_start_up_is_frozen(offline_run: str):
    # `bench run` holds the collector back through start-up, then freezes what start-up made.
    assert offline_run.endswith("GC True (50000, 50, 100) True\n")


def test_a_command_is_parsed_alone_as_among_all_the_others():
    """``bench NAME`` builds only NAME's parameters (``app_for``): each command's are those the
    whole app builds, and ``bench run --help`` reads the same; a line naming no command gets
    the whole app."""
    from typer.main import get_command, get_command_name
    from typer.testing import CliRunner

    from bench.cli import app, app_for

    whole = get_command(app).commands  # type: ignore[attr-defined]
    names = [info.name or get_command_name(info.callback.__name__) for info in app.registered_commands]
    assert len(names) > 10
    for name in names:
        alone = get_command(app_for([name, "x"])).commands  # type: ignore[attr-defined]
        assert list(alone) == [name]
        assert [p.opts for p in alone[name].params] == [p.opts for p in whole[name].params]
    runner = CliRunner()
    shown = runner.invoke(app_for(["run"]), ["run", "--help"], prog_name="bench")
    assert shown.exit_code == 0, shown.output
    assert shown.output == runner.invoke(app, ["run", "--help"], prog_name="bench").output
    for argv in ([], ["--help"], ["cache", "info"], ["runn"]):
        assert app_for(argv) is app
