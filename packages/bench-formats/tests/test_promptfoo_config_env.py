"""promptfoo's load-time ``{{ env.NAME }}`` rendering of a config (docs/formats/promptfoo.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_promptfoo_config import load, write

CONFIG = """
env:
  MODEL: '{{ env.PFENV_MODEL }}-x'
  TEMPERATURE: 0.5
prompts: ['Hi {{ topic }} [{{ env.PFENV_UNSET }}]']
providers:
  - id: 'openai:chat:{{ env.MODEL }}'
    env: {OWN: 'http://own.invalid'}
    config: {temperature: '{{ env.TEMPERATURE }}', apiBaseUrl: '{{ env.OWN }}/v1'}
defaultTest:
  options:
    provider: {id: 'openai:chat:{{ env.MODEL }}', config: {seed: '{{ env.PFENV_UNSET }}'}}
tests:
  - vars: {topic: '{{ env.MODEL }}', kept: '{{ vars.other }}'}
    assert:
      - type: llm-rubric
        value: '{{ env.MODEL }}|{{ env.PFENV_UNSET }}|{{ env.PFENV_UNSET | default("d") }}|{{ topic }}'
        provider: {id: 'openai:chat:{{ env.MODEL }}'}
"""


def test_env_templates_render_all_over_the_config_as_it_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Grader settings, provider ids and configs, vars and values: every ``{{ env.NAME }}`` whose
    name is set is rendered as promptfoo's ``readConfig`` renders it (the config's ``env:`` first,
    over the process environment; a provider's own ``env:`` for that provider); an unset name
    stays as written unless a filter handles it, and so do ``{{ vars }}`` tags."""
    monkeypatch.setenv("PFENV_MODEL", "m")
    monkeypatch.delenv("PFENV_UNSET", raising=False)
    data, _ = load(write(tmp_path, "promptfooconfig.yaml", CONFIG))
    assert data["target"] == {
        "type": "litellm",
        "model": "openai/m-x",
        "temperature": "0.5",
        "api_base": "http://own.invalid/v1",
    }
    [task] = data["tasks"]
    assert task["metadata"]["vars"] == {"topic": "m-x", "kept": "{{ vars.other }}"}
    assert task["metadata"]["prompt"] == "Hi {{ topic }} [{{ env.PFENV_UNSET }}]"
    [evaluator] = task["evaluators"]
    assert evaluator["options"]["provider"] == {
        "id": "openai:chat:m-x",
        "config": {"seed": "{{ env.PFENV_UNSET }}"},
    }
    [check] = evaluator["assert"]
    assert check["provider"] == {"id": "openai:chat:m-x"}
    assert check["value"] == "m-x||d|m-x"  # the unset name rendered empty at test time


def test_a_config_env_value_renders_over_the_process_environment_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """promptfoo's first pass renders ``env:`` values over the process environment alone, so a value
    naming another ``env:`` value keeps that tag; the prompt renders it once more at test time, a var
    does not (promptfoo 0.121.20 gave this prompt and var)."""
    monkeypatch.setenv("PFENV_MODEL", "m")
    monkeypatch.delenv("PFENV_UNSET", raising=False)
    config = """
    env: {A: '{{ env.PFENV_MODEL }}', B: '{{ env.A }}'}
    prompts: ['{{ env.B }} ; {{ env.PFENV_UNSET }} ; {{ env.PFENV_UNSET | default("d") }}']
    providers: [echo]
    tests:
      - vars: {x: '{{ env.B }}'}
    """
    data, _ = load(write(tmp_path, "promptfooconfig.yaml", config))
    [task] = data["tasks"]
    assert (task["prompt"], task["metadata"]["vars"]) == ("m ;  ; d", {"x": "{{ env.A }}"})


def test_a_checks_provider_renders_with_its_own_env_and_from_a_tests_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """promptfoo renders a grading provider again when a check loads it (``getGradingProvider``):
    with the provider's own ``env:`` on top, and in a tests file, which the config load never
    rendered (the config-env conformance case shows both in the requests promptfoo sent)."""
    monkeypatch.setenv("PFENV_MODEL", "m")
    write(
        tmp_path,
        "tests.yaml",
        """
        - vars: {topic: a}
          options: {provider: 'openai:chat:{{ env.PFENV_MODEL }}-file'}
          assert:
            - type: llm-rubric
              value: ok
              provider: {id: 'openai:chat:{{ env.OWN }}', env: {OWN: own}, config: {seed: '{{ env.OWN }}'}}
        """,
    )
    data, _ = load(
        write(
            tmp_path,
            "promptfooconfig.yaml",
            "prompts: ['{{ topic }}']\nproviders: [echo]\ntests: file://tests.yaml\n",
        )
    )
    [evaluator] = data["tasks"][0]["evaluators"]
    assert evaluator["options"]["provider"] == "openai:chat:m-file"
    assert evaluator["assert"][0]["provider"] == {
        "id": "openai:chat:own",
        "env": {"OWN": "own"},
        "config": {"seed": "own"},
    }


def test_a_null_or_boolean_config_env_value_renders_as_javascript_prints_it(tmp_path: Path):
    """Nunjucks prints a null as '' and a boolean as 'true' (Python would print 'None', 'True')."""
    config = """
    env: {EMPTY: null, ON: true, N: 3}
    prompts: ['[{{ env.EMPTY }}] [{{ env.ON }}] [{{ env.N }}]']
    providers: [echo]
    tests: [{vars: {}}]
    """
    data, _ = load(write(tmp_path, "promptfooconfig.yaml", config))
    [task] = data["tasks"]
    assert task["prompt"] == "[] [true] [3]"
