"""Runs with the shared second level of the response cache and one call per
key in flight (seam 6), against the loopback fake server."""

from __future__ import annotations

import asyncio
import itertools
import json
import shlex
import uuid
from pathlib import Path

import pytest

from bench.llm.client import LLMClient
from bench.llm.request import LLMRequest
from bench.llm.settings import LLMSettings
from bench.testing import run_suite, write_suite
from bench.testing.server import Reply

# Every test here runs on both paths of the LLM client (the root conftest.py).
pytestmark = pytest.mark.usefixtures("llm_transport")


def _suite(folder, tasks: int = 3, *, same_prompt: bool = False, extra: str = "") -> object:
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'question {0 if same_prompt else i}', evaluate: [{{type: contains, value: question}}]}}\n"
        for i in range(tasks)
    )
    return write_suite(
        folder, f"name: shared\ntarget: {{type: litellm, model: openai/fake}}\n{extra}tasks:\n{rows}"
    )


@pytest.mark.parametrize("kind", ["file", "memory"])
def test_a_warm_run_with_an_empty_local_cache_makes_no_call(tmp_path, bench_fake_llm, kind):
    url = (tmp_path / "l2").as_uri() if kind == "file" else f"memory://runs-{uuid.uuid4().hex}"
    suite = _suite(tmp_path)
    cold = run_suite(suite, shared_cache=url, cache_path=tmp_path / "one" / "llm.sqlite3")
    assert cold.report.summary.passed == 3
    assert bench_fake_llm.count() == 3
    if kind == "file":
        assert len(list((tmp_path / "l2").glob("*/*.json"))) == 3
    warm = run_suite(suite, shared_cache=url, cache_path=tmp_path / "two" / "llm.sqlite3")
    assert bench_fake_llm.count() == 3  # answered from L2
    assert warm.report.extra["llm"]["cached"] == 3
    assert [t["response"] for t in warm.report.tasks()] == [t["response"] for t in cold.report.tasks()]
    # ... and that run filled its own L1: no L2 needed now.
    again = run_suite(suite, cache_path=tmp_path / "two" / "llm.sqlite3")
    assert again.report.extra["llm"]["cached"] == 3
    assert bench_fake_llm.count() == 3


def test_an_existing_local_cache_still_hits_with_a_shared_cache_set(tmp_path, bench_fake_llm):
    suite = _suite(tmp_path)
    run_suite(suite)  # L1 only, as before the shared cache existed
    assert bench_fake_llm.count() == 3
    warm = run_suite(suite, shared_cache=(tmp_path / "l2").as_uri())
    assert warm.report.extra["llm"]["cached"] == 3
    assert bench_fake_llm.count() == 3
    assert not (tmp_path / "l2").exists()  # an L1 hit writes nothing to L2


def test_the_environment_names_the_shared_cache(bench_cli, tmp_path, bench_fake_llm, monkeypatch):
    url = (tmp_path / "team").as_uri()
    monkeypatch.setenv("BENCH_SHARED_CACHE", url)
    suite = _suite(tmp_path)
    assert bench_cli("run", suite, "-q").exit_code == 0
    assert len(list((tmp_path / "team").glob("*/*.json"))) == 3
    text = bench_cli("cache", "info").stdout
    assert text.endswith(f"shared:  {url}\n")
    assert '"shared_cache": "' + url + '"' in bench_cli("cache", "info", "--json").stdout


def test_the_option_wins_over_the_environment(bench_cli, tmp_path, bench_fake_llm, monkeypatch):
    monkeypatch.setenv("BENCH_SHARED_CACHE", (tmp_path / "from-env").as_uri())
    result = bench_cli("run", _suite(tmp_path), "-q", "--shared-cache", str(tmp_path / "from-option"))
    assert result.exit_code == 0, result.output
    assert len(list((tmp_path / "from-option").glob("*/*.json"))) == 3
    assert not (tmp_path / "from-env").exists()


def test_no_cache_leaves_the_shared_cache_alone(bench_cli, tmp_path, bench_fake_llm):
    result = bench_cli("run", _suite(tmp_path), "-q", "--no-cache", "--shared-cache", str(tmp_path / "l2"))
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "l2").exists()


def test_an_unknown_protocol_is_refused_before_any_call(bench_cli, tmp_path, bench_fake_llm):
    result = bench_cli("run", _suite(tmp_path), "-q", "--shared-cache", "nosuch://bucket/cache")
    assert result.exit_code != 0
    assert "error: --shared-cache nosuch://bucket/cache: Protocol not known: nosuch\n" in result.stderr
    assert bench_fake_llm.count() == 0


def test_g09_a_corrupt_shared_object_is_a_miss_and_the_run_goes_on(tmp_path, bench_fake_llm):
    url = (tmp_path / "l2").as_uri()
    suite = _suite(tmp_path, 1)
    run_suite(suite, shared_cache=url, cache_path=tmp_path / "one" / "llm.sqlite3")
    [stored] = (tmp_path / "l2").glob("*/*.json")
    stored.write_bytes(stored.read_bytes()[:20])  # a torn object
    outcome = run_suite(suite, shared_cache=url, cache_path=tmp_path / "two" / "llm.sqlite3")
    assert outcome.report.summary.passed == 1
    assert bench_fake_llm.count() == 2  # a miss: asked again


@pytest.mark.parametrize("damage", ["{}", '{"text": ["not", "text"]}'])
def test_n43_g09_an_entry_that_is_json_but_no_answer_is_asked_again(tmp_path, bench_fake_llm, capsys, damage):
    url = (tmp_path / "l2").as_uri()
    suite = _suite(tmp_path, 1)
    cold = run_suite(suite, shared_cache=url, cache_path=tmp_path / "one" / "llm.sqlite3")
    [stored] = (tmp_path / "l2").glob("*/*.json")
    stored.write_text(damage)
    capsys.readouterr()
    outcome = run_suite(suite, shared_cache=url, cache_path=tmp_path / "two" / "llm.sqlite3")
    assert outcome.report.summary.passed == 1
    assert bench_fake_llm.count() == 2  # a miss: asked again
    assert [t["response"] for t in outcome.report.tasks()] == [t["response"] for t in cold.report.tasks()]
    assert f"warning: shared cache object {stored} is not a cached answer (" in capsys.readouterr().err
    assert stored.read_text() == damage  # left alone: create-only


def test_identical_requests_in_flight_make_one_call(tmp_path, bench_fake_llm):
    bench_fake_llm.add(Reply("the answer, question", latency_s=0.3))
    outcome = run_suite(_suite(tmp_path, 5, same_prompt=True), concurrency=5)
    assert outcome.report.summary.passed == 5
    assert bench_fake_llm.count() == 1
    assert outcome.report.extra["llm"]["cached"] == 4


def test_repeats_stay_independent_calls(tmp_path, bench_fake_llm):
    bench_fake_llm.add(Reply("the answer, question", latency_s=0.3))
    outcome = run_suite(_suite(tmp_path, 1, extra="repeat: 3\n"), concurrency=3)
    assert len(list(outcome.report.tasks())) == 3
    assert bench_fake_llm.count() == 3  # the repeat index is in the key: three answers, not one


def test_two_clients_racing_on_one_shared_cache_use_the_first_answer(tmp_path, bench_fake_llm):
    numbers = itertools.count()
    bench_fake_llm.add(lambda body: Reply(f"answer {next(numbers)}", latency_s=0.2))
    url = (tmp_path / "l2").as_uri()
    clients = [
        LLMClient(LLMSettings(), cache_path=tmp_path / name / "llm.sqlite3", shared_cache=url)
        for name in ("one", "two")
    ]

    async def race() -> list[str | None]:
        request = LLMRequest("openai/fake", [{"role": "user", "content": "q"}])
        results = await asyncio.gather(*(c.complete(request) for c in clients))
        return [r.text for r in results]

    texts = asyncio.run(race())
    assert bench_fake_llm.count() == 2  # both asked: neither had an answer yet
    assert texts[0] == texts[1]
    assert texts[0] in ("answer 0", "answer 1")
    [stored] = (tmp_path / "l2").glob("*/*.json")
    assert json.loads(stored.read_text())["text"] == texts[0]  # the first writer's answer
    for client in clients:
        client.close()


def _page_blocks() -> tuple[str, str]:
    """docs/llm.md's shared-cache example: its suite and its console session."""
    page = (Path(__file__).resolve().parents[1] / "docs" / "llm.md").read_text()
    section = page.split("### A shared cache", 1)[1].split("\n### ", 1)[0]
    suite = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    console = section.split("```console\n", 1)[1].split("```", 1)[0]
    return suite, console


def test_the_documented_example_runs_as_shown(bench_cli, tmp_path, bench_fake_llm, monkeypatch):
    suite, console = _page_blocks()
    write_suite(tmp_path, suite)
    places = {"/mnt/team/bench-cache": str(tmp_path / "team"), "/tmp/empty-cache": str(tmp_path / "empty")}

    def here(text: str) -> str:
        for shown, real in places.items():
            text = text.replace(shown, real)
        return text

    commands: list[tuple[list[str], list[str]]] = []
    for line in here(console).splitlines():
        if line.startswith("$ "):
            commands.append((shlex.split(line[2:]), []))
        else:
            commands[-1][1].append(line)
    assert len(commands) == 4
    for words, shown in commands:
        if words[0] == "export":
            name, value = words[1].split("=", 1)
            monkeypatch.setenv(name, value)
            continue
        with monkeypatch.context() as scoped:
            while "=" in words[0]:  # VAR=value bench ...
                name, value = words.pop(0).split("=", 1)
                scoped.setenv(name, value)
            assert words[0] == "bench"
            result = bench_cli(*words[1:])
        assert result.exit_code == 0, result.output
        for expected in shown:
            assert expected.removesuffix("...").rstrip() in result.output, (expected, result.output)
    assert bench_fake_llm.count() == 2


def test_the_python_api_takes_the_shared_cache(tmp_path, bench_fake_llm, monkeypatch):
    import bench

    url = f"memory://api-{uuid.uuid4().hex}"
    suite = _suite(tmp_path)
    bench.run(suite, shared_cache=url, runs_dir=tmp_path / "runs")
    assert bench_fake_llm.count() == 3
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "fresh"))  # an empty local cache
    bench.run(suite, shared_cache=url, runs_dir=tmp_path / "runs")
    assert bench_fake_llm.count() == 3
    assert (tmp_path / "fresh" / "llm.sqlite3").is_file()  # and filled the local one


def test_an_executors_worker_client_uses_the_runs_shared_cache(tmp_path, bench_fake_llm, monkeypatch):
    # bench.distributed.plan_client builds a worker's client from ExecutorSettings: --shared-cache reaches it,
    # so a worker with nothing in its own L1 finds the driver's answers in L2.
    from bench.api import load_plan, plan_client
    from bench.executor import ExecutorSettings

    monkeypatch.delenv("BENCH_SHARED_CACHE", raising=False)
    url = (tmp_path / "l2").as_uri()
    suite = _suite(tmp_path, tasks=1)
    run_suite(suite, shared_cache=url, cache_path=tmp_path / "driver" / "llm.sqlite3")
    [stored] = (tmp_path / "l2").glob("*/*.json")
    settings = ExecutorSettings(cache_path=tmp_path / "worker" / "llm.sqlite3", shared_cache=url)
    llm = plan_client(load_plan(suite, {}), settings)
    try:
        assert llm.cache is not None
        hit = asyncio.run(llm.cache.get(stored.stem))
    finally:
        llm.close()
    assert hit == json.loads(stored.read_text())
