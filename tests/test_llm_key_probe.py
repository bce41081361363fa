"""The first calls' key probe (RELIABILITY C14): on the direct path, an authenticated ``GET
/models`` goes beside the first completions, which need not wait for it; a refusal (the probe's
or a call's) cuts the calls in flight, so a refused key is one error and one round of requests."""

from __future__ import annotations

import asyncio
import json
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bench.llm.client import LLMClient
from bench.llm.providers import direct
from bench.llm.providers.direct import DirectTransport
from bench.llm.providers.routes import route
from bench.llm.request import LLMRequest
from bench.testing import run_suite
from bench.testing.pytest_plugin import CANARY_KEY
from bench.testing.server import Fault, Reply

LATENCY = 0.3
#: Completions answer after this, so the probe beside the first one is surely sent before that
#: answer cancels it (an instant answer would make counting probes a race).
SLOW_ENOUGH = 0.1


@pytest.fixture
def direct_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_LLM_TRANSPORT", "auto")


def _suite(bench_suite_file, tasks: int, extra: str = "") -> Path:
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'question {i}', evaluate: {{expected: echo}}}}\n" for i in range(tasks)
    )
    return bench_suite_file(f"target: {{type: litellm, model: openai/fake}}\n{extra}tasks:\n{rows}")


def _arrivals(bench_fake_llm) -> list[float]:
    return sorted(r.at for r in bench_fake_llm.requests if r.path == "/v1/chat/completions")


@pytest.mark.usefixtures("direct_path")
def test_c14_a_good_key_starts_the_first_calls_together(bench_suite_file, bench_fake_llm):
    bench_fake_llm.latency_s = LATENCY
    outcome = run_suite(_suite(bench_suite_file, tasks=8), concurrency=8)
    assert [t["status"] for t in outcome.report.tasks()] == ["passed"] * 8
    arrivals = _arrivals(bench_fake_llm)
    assert len(arrivals) == 8
    # Without the probe the first call goes alone: the other seven come 0.3 s after it.
    assert arrivals[-1] - arrivals[0] < LATENCY * 2 / 3
    assert bench_fake_llm.max_in_flight == 8
    (probe,) = bench_fake_llm.probe_requests
    assert probe.path == "/v1/models"
    assert probe.headers["authorization"] == f"Bearer {CANARY_KEY}"
    llm = outcome.report.extra["llm"]
    assert (llm["calls"], llm["attempts"]) == (8, 8)  # the probe is not an attempt
    assert bench_fake_llm.count() == 8


@pytest.mark.usefixtures("direct_path")
@pytest.mark.parametrize("models_status", [200, 404])
def test_c14_a_refused_key_at_concurrency_4_is_one_error_and_one_round_of_requests(
    bench_cli, bench_suite_file, bench_fake_llm, models_status
):
    bench_fake_llm.add(Fault(401, message="Incorrect API key provided"))
    bench_fake_llm.latency_s = SLOW_ENOUGH
    bench_fake_llm.models_status = models_status  # 404: no probe to say it, the first refusal does
    result = bench_cli("run", _suite(bench_suite_file, tasks=20), "-j", "4", "-o", "out.json")
    assert result.exit_code == 3, result.output
    assert 1 <= bench_fake_llm.count() <= 4  # the first calls went beside the probe; none after the refusal
    assert bench_fake_llm.probes() == 1
    report = json.loads(Path("out.json").read_text())
    (errored,) = [t for t in report["tasks"] if t["status"] == "error"]
    assert errored["error"] == (
        "401 from openai/fake after 1 attempt: Incorrect API key provided (the key in OPENAI_API_KEY was refused)"
    )
    assert report["llm"]["attempts"] == bench_fake_llm.count()  # what the provider received
    assert "/models" not in result.output


@pytest.mark.usefixtures("direct_path")
@pytest.mark.parametrize("status", [404, 405, 500])
def test_c14_a_server_without_a_models_route_leaves_the_key_to_the_first_answers(
    bench_cli, bench_suite_file, bench_fake_llm, status
):
    bench_fake_llm.models_status = status
    bench_fake_llm.latency_s = LATENCY
    result = bench_cli("run", _suite(bench_suite_file, tasks=8), "-j", "8", "-o", "out.json")
    assert result.exit_code == 0, result.output
    arrivals = _arrivals(bench_fake_llm)
    assert arrivals[-1] - arrivals[0] < LATENCY * 2 / 3  # none waited for another's answer
    assert bench_fake_llm.max_in_flight == 8
    assert bench_fake_llm.probes() == 1
    assert "/models" not in result.output  # the probe's failure is never reported
    assert "probe" not in result.output


@pytest.mark.usefixtures("direct_path")
def test_a_probe_slower_than_a_completion_holds_no_call_back(bench_suite_file, bench_fake_llm):
    bench_fake_llm.latency_s = LATENCY
    bench_fake_llm.models_latency_s = LATENCY * 2  # a model list can take longer than a short answer
    outcome = run_suite(_suite(bench_suite_file, tasks=8), concurrency=8)
    assert [t["status"] for t in outcome.report.tasks()] == ["passed"] * 8
    arrivals = _arrivals(bench_fake_llm)
    assert arrivals[-1] - arrivals[0] < LATENCY * 2 / 3
    assert bench_fake_llm.max_in_flight == 8
    assert bench_fake_llm.probes() == 1


def test_fake_servers_model_list_is_shaped_like_openais_and_takes_a_round_trip(bench_fake_llm):
    bench_fake_llm.latency_s = 0.2
    request = urllib.request.Request(bench_fake_llm.url + "/models", headers={"Authorization": "Bearer k"})
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=5) as response:
        body = json.loads(response.read())
    assert time.monotonic() - started >= 0.2
    assert body["object"] == "list"
    assert {"id": "fake", "object": "model", "created": 1686935002, "owned_by": "openai"} in body["data"]
    assert all(set(m) == {"id", "object", "created", "owned_by"} for m in body["data"])


@pytest.mark.usefixtures("direct_path")
def test_one_probe_per_provider_and_key_variable_not_per_call_or_attempt(bench_fake_llm, monkeypatch):
    monkeypatch.setenv("OTHER_KEY", "sk-other-1")
    bench_fake_llm.latency_s = SLOW_ENOUGH
    bench_fake_llm.add(Fault(503), match="retried", times=1)

    async def calls() -> LLMClient:
        client = LLMClient()
        try:
            requests = [LLMRequest("openai/fake", [{"role": "user", "content": f"q {i}"}]) for i in range(3)]
            requests.append(LLMRequest("openai/fake", [{"role": "user", "content": "retried"}]))
            requests.append(
                LLMRequest("openai/fake", [{"role": "user", "content": "x"}], api_key_env="OTHER_KEY")
            )
            requests.append(
                LLMRequest("openai/fake", [{"role": "user", "content": "y"}], api_key_env="OTHER_KEY")
            )
            await asyncio.gather(*(client.complete(r) for r in requests))
        finally:
            await client.aclose()
        return client

    client = asyncio.run(calls())
    keys = sorted(p.headers["authorization"] for p in bench_fake_llm.probe_requests)
    assert keys == [f"Bearer {CANARY_KEY}", "Bearer sk-other-1"]
    assert client.totals.attempts == bench_fake_llm.count() == 7
    assert client.totals.calls == 6


@pytest.mark.usefixtures("direct_path")
def test_g08_a_cached_run_and_a_dry_run_make_no_probe(bench_cli, bench_suite_file, bench_fake_llm):
    bench_fake_llm.latency_s = SLOW_ENOUGH
    path = _suite(bench_suite_file, tasks=3)
    assert bench_cli("run", path, "--dry-run").exit_code == 0
    assert bench_fake_llm.probes() == 0
    assert bench_cli("run", path, "-o", "first.json").exit_code == 0
    assert (bench_fake_llm.probes(), bench_fake_llm.count()) == (1, 3)
    assert bench_cli("run", path, "-o", "again.json").exit_code == 0
    assert (bench_fake_llm.probes(), bench_fake_llm.count()) == (1, 3)


def test_the_litellm_path_makes_no_probe(bench_suite_file, bench_fake_llm, monkeypatch):
    monkeypatch.setenv("BENCH_LLM_TRANSPORT", "litellm")
    outcome = run_suite(_suite(bench_suite_file, tasks=2), concurrency=2)
    assert [t["status"] for t in outcome.report.tasks()] == ["passed"] * 2
    assert bench_fake_llm.count() == 2
    assert bench_fake_llm.probes() == 0


def _the_probe(bench_suite_file, bench_fake_llm, model: str) -> Any:
    """The one probe a one-task run of ``model`` against the fake server sent (the task passed)."""
    bench_fake_llm.latency_s = SLOW_ENOUGH
    path = bench_suite_file(
        f"target: {{type: litellm, model: {model}, api_base: '{bench_fake_llm.url}'}}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: echo}}\n"
    )
    (task,) = run_suite(path).report.tasks()
    assert task["status"] == "passed", task.get("error")
    (probe,) = bench_fake_llm.probe_requests
    return probe


@pytest.mark.usefixtures("direct_path")
def test_openrouter_is_probed_at_its_key_endpoint_with_its_headers(
    bench_suite_file, bench_fake_llm, monkeypatch
):
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test-1")
    probe = _the_probe(bench_suite_file, bench_fake_llm, "openrouter/some/model")
    assert probe.path == "/v1/key"  # its /models answers any key
    assert probe.headers["authorization"] == "Bearer sk-or-test-1"
    assert probe.headers["x-title"] == "liteLLM"


@pytest.mark.usefixtures("direct_path")
def test_azure_is_probed_at_its_model_list_with_its_api_key_header(
    bench_suite_file, bench_fake_llm, monkeypatch
):
    for name in ("AZURE_OPENAI_API_KEY", "AZURE_API_VERSION", "AZURE_AD_TOKEN", "AZURE_OPENAI_AD_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AZURE_API_KEY", "az-test-key-1")
    probe = _the_probe(bench_suite_file, bench_fake_llm, "azure/my-deployment")
    assert probe.path == "/v1/openai/models?api-version=2024-10-21"
    assert probe.headers["api-key"] == "az-test-key-1"
    assert "authorization" not in probe.headers
    (call,) = bench_fake_llm.requests
    assert call.path == "/v1/openai/deployments/my-deployment/chat/completions?api-version=2025-02-01-preview"


@pytest.mark.parametrize(
    ("model", "api_base", "probe"),
    [
        ("openai/gpt-4o", None, "https://api.openai.com/v1/models"),
        ("openai/fake", "http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1/models"),
        ("hosted_vllm/m", "http://vllm:8000/v1", "http://vllm:8000/v1/models"),
        ("groq/llama", None, "https://api.groq.com/openai/v1/models"),
        ("together_ai/m", None, "https://api.together.ai/v1/models"),
        ("openrouter/a/b", None, "https://openrouter.ai/api/v1/key"),
        ("deepseek/deepseek-chat", None, "https://api.deepseek.com/models"),
        (
            "deepseek/deepseek-chat",
            "https://api.deepseek.com/v1/chat/completions",
            "https://api.deepseek.com/v1/models",
        ),
        # Azure's data-plane "Models - List", which needs the api-key (GA api-version 2024-10-21).
        (
            "azure/d",
            "https://r.openai.azure.com/",
            "https://r.openai.azure.com/openai/models?api-version=2024-10-21",
        ),
    ],
)
def test_each_provider_has_a_probe_that_needs_the_key(model, api_base, probe):
    assert route(model, api_base, "sk-x").probe == probe


def test_fake_server_refuses_the_probe_while_a_refusal_would_answer_every_completion(bench_fake_llm):
    bench_fake_llm.add(Reply("fine"), match="special")
    bench_fake_llm.add(Fault(403, message="Forbidden"), times=1)

    def get() -> int:
        request = urllib.request.Request(
            bench_fake_llm.url + "/models", headers={"Authorization": "Bearer k"}
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return exc.code

    def post() -> int:
        body = json.dumps({"model": "fake", "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(
            bench_fake_llm.url + "/chat/completions", body, {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return exc.code

    assert (get(), get()) == (403, 403)  # a probe does not use up the rule's times
    assert post() == 403
    assert (get(), post()) == (200, 200)
    assert (bench_fake_llm.probes(), bench_fake_llm.count()) == (3, 2)


def test_a_probe_that_gets_no_answer_gives_up_after_its_timeout(monkeypatch):
    monkeypatch.setattr(direct, "PROBE_TIMEOUT", 0.3)
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        where = route("openai/fake", f"http://127.0.0.1:{silent.getsockname()[1]}/v1", "sk-x")

        async def probe() -> tuple[bool, float]:
            transport = DirectTransport(timeout=30)
            started = time.monotonic()
            try:
                return await transport.probe(where), time.monotonic() - started
            finally:
                await transport.aclose()

        proven, took = asyncio.run(probe())
    assert proven is False
    assert 0.25 < took < 3
