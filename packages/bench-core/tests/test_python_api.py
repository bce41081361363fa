"""bench.load, bench.run and bench.arun: the same run as ``bench run``, from Python,
printing nothing, exiting never, and leaving signal handlers alone outside the main thread."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import bench
from bench.testing import write_suite

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

SUITE = """\
name: api
target: {type: echo}
tasks:
  - {id: hello, prompt: "Hello, world", evaluate: {expected: "Hello"}}
  - {id: sorry, prompt: "Sorry, no.", evaluate: {type: not-regex, value: "(?i)sorry"}}
"""


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return write_suite(tmp_path, SUITE)


def test_run_returns_the_results_and_prints_nothing(suite: Path, capsys: pytest.CaptureFixture[str]):
    result = bench.run(suite, runs_dir=suite.parent / "runs")
    assert capsys.readouterr() == ("", "")
    assert (result.summary.total, result.summary.passed, result.summary.failed) == (2, 1, 1)
    assert result.passed is False
    assert result.interrupted is False
    assert result.stopped is None
    assert result.folder == suite.parent / "runs" / result.run_id
    assert (result.folder / "results.jsonl").is_file()
    assert [(t.id, t.status) for t in result] == [("hello", "passed"), ("sorry", "failed")]
    [failed] = [t for t in result.results if not t.passed]
    assert (failed.evaluators[0].type, failed.evaluators[0].passed) == ("regex", False)


def test_run_takes_a_string_path_and_the_cli_defaults(suite: Path):
    result = bench.run("suite.yaml", repeat=2, concurrency=1, cache=False)
    assert result.folder == Path(".bench") / "runs" / result.run_id
    assert [t.id for t in result] == ["hello", "hello", "sorry", "sorry"]
    assert [t.repeat for t in result] == [0, 1, 0, 1]


def test_select_runs_the_chosen_tasks(suite: Path):
    result = bench.run(suite, select=bench.Selection(keyword="sorry"))
    assert [t.id for t in result] == ["sorry"]
    assert result.summary.not_run == 0


def test_resume_finishes_a_run_in_the_same_folder(suite: Path):
    first = bench.run(suite)
    again = bench.run(suite, resume=first.run_id)
    assert (again.run_id, again.summary.total) == (first.run_id, 2)


def test_load_validates_without_running(suite: Path):
    loaded = bench.load(suite, repeat=2)
    assert (loaded.name, loaded.target, len(loaded)) == ("api", "echo", 4)
    assert loaded.task_ids == ("hello", "hello@1", "sorry", "sorry@1")
    assert loaded.template_warnings == ()
    assert not (suite.parent / ".bench").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"concurrency": 0}, "concurrency must be a whole number of at least 1, got 0"),
        ({"repeat": "2"}, "repeat must be a whole number of at least 1, got '2'"),
        ({"concurrency": True}, "concurrency must be a whole number of at least 1, got True"),
    ],
)
def test_bad_options_are_config_errors(suite: Path, options: dict[str, Any], message: str):
    with pytest.raises(bench.ConfigError) as caught:
        bench.run(suite, **options)
    assert str(caught.value) == message


def test_an_unknown_option_is_a_type_error_naming_the_options(suite: Path):
    with pytest.raises(TypeError) as caught:
        bench.run(suite, concurency=2)  # type: ignore[call-arg]
    assert str(caught.value) == (
        "unexpected keyword argument 'concurency' (the options: address, allow_outside_root, batch, "
        "batch_retry_live, cache, chunk, concurrency, detach, dotenv, env_files, executor, executor_options, keep_workspaces, offline, progress, repeat, "
        "require_calibration, resume, runs_dir, select, shared_cache, target, vars, workers)"
    )


def test_workers_and_chunk_are_whole_numbers(suite: Path):
    with pytest.raises(bench.ConfigError) as caught:
        bench.run(suite, executor="local", workers=0)
    assert str(caught.value) == "workers must be a whole number of at least 1, got 0"
    with pytest.raises(bench.ConfigError) as caught:
        bench.run(suite, chunk=True)
    assert str(caught.value) == "chunk must be a whole number of at least 1, got True"


def test_a_missing_suite_and_an_unknown_run_are_bench_errors(suite: Path):
    with pytest.raises(bench.ConfigError) as missing:
        bench.load("missing.yaml")
    assert str(missing.value) == "missing.yaml: no such file"
    with pytest.raises(bench.BenchError) as unknown:
        bench.run(suite, resume="nope", runs_dir="runs")
    assert str(unknown.value) == "no run 'nope' in runs (runs found: none)"


def test_a_runs_error_is_not_chained_to_the_check_for_a_running_loop(suite: Path):
    # Its traceback said "During handling of the above exception ... no running event loop".
    with pytest.raises(bench.BenchError) as unknown:
        bench.run(suite, resume="nope", runs_dir="runs")
    assert not isinstance(unknown.value.__context__, RuntimeError)


def test_a_prompt_with_braces_is_a_warning_not_a_print(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = write_suite(
        tmp_path,
        """\
        target: {type: echo}
        tasks:
          - {id: t, prompt: "Say {{word}}", vars: {word: hi}, evaluate: {expected: Say}}
        """,
    )
    assert bench.load(path).template_warnings
    with pytest.warns(UserWarning, match="word"):
        bench.run(path, runs_dir=tmp_path / "runs")
    assert capsys.readouterr() == ("", "")


def _signal_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The signals bench's run (not asyncio.run, which handles SIGINT itself) takes over."""
    from bench.execution.interrupts import StopOnSignal

    calls: list[int] = []
    real = signal.signal

    def record(sig: int, handler: Any) -> Any:
        if isinstance(getattr(handler, "__self__", None), StopOnSignal):
            calls.append(sig)
        return real(sig, handler)

    monkeypatch.setattr(signal, "signal", record)
    return calls


def test_run_in_the_main_thread_stops_on_ctrl_c_like_the_cli(suite: Path, monkeypatch: pytest.MonkeyPatch):
    calls = _signal_calls(monkeypatch)
    bench.run(suite)
    assert signal.SIGINT in calls


def test_run_in_another_thread_installs_no_signal_handler(suite: Path, monkeypatch: pytest.MonkeyPatch):
    calls = _signal_calls(monkeypatch)
    results: list[bench.RunResult] = []
    worker = threading.Thread(target=lambda: results.append(bench.run(suite)))
    worker.start()
    worker.join()
    assert results[0].summary.total == 2
    assert calls == []


def test_arun_runs_on_the_callers_loop_without_signal_handlers(suite: Path, monkeypatch: pytest.MonkeyPatch):
    calls = _signal_calls(monkeypatch)

    async def main() -> tuple[bench.RunResult, bool]:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        ticker = asyncio.ensure_future(tick())
        result = await bench.arun(suite)
        ticker.cancel()
        return result, ticks > 0

    result, shared = asyncio.run(main())
    assert result.summary.passed == 1
    assert shared, "the caller's other tasks ran while the suite ran"
    assert calls == []


def test_run_inside_a_running_loop_works_like_a_notebook_cell(suite: Path, monkeypatch: pytest.MonkeyPatch):
    calls = _signal_calls(monkeypatch)

    async def cell() -> bench.RunResult:
        return bench.run(suite)

    assert asyncio.run(cell()).summary.total == 2
    assert calls == []


def test_errors_in_the_worker_thread_reach_the_caller(tmp_path: Path):
    async def cell() -> bench.RunResult:
        return bench.run(tmp_path / "missing.yaml")

    with pytest.raises(bench.ConfigError) as caught:
        asyncio.run(cell())
    assert str(caught.value) == f"{tmp_path / 'missing.yaml'}: no such file"


def test_bench_run_stays_callable_once_the_run_package_is_imported(suite: Path):
    import bench.pipeline.options

    assert callable(bench.run)
    assert bench.pipeline.options.DEFAULT_CONCURRENCY == 8
    assert bench.run(suite).summary.total == 2


def test_import_bench_loads_no_part_of_the_api(tmp_path: Path):
    code = "import sys, bench\nprint(sorted(m for m in sys.modules if m.startswith('bench')))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "['bench', 'bench.vocabulary', 'bench.vocabulary.version']", done.stderr


def test_vars_and_env_files_reach_the_tasks_as_in_bench_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BENCH_API_GREETING", "placeholder")
    monkeypatch.delenv("BENCH_API_GREETING")  # pytest restores the variable the env file sets
    (tmp_path / "extra.env").write_text("BENCH_API_GREETING=hello\n")
    path = tmp_path / "vars.yaml"
    path.write_text(
        "target: {type: echo}\n"
        "vars: {who: suite}\n"
        "tasks:\n"
        "  - {id: t, prompt: '${BENCH_API_GREETING} {who}', evaluate: {expected: 'hello api'}}\n"
    )
    result = bench.run(
        path, vars={"who": "api"}, env_files=[tmp_path / "extra.env"], runs_dir=tmp_path / "runs"
    )
    assert result.passed
    assert next(iter(result)).response == "hello api"


def test_arun_loads_the_suite_without_blocking_the_callers_loop(suite: Path, monkeypatch: pytest.MonkeyPatch):
    import bench.pipeline.loading

    started, released = threading.Event(), threading.Event()

    def slow_load(*args: Any, **kwargs: Any) -> Any:
        started.set()
        # Only a coroutine on the caller's loop sets this: a load on that loop would wait here in vain.
        if not released.wait(5):
            raise AssertionError("the suite was loaded on the caller's loop, blocking it")
        raise bench.ConfigError("loaded in a worker thread")

    monkeypatch.setattr(bench.pipeline.loading, "load_suite", slow_load)

    async def main() -> None:
        async def release() -> None:
            while not started.is_set():
                await asyncio.sleep(0.01)
            released.set()

        releaser = asyncio.ensure_future(release())
        with pytest.raises(bench.ConfigError, match="loaded in a worker thread"):
            await bench.arun(suite)
        await releaser

    asyncio.run(main())
