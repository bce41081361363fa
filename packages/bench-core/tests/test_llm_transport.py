"""The direct HTTP path for OpenAI-compatible providers: which models take it, the same request
body and cost as litellm, and no litellm import where no call needs it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from bench.llm.accounting import Prices
from bench.llm.client import LLMClient
from bench.llm.providers.credentials import litellm_missing_keys
from bench.llm.providers.routes import TRANSPORT_ENV, is_direct, route
from bench.llm.request import LLMRequest
from bench.llm.settings import LLMSettings, Pricing
from bench.llm.verdict import supports_tools
from bench.testing import FakeLLMServer, Reply
from bench.vocabulary.errors import ConfigError


@pytest.mark.parametrize(
    ("model", "direct"),
    [
        ("openai/gpt-4o-mini", True),
        ("hosted_vllm/llama", True),
        ("openai/o3-mini", False),  # litellm rewrites max_tokens and temperature for these
        ("openai/gpt-5", False),
        ("gpt-4o-mini", False),  # no provider prefix: litellm guesses the provider
        ("anthropic/claude-3-5-sonnet", False),
        ("azure/gpt-4o", True),  # a deployment litellm sends through its plain chat config
        ("azure/o1-preview", False),
        ("groq/llama3-8b-8192", True),
        ("openrouter/openai/gpt-4o", True),
        ("together_ai/meta-llama/Llama-3-8b", True),
        ("deepseek/deepseek-chat", True),
        ("ollama_chat/llama3", False),
    ],
)
def test_which_models_take_the_direct_path(model, direct):
    assert is_direct(model) is direct
    assert is_direct(model, "litellm") is False


def test_the_environment_forces_litellm(monkeypatch):
    monkeypatch.setenv(TRANSPORT_ENV, "litellm")
    assert is_direct("openai/gpt-4o-mini") is False
    monkeypatch.setenv(TRANSPORT_ENV, "httpx")
    with pytest.raises(ConfigError, match=r"^BENCH_LLM_TRANSPORT='httpx': expected one of auto, litellm$"):
        is_direct("openai/gpt-4o-mini")


def test_a_bad_transport_in_the_environment_stops_the_run_before_it_starts(
    bench_cli, bench_suite_file, monkeypatch
):
    bench_suite_file(
        "name: t\ntarget: {type: litellm, model: openai/m}\ntasks:\n  - {id: a, prompt: hi, evaluate: {type: contains, value: x}}\n"
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv(TRANSPORT_ENV, "httpx")
    result = bench_cli("run", "suite.yaml", "-q")
    assert result.exit_code == 2
    assert result.stderr == "error: BENCH_LLM_TRANSPORT='httpx': expected one of auto, litellm\n"


def test_a_bad_transport_setting_is_refused():
    with pytest.raises(ValueError, match="Input should be 'auto' or 'litellm'"):
        LLMSettings.model_validate({"transport": "httpx"})


def test_the_route_resolves_base_and_key_as_litellm_does(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_BASE", "http://proxy/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert route("openai/gpt-4o", None, None).url == "http://proxy/v1/chat/completions"
    assert route("openai/gpt-4o", "http://x/v1", "sk-given").api_key == "sk-given"
    assert route("hosted_vllm/m", "http://vllm/v1", None).api_key == "fake-api-key"
    monkeypatch.delenv("HOSTED_VLLM_API_BASE", raising=False)
    with pytest.raises(
        ValueError, match=r"^hosted_vllm/m: hosted_vllm needs api_base \(or HOSTED_VLLM_API_BASE\)$"
    ):
        route("hosted_vllm/m", None, None)


@pytest.mark.parametrize("model", ["gpt-4o-mini", "openai/gpt-4o", "openai/gpt-3.5-turbo", "gpt-4"])
def test_prices_come_from_litellm_map_without_importing_it(model):
    from bench.llm.providers.litellm_import import load_litellm

    litellm = load_litellm()
    expected = sum(litellm.cost_per_token(model=model, prompt_tokens=1000, completion_tokens=500))
    assert Prices(Pricing()).cost(model, 1000, 500) == pytest.approx(expected)


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "openai/fake", "hosted_vllm/fake"])
def test_function_calling_support_matches_litellm(model):
    from bench.llm.providers.litellm_import import load_litellm

    try:
        expected = bool(load_litellm().supports_function_calling(model=model))
    except Exception:
        expected = False
    assert supports_tools(model) is expected


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "hosted_vllm/fake"])
@pytest.mark.parametrize("key", [None, "sk-set"])
def test_missing_keys_match_litellm(model, key, monkeypatch):
    from bench.llm.providers.litellm_import import load_litellm

    for name in ("OPENAI_API_KEY", "HOSTED_VLLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    if key:
        monkeypatch.setenv("OPENAI_API_KEY", key)
    found = load_litellm().validate_environment(model=model)
    expected = [n for n in found.get("missing_keys") or [] if not n.endswith("_API_BASE")]
    assert litellm_missing_keys(model) == expected


REQUESTS = [
    LLMRequest(
        "openai/fake", [{"role": "user", "content": "hi"}], {"temperature": 0.0, "max_tokens": 9, "seed": 1}
    ),
    LLMRequest(
        "openai/fake", [{"role": "user", "content": "json"}], {"response_format": {"type": "json_object"}}
    ),
    LLMRequest(
        "openai/fake",
        [{"role": "user", "content": "tool"}],
        {
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
            "tool_choice": {"type": "function", "function": {"name": "f"}},
        },
    ),
    LLMRequest("openai/fake", [{"role": "user", "content": "stream"}], {"stop": ["x"]}, stream=True),
    LLMRequest("hosted_vllm/fake", [{"role": "user", "content": "vllm"}], {"top_p": 0.5}),
]


def _bodies(transport: str, monkeypatch) -> list[tuple[dict, object]]:
    monkeypatch.setenv(TRANSPORT_ENV, transport)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer() as server:
        server.default = lambda body: Reply("ok", prompt_tokens=3, completion_tokens=2)
        client = LLMClient(LLMSettings(cache=False))

        async def go() -> list:
            out = []
            for request in REQUESTS:
                request.api_base = server.url
                result = await client.complete(request)
                out.append(
                    (result.text, result.finish_reason, result.usage.input_tokens, result.usage.output_tokens)
                )
            await client.aclose()
            return out

        results = asyncio.run(go())
        return [
            (json.loads(json.dumps(r.body)), res) for r, res in zip(server.requests, results, strict=True)
        ]


def test_the_direct_path_sends_what_litellm_sends(monkeypatch):
    assert _bodies("auto", monkeypatch) == _bodies("litellm", monkeypatch)


def _imports_litellm(code: str) -> bool:
    probe = f"{code}\nimport sys\nprint('litellm' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return proc.stdout.strip().splitlines()[-1] == "True"


def test_bench_help_does_not_import_litellm():
    assert not _imports_litellm(
        "from typer.testing import CliRunner\nfrom bench.cli import app\nCliRunner().invoke(app, ['--help'])"
    )


@pytest.mark.parametrize("args", [["--dry-run"], [], ["--no-cache"]])
def test_a_run_of_openai_compatible_models_never_imports_litellm(args, tmp_path):
    with FakeLLMServer() as server:
        suite = tmp_path / "suite.yaml"
        suite.write_text(
            f"target: {{type: litellm, model: openai/fake, api_base: '{server.url}'}}\n"
            "tasks:\n  - {id: a, prompt: hello, evaluate: {expected: x}}\n"
        )
        run = f"CliRunner().invoke(app, ['run', {str(suite)!r}, '--runs-dir', {str(tmp_path / 'runs')!r}, *{args!r}])"
        code = f"import os\nos.environ['OPENAI_API_KEY'] = 'sk-test'\nfrom typer.testing import CliRunner\nfrom bench.cli import app\n{run}\n{run}"
        assert not _imports_litellm(code)
        assert len(server.requests) == (
            0 if args == ["--dry-run"] else 2 if args else 1
        )  # the re-run is cached


def test_verbose_logs_each_direct_call_without_its_key(tmp_path):
    secret, key = "qs-1f2e3d4c5b6a", "sk-canary-0a9b8c7d6e5f"
    with FakeLLMServer() as server:
        suite = tmp_path / "suite.yaml"
        suite.write_text(
            f"target: {{type: litellm, model: openai/fake, api_base: '{server.url}?key={secret}'}}\n"
            "tasks:\n  - {id: a, prompt: hello, evaluate: {expected: x}}\n"
        )
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench",
                "run",
                str(suite),
                "--verbose",
                "--runs-dir",
                str(tmp_path / "r"),
            ],
            env={**os.environ, "OPENAI_API_KEY": key},
            capture_output=True,
            text=True,
            timeout=120,
        )
    # The query (where the key is) is cut, so the path after it goes too.
    assert f"bench.llm.providers.direct DEBUG: POST {server.url} model=fake stream=False" in proc.stderr
    assert secret not in proc.stderr + proc.stdout
    assert key not in proc.stderr + proc.stdout
