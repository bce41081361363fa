"""The promptfoo config loader: the matrix, prompts, rendering, tests and providers (docs/formats/promptfoo.md)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError
from bench.vocabulary import render
from bench_formats.promptfoo.escape import escape
from bench_formats.promptfoo.loader import PromptfooLoader

ECHO = {"type": "echo"}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load(path: Path, target: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[str]]:
    """The native suite data of a config and the loader's warnings."""
    loader = PromptfooLoader()
    if target is not None:
        loader.options = dataclasses.replace(loader.options, target=target)
    doc = loader.load(path)
    return doc.data, loader.warnings


def prompts(data: dict[str, Any]) -> list[str]:
    return [task["prompt"] for task in data["tasks"]]


def assertions(task: dict[str, Any]) -> list[dict[str, Any]]:
    (entry,) = task["evaluators"]
    assert entry["type"] == "promptfoo"
    return entry["assert"]


def _ten_tests() -> str:
    return "\n".join(f"          - vars: {{topic: t{i}}}" for i in range(10))


def test_the_loader_claims_promptfoo_configs_by_name_and_by_keys(tmp_path: Path):
    loader = PromptfooLoader()
    named = write(tmp_path, "promptfooconfig.yaml", "anything: 1\n")
    keyed = write(tmp_path, "evals.yaml", "prompts: [hi]\ntests: [{vars: {a: 1}}]\n")
    with_providers = write(tmp_path, "p.yaml", "prompts: [hi]\nproviders: [echo]\n")
    native = write(tmp_path, "suite.yaml", "target: {type: echo}\ntasks: [{id: a, prompt: hi}]\n")
    prompts_only = write(tmp_path, "other.yaml", "prompts: [hi]\n")
    assert loader.claims(named)
    assert loader.claims(keyed)
    assert loader.claims(with_providers)
    assert not loader.claims(native)
    assert not loader.claims(prompts_only)


def test_prompts_per_provider_make_one_task_per_allowed_pair(tmp_path: Path):
    # ollama-comparison's shape: 2 prompts, 3 providers each allowed one prompt → 10 × 3 = 30
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        f"""
        prompts:
          - {{id: "Short: {{{{topic}}}}", label: short}}
          - {{id: "Long: {{{{topic}}}}", label: long}}
        providers:
          - {{id: echo, label: a, prompts: [short]}}
          - {{id: "openai:chat:gpt-4o-mini", label: b, prompts: [long]}}
          - {{id: "anthropic:messages:claude-3-5-haiku-latest", label: c, prompts: [short]}}
        tests:
{_ten_tests()}
        """,
    )
    data, _ = load(config)
    assert len(data["tasks"]) == 30
    assert [t["target"] for t in data["tasks"][:3]] == ["a", "b", "c"]
    assert data["tasks"][1]["prompt"] == "Long: t0"
    assert data["targets"] == [
        {"label": "a", "type": "echo"},
        {"label": "b", "type": "litellm", "model": "openai/gpt-4o-mini"},
        {"label": "c", "type": "litellm", "model": "anthropic/claude-3-5-haiku-latest"},
    ]
    # --target echo is promptfoo's --providers echo, which IS provider a (id echo), mapping
    # included: 10 × 1 = 10; its target is --target's own, so it stays the suite's one target
    echoed, _ = load(config, ECHO)
    assert [t["prompt"] for t in echoed["tasks"]] == [f"Short: t{i}" for i in range(10)]
    assert "target" not in echoed["tasks"][0]
    assert echoed["target"] == ECHO
    assert "targets" not in echoed
    # by label (b), then by the end of an id after ':' (c): 10 × 1 each, labelled with the
    # --target name so that bench-core keeps that target instead of replacing it
    by_label, _ = load(config, {"type": "b"})
    assert by_label["targets"] == [{"type": "litellm", "model": "openai/gpt-4o-mini", "label": "b"}]
    assert by_label["tasks"][0]["prompt"] == "Long: t0"
    by_suffix, _ = load(config, {"type": "claude-3-5-haiku-latest"})
    assert by_suffix["targets"][0]["model"] == "anthropic/claude-3-5-haiku-latest"
    assert len(by_suffix["tasks"]) == 10
    # a target that names no provider runs every prompt (the mapping dropped): 10 × 2 = 20
    bare, _ = load(config, {"type": "echo", "label": "mine"})
    assert len(bare["tasks"]) == 20
    assert "targets" not in bare
    assert bare["target"] == {"type": "echo", "label": "mine"}
    assert all("target" not in t for t in echoed["tasks"])
    assert prompts(bare)[:2] == ["Short: t0", "Long: t0"]


def test_task_ids_are_readable_unique_and_keep_metadata(tmp_path: Path):
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["Say {{x}}", "Write {{x}}"]
        providers: [echo]
        tests:
          - {description: greet, vars: {x: hi}}
          - {description: greet, vars: {x: yo}}
          - vars: {x: [a, b]}
        """,
    )
    data, _ = load(config)
    ids = [t["id"] for t in data["tasks"]]
    assert ids == [
        "greet/Say {{x}}",
        "greet/Write {{x}}",
        "greet/Say {{x}} #2",
        "greet/Write {{x}} #2",
        "test 3 [1]/Say {{x}}",
        "test 3 [1]/Write {{x}}",
        "test 3 [2]/Say {{x}}",
        "test 3 [2]/Write {{x}}",
    ]
    first = data["tasks"][0]
    assert first["metadata"] == {
        "prompt": "Say {{x}}",
        "provider": "echo",
        "vars": {"x": "hi"},
        "description": "greet",
    }
    assert data["target"] == ECHO


def test_list_valued_vars_expand_cartesianly(tmp_path: Path):
    # multiple-translations: 5 languages × 5 inputs = 25 rows; a list of numbers stays one value
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["{{language}}: {{input}} {{nums}}"]
        providers: [echo]
        tests:
          - vars:
              language: [French, German, Spanish, Italian, Dutch]
              input: [one, two, three, four, five]
              nums: [1, 2]
        """,
    )
    data, _ = load(config)
    assert len(data["tasks"]) == 25
    assert data["tasks"][0]["prompt"] == "French: one 1,2"
    assert data["tasks"][-1]["prompt"] == "Dutch: five 1,2"


@pytest.mark.parametrize(
    ("template", "variables", "expected"),
    [
        ("[{{missing}}]", "{}", "[]"),
        ("[{{missing.deeper}}]", "{}", "[]"),
        ("{{ (style | load).tone }}", """{style: '{"tone": "calm"}'}""", "calm"),
        ("{{a}}", "{a: '{{b}} and {{c}}', b: B, c: C}", "B and C"),
        ("{{a}}|", '{a: "line\\n"}', "line|"),
        ("{{flag}} {{n}}", "{flag: true, n: 3}", "true 3"),
        ("<{{html}}>", "{html: '<b>&'}", "<<b>&>"),
    ],
)
def test_prompts_render_with_nunjucks_rules(tmp_path: Path, template: str, variables: str, expected: str):
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        f"prompts: [{json.dumps(template)}]\nproviders: [echo]\ntests: [{{vars: {variables}}}]\n",
    )
    data, _ = load(config)
    assert prompts(data) == [expected]


def test_a_reference_made_by_rendering_a_var_is_sent_as_written(tmp_path: Path):
    # promptfoo resolves `{{b}}` references before it renders the vars: a → "{{b}}" is sent as
    # that text (promptfoo 0.121.20 echoes `{{b}}`), written for bench's own templates as `{{{b}}}`
    write(tmp_path, "b.txt", "from file\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["{{a}}"]
        providers: [echo]
        tests: [{vars: {a: "{{ '{{' }}b}}", b: file://b.txt}}]
        """,
    )
    data, _ = load(config)
    assert prompts(data) == ["{{{b}}}"]


def test_a_yaml_file_var_renders_as_json_text_with_quotes(tmp_path: Path):
    write(tmp_path, "vars/goal.yaml", "world peace\n")
    write(tmp_path, "vars/obj.yml", "a: 1\nb: [x, y]\n")
    write(tmp_path, "vars/text.md", "\n  some text  \n\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["{{goal}} | {{obj}} | {{text}}"]
        providers: [echo]
        tests: [{vars: {goal: file://vars/goal.yaml, obj: file://vars/obj.yml, text: file://vars/text.md}}]
        """,
    )
    data, _ = load(config)
    assert prompts(data) == ['"world peace" | {"a":1,"b":["x","y"]} | some text']


def test_a_javascript_file_var_is_not_run_and_warns(tmp_path: Path):
    write(tmp_path, "make.js", "module.exports = () => ({output: 'x'});\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: ['{{v}}']\nproviders: [echo]\ntests: [{vars: {v: file://make.js}}]\n",
    )
    data, warnings = load(config)
    marked = f"[not run: file://{tmp_path / 'make.js'}]"
    assert prompts(data) == [marked]
    assert warnings == [
        f"var 'v' is file://{tmp_path / 'make.js'}, which promptfoo runs to compute the value; bench does "
        f"not run code: the var holds '{marked}'"
    ]


def test_a_python_file_var_runs_get_var(tmp_path: Path):
    write(
        tmp_path,
        "make.py",
        "def get_var(name, prompt, context):\n    return {'output': ' ' + name + str(len(prompt)) + '\\n'}\n",
    )
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: ['{{v}}']\nproviders: [echo]\ntests: [{vars: {v: file://make.py}}]\n",
    )
    data, warnings = load(config)
    assert prompts(data) == ["v5"]  # the name and the prompt template's length, trimmed
    assert warnings == []


def test_a_file_var_glob_expands_and_a_missing_one_is_refused(tmp_path: Path):
    write(tmp_path, "docs/a.txt", "A")
    write(tmp_path, "docs/b.txt", "B")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: ['{{doc}}']\nproviders: [echo]\ntests: [{vars: {doc: file://docs/*.txt}}]\n",
    )
    # promptfoo's globSync (glob 13) lists a folder's matches from the last name to the first
    assert prompts(load(config)[0]) == ["B", "A"]
    write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: ['{{doc}}']\nproviders: [echo]\ntests: [{vars: {doc: file://nope.txt}}]\n",
    )
    with pytest.raises(ConfigError) as caught:
        load(config)
    # promptfoo: `No files found for variable ${key} at path ${filePath} in directory ${basePath}`
    assert caught.value.message == f"No files found for variable doc at path nope.txt in directory {tmp_path}"


def test_a_txt_prompt_file_splits_on_dashes_and_labels_each_part(tmp_path: Path):
    write(tmp_path, "prompts.txt", "First {{x}}\n  ---  \n\nSecond {{x}}\n---\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: [file://prompts.txt]
        providers: [{id: echo, prompts: ["prompts.txt: Second {{x}}"]}]
        tests: [{vars: {x: X}}]
        """,
    )
    data, _ = load(config)
    assert prompts(data) == ["Second X"]
    assert data["tasks"][0]["metadata"]["prompt"] == "prompts.txt: Second {{x}}"
    # --target echo is that provider, mapping included; a target naming no provider runs both
    assert prompts(load(config, ECHO)[0]) == ["Second X"]
    assert prompts(load(config, {"type": "echo", "label": "other"})[0]) == ["First X", "Second X"]


def test_prompt_globs_raw_objects_and_the_legacy_mapping(tmp_path: Path):
    write(tmp_path, "p/a.txt", "A {{x}}")
    write(tmp_path, "p/b.txt", "B {{x}}")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts:
          - file://p/*.txt
          - {raw: "R {{x}}", label: raw}
        providers: [{id: echo, prompts: [raw, "p/b.txt"]}]
        tests: [{vars: {x: 1}}]
        """,
    )
    data, _ = load(config)
    assert prompts(data) == ["B 1", "R 1"]
    legacy = write(
        tmp_path,
        "legacy.yaml",
        "prompts: {file://p/a.txt: alpha}\nproviders: [{id: echo, prompts: [alpha]}]\ntests: [{vars: {}}]\n",
    )
    data, _ = load(legacy)
    assert prompts(data) == ["A "]
    assert data["tasks"][0]["metadata"]["prompt"] == "alpha"


def test_a_json_chat_prompt_is_json_stringify_indent_2_under_echo_and_messages_for_a_model(tmp_path: Path):
    # promptfoo keeps a .json prompt as compact JSON (its label too) and renders a JSON prompt
    # as JSON.stringify(renderVarsInObject(parsed, vars), null, 2), whatever the file's layout
    write(
        tmp_path,
        "chat.json",
        '[\n    {"role": "system", "content": "Be {{tone}}."},\n {"role": "user", "content": "Hi! {x}"}]\n',
    )
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: [file://chat.json]\nproviders: ['openai:gpt-4o-mini']\ntests: [{vars: {tone: kind}}]\n",
    )
    data, _ = load(config)
    # bench's own {name} placeholders are escaped: its renderer gives the text back
    assert data["tasks"][0]["input"] == [
        {"role": "system", "content": "Be kind."},
        {"role": "user", "content": "Hi! {{x}}"},
    ]
    assert data["tasks"][0]["metadata"]["prompt"] == (
        'chat.json: [{"role":"system","content":"Be {{tone}}."},{"role":"user","content":"Hi! {x}"}]'
    )
    (task,) = load(config, ECHO)[0]["tasks"]
    assert render(task["prompt"], {}) == (
        '[\n  {\n    "role": "system",\n    "content": "Be kind."\n  },\n'
        '  {\n    "role": "user",\n    "content": "Hi! {x}"\n  }\n]'
    )


@pytest.mark.parametrize(
    "text", ["plain", "{x}", "{{x}}", "{{{x}}}", "{ x }", "{a.b} and {{c.d}}", '{"json": {"k": 1}}', "{}{{}}"]
)
def test_escaped_text_comes_back_unchanged_from_bench_templates(text: str):
    assert render(escape(text), {}) == text


def test_prefix_suffix_and_provider_output(tmp_path: Path):
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["Q: {{q}}"]
        providers: [echo]
        tests:
          - vars: {q: why}
            options: {prefix: "<<", suffix: ">> {{q}}"}
            providerOutput: recorded answer
          - vars: {q: how}
            providerOutput: {a: 1}
        """,
    )
    data, _ = load(config)
    assert prompts(data) == ["<<Q: why>> why", "Q: how"]
    assert [t["response"] for t in data["tasks"]] == ["recorded answer", '{"a":1}']


def test_default_test_merges_as_promptfoo_does(tmp_path: Path):
    write(
        tmp_path,
        "default.yaml",
        """
        vars: {who: default, tone: calm}
        assert: [{type: contains, value: "{{who}}"}]
        threshold: 0.5
        options: {provider: openai:gpt-4o-mini, transform: output.trim()}
        metadata: {team: a, tier: 1}
        """,
    )
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["{{who}} {{tone}}"]
        providers: [echo]
        defaultTest: file://default.yaml
        tests:
          - vars: {who: test}
            assert: [{type: equals, value: "test calm"}]
            options: {transform: output.toUpperCase()}
            metadata: {tier: 2}
          - threshold: 0
        """,
    )
    data, _ = load(config)
    first, second = data["tasks"]
    assert first["prompt"] == "test calm"
    assert first["evaluators"] == [
        {
            "type": "promptfoo",
            "assert": [{"type": "contains", "value": "test"}, {"type": "equals", "value": "test calm"}],
            "test_threshold": 0.5,
            "options": {"provider": "openai:gpt-4o-mini", "transform": "output.toUpperCase()"},
            "vars": {"who": "test", "tone": "calm"},
        }
    ]
    assert first["metadata"]["test"] == {"team": "a", "tier": 2}
    # threshold 0 is the test's own (?? keeps it)
    assert second["evaluators"][0]["test_threshold"] == 0
    assert assertions(second) == [{"type": "contains", "value": "default"}]


def test_default_test_vars_may_be_var_files(tmp_path: Path):
    write(tmp_path, "vars/common.yaml", "tone: calm\nwho: default\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: ['{{who}} {{tone}}']\nproviders: [echo]\ndefaultTest: {vars: vars/*.yaml}\ntests: [{vars: {who: me}}]\n",
    )
    assert prompts(load(config)[0]) == ["me calm"]


def test_a_test_without_assertions_still_gets_the_evaluator(tmp_path: Path):
    config = write(
        tmp_path, "promptfooconfig.yaml", "prompts: [hi]\nproviders: [echo]\ntests: [{vars: {}}]\n"
    )
    (task,) = load(config)[0]["tasks"]
    assert task["evaluators"] == [{"type": "promptfoo", "assert": [], "options": {}, "vars": {}}]


def test_no_tests_runs_each_prompt_once(tmp_path: Path):
    config = write(tmp_path, "promptfooconfig.yaml", "prompts: [hi, 'yo {{x}}']\nproviders: [echo]\n")
    assert prompts(load(config)[0]) == ["hi", "yo "]


def test_assertion_templates_are_followed_through_ref(tmp_path: Path):
    write(tmp_path, "more.yaml", "- vars: {x: b}\n  assert: [{$ref: '#/assertionTemplates/has'}]\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["{{x}}"]
        providers: [echo]
        assertionTemplates:
          has: {type: icontains, value: "{{x}}", metric: M}
        tests:
          - vars: {x: a}
            assert: [{$ref: '#/assertionTemplates/has'}, {type: equals, value: a}]
          - file://more.yaml
        """,
    )
    data, _ = load(config)
    assert assertions(data["tasks"][0]) == [
        {"type": "icontains", "value": "a", "metric": "M"},
        {"type": "equals", "value": "a"},
    ]
    assert assertions(data["tasks"][1]) == [{"type": "icontains", "value": "b", "metric": "M"}]
    write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: [x]\nproviders: [echo]\ntests: [{assert: [{$ref: '#/assertionTemplates/no'}]}]\n",
    )
    with pytest.raises(ConfigError) as caught:
        load(config)
    assert caught.value.message == "'$ref: #/assertionTemplates/no' names nothing in the config"


def test_assertion_values_are_rendered_and_files_read(tmp_path: Path):
    write(tmp_path, "expected.txt", "  Paris \n")
    write(tmp_path, "schema.json", '{"type": "object"}')
    write(tmp_path, "schema.yaml", "type: array\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["{{city}}"]
        providers: [echo]
        tests:
          - vars: {city: Paris}
            assert:
              - {type: equals, value: "{{city}}"}
              - {type: contains-any, value: ["{{city}}", 3]}
              - {type: equals, value: file://expected.txt}
              - {type: is-json, value: file://schema.json}
              - {type: is-json, value: file://schema.yaml}
              - {type: javascript, value: file://check.js}
              - {type: equals, value: file://missing.txt}
              - {type: equals, value: file://data.csv}
              - type: assert-set
                threshold: 0.5
                assert: [{type: contains, value: "{{city}}"}]
        """,
    )
    (task,) = load(config)[0]["tasks"]
    assert assertions(task) == [
        {"type": "equals", "value": "Paris"},
        {"type": "contains-any", "value": ["Paris", 3]},
        {"type": "equals", "value": "Paris"},
        {"type": "is-json", "value": {"type": "object"}},
        {"type": "is-json", "value": {"type": "array"}},
        {"type": "javascript", "value": "file://check.js"},
        {
            "type": "equals",
            "value": "file://missing.txt",
            "error": f"ENOENT: no such file or directory, open '{tmp_path / 'missing.txt'}'",
        },
        {
            "type": "equals",
            "value": "file://data.csv",
            "error": f"Unsupported file type: {tmp_path / 'data.csv'}",
        },
        {"type": "assert-set", "threshold": 0.5, "assert": [{"type": "contains", "value": "Paris"}]},
    ]


def test_tests_from_files_and_globs_load_each_match(tmp_path: Path):
    # separate-test-configs: tests2.yaml named once and matched again by tests/* → loaded twice
    write(tmp_path, "tests/tests1.yaml", "- vars: {x: a}\n- vars: {x: b}\n")
    write(tmp_path, "tests/tests2.yaml", "- vars: ../vars/v*.yaml\n")
    write(tmp_path, "vars/v1.yaml", "x: from-file\ny: 1\n")
    write(tmp_path, "vars/v2.yaml", "y: 2\n")
    write(
        tmp_path, "tests/rows.jsonl", '{"vars": {"x": "j"}}\n\n{"vars": {"x": "k"}, "description": "named"}\n'
    )
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: ["{{x}}{{y}}"]
        providers: [echo]
        tests: [file://tests/tests2.yaml, "file://tests/*"]
        """,
    )
    # as promptfoo 0.121.20 ran it: globs list names last to first (tests2, tests1, rows.jsonl;
    # v2 then v1, so v1's y wins), and tests from a glob get no "Row #N" description
    data, _ = load(config)
    assert prompts(data) == ["from-file1", "from-file1", "a", "b", "j", "k"]
    assert [t["metadata"].get("description") for t in data["tasks"]][4:] == [None, "named"]
    # a lone JSONL path is a standalone file: its tests are described Row #N
    write(tmp_path, "lone.yaml", "prompts: ['{{x}}']\nproviders: [echo]\ntests: file://tests/rows.jsonl\n")
    lone, _ = load(tmp_path / "lone.yaml")
    assert [t["metadata"].get("description") for t in lone["tasks"]] == ["Row #1", "named"]


def test_providers_become_targets(tmp_path: Path):
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: [hi]
        providers:
          - id: openai:chat:gpt-4o-mini
            label: mini
            config: {temperature: 0.1, max_tokens: 50, apiBaseUrl: "http://127.0.0.1:9/v1", seed: 3, stop: END, frequency_penalty: 1}
          - exec:python3 agent.py --fast
          - ollama:chat:llama3
          - litellm:groq/llama-3.1-8b-instant
        tests: [{vars: {}}]
        """,
    )
    data, warnings = load(config)
    assert data["targets"] == [
        {
            "label": "mini",
            "type": "litellm",
            "model": "openai/gpt-4o-mini",
            "temperature": 0.1,
            "max_tokens": 50,
            "api_base": "http://127.0.0.1:9/v1",
            "seed": 3,
            "stop": ["END"],
        },
        {
            "label": "exec:python3 agent.py --fast",
            "type": "command",
            "command": ["python3", "agent.py", "--fast", "{prompt}", "{}", "{}"],
        },
        {"label": "ollama:chat:llama3", "type": "litellm", "model": "ollama_chat/llama3"},
        {
            "label": "litellm:groq/llama-3.1-8b-instant",
            "type": "litellm",
            "model": "groq/llama-3.1-8b-instant",
        },
    ]
    assert warnings == ["provider 'mini': config 'frequency_penalty' has no bench equivalent and is dropped"]


@pytest.mark.parametrize(
    ("provider_id", "model"),
    [
        ("openai:gpt-4o", "openai/gpt-4o"),
        ("openai:chat:gpt-4o", "openai/gpt-4o"),
        ("anthropic:messages:claude-3-5-sonnet-latest", "anthropic/claude-3-5-sonnet-latest"),
        ("azure:chat:my-deployment", "azure/my-deployment"),
        ("vertex:gemini-1.5-pro", "vertex_ai/gemini-1.5-pro"),
        ("bedrock:anthropic.claude-3-haiku-20240307-v1:0", "bedrock/anthropic.claude-3-haiku-20240307-v1:0"),
        ("echo", None),
        ("webhook:http://x", None),
        ("openai:", None),
    ],
)
def test_model_name_maps_provider_ids_to_litellm(provider_id: str, model: str | None):
    from bench_formats.promptfoo.providers import model_name

    assert model_name(provider_id) == model


@pytest.mark.parametrize(
    "value", ["text", "", None, True, False, 3, 2.5, 2.0, [1, "a"], {"k": 1}, "line\n", "{{ not again }}"]
)
def test_plain_references_render_as_jinja_renders_them(value: Any):
    from bench_formats.promptfoo.render import render as nunjucks

    template = "[{{ v }}|{{missing}}|{{v}}]"
    forced = "{% if true %}{% endif %}" + template  # a tag: rendered by Jinja itself
    assert nunjucks(template, {"v": value}) == nunjucks(forced, {"v": value})


TEST_NEEDS = (
    "Test case must contain one of the following properties: assert, vars, options, metadata, "
    "provider, providerOutput, threshold. Instead got: "
)


@pytest.mark.parametrize(
    ("test", "shown"),
    [
        ("{description: named}", '{"description": "named"}'),
        ("{vars: null, threshold: '0.5'}", '{"vars": null, "threshold": "0.5"}'),
        ("{options: '', metadata: 0}", '{"options": "", "metadata": 0}'),
    ],
)
def test_a_test_that_says_nothing_is_refused_even_with_default_vars(tmp_path: Path, test: str, shown: str):
    # promptfoo's readTest checks the test as written, before defaultTest is merged; JavaScript
    # truthiness: null, "" and 0 are empty, and a threshold must be a number
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        f"prompts: [hi]\nproviders: [echo]\ndefaultTest: {{vars: {{x: 1}}}}\ntests: [{test}]\n",
    )
    with pytest.raises(ConfigError) as caught:
        load(config)
    assert str(caught.value) == f"{config}: {TEST_NEEDS}{shown}"


@pytest.mark.parametrize("name", ["rows.json", "rows.jsonl"])
def test_standalone_test_files_whose_rows_say_nothing_are_refused_as_promptfoo_refuses(
    tmp_path: Path, name: str
):
    # promptfoo 0.121.20 reads `tests: file://rows.jsonl` into the config, then checks each test
    # with readTest: rows without vars (a data set's {question, answer}) are refused, not run as
    # hundreds of empty prompts
    rows = [{"question": f"q{n}", "answer": f"a{n}"} for n in range(300)]
    text = json.dumps(rows) if name.endswith(".json") else "".join(json.dumps(r) + "\n" for r in rows)
    write(tmp_path, name, text)
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        f"prompts: ['{{{{question}}}}']\nproviders: [echo]\ntests: file://{name}\n",
    )
    with pytest.raises(ConfigError) as caught:
        load(config)
    assert (
        str(caught.value)
        == f'{config}: {TEST_NEEDS}{{"question": "q0", "answer": "a0", "description": "Row #1"}}'
    )


def test_standalone_test_files_with_vars_still_load(tmp_path: Path):
    write(tmp_path, "rows.jsonl", '{"vars": {"question": "q0"}}\n{"vars": {"question": "q1"}}\n')
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: ['{{question}}']\nproviders: [echo]\ntests: file://rows.jsonl\n",
    )
    assert prompts(load(config)[0]) == ["q0", "q1"]


@pytest.mark.parametrize("test", ["{assert: []}", "{threshold: 0}", "{metadata: {}}"])
def test_an_empty_list_mapping_or_zero_threshold_is_enough(tmp_path: Path, test: str):
    config = write(tmp_path, "promptfooconfig.yaml", f"prompts: [hi]\nproviders: [echo]\ntests: [{test}]\n")
    assert [t["prompt"] for t in load(config)[0]["tasks"]] == ["hi"]


def test_tests_from_a_yaml_glob_are_checked_but_csv_rows_are_not(tmp_path: Path):
    write(tmp_path, "t/a.yaml", "- {description: only}\n")
    config = write(
        tmp_path, "promptfooconfig.yaml", "prompts: [hi]\nproviders: [echo]\ntests: file://t/*.yaml\n"
    )
    with pytest.raises(ConfigError) as caught:
        load(config)
    assert caught.value.message == TEST_NEEDS + '{"description": "only"}'
    write(tmp_path, "t.csv", "__description\nonly\n")
    config = write(
        tmp_path, "promptfooconfig.yaml", "prompts: [hi]\nproviders: [echo]\ntests: file://t.csv\n"
    )
    assert [t["metadata"]["description"] for t in load(config)[0]["tasks"]] == ["only"]


def test_a_yaml_prompt_file_is_compact_json_labelled_with_80_characters(tmp_path: Path):
    # processYamlFile: raw = JSON.stringify(yaml), label = `${path}: ${raw.slice(0, 80)}`;
    # read as js-yaml does, so `yes` stays a string
    write(
        tmp_path,
        "chat.yaml",
        "- role: user\n  content: 'Answer {{q}} with yes or no: ' \n- {role: system, content: yes}\n",
    )
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: [file://chat.yaml]\nproviders: [echo]\ntests: [{vars: {q: x}}]\n",
    )
    (task,) = load(config)[0]["tasks"]
    raw = '[{"role":"user","content":"Answer {{q}} with yes or no: "},{"role":"system","content":"yes"}]'
    assert task["metadata"]["prompt"] == f"chat.yaml: {raw[:80]}"


def test_bench_run_target_by_label_runs_that_provider_and_its_prompts(tmp_path: Path):
    # promptfoo eval --providers first: provider 'first' (its prompt mapping kept); bench-core
    # keeps the target the loader labels 'first' instead of replacing it with {type: first}
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        """
        prompts: [{id: "A {{x}}", label: a}, {id: "B {{x}}", label: b}]
        providers:
          - {id: echo, label: first, prompts: [a]}
          - {id: "openai:gpt-4o-mini", label: second, prompts: [b]}
        tests: [{vars: {x: 1}, assert: [{type: equals, value: A 1}]}]
        """,
    )
    out = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "run", str(config), "--target", "first", "--output", str(out)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,  # the run store (.bench/runs) is made in the working directory
    )
    assert done.returncode == 0, done.stdout + done.stderr
    tasks = json.loads(out.read_text())["tasks"]
    assert [(t["response"], t["passed"]) for t in tasks] == [("A 1", True)]


def test_csv_prompt_files_as_process_csv_prompts_reads_them(tmp_path: Path):
    # a prompt/label table (the label column optional per row), or one prompt per line after an
    # optional `prompt` header when the file has no comma
    write(tmp_path, "table.csv", 'prompt,label\n"Hi {{x}}", greet \n"Bye {{x}}",\n,"no prompt"\n')
    write(tmp_path, "lines.csv", "prompt\nOne {{x}}\n\nTwo {{x}}\n")
    config = write(
        tmp_path,
        "promptfooconfig.yaml",
        "prompts: [file://table.csv, file://lines.csv]\nproviders: [echo]\ntests: [{vars: {x: X}}]\n",
    )
    tasks = load(config)[0]["tasks"]
    assert [(t["metadata"]["prompt"], t["prompt"]) for t in tasks] == [
        ("greet", "Hi X"),
        ("Prompt 2 - Bye {{x}}", "Bye X"),
        ("Prompt 1 - One {{x}}", "One X"),
        ("Prompt 2 - Two {{x}}", "Two X"),
    ]


def test_an_image_var_is_a_data_uri_as_promptfoo_sends_it(tmp_path: Path) -> None:
    # was bare base64: promptfoo's renderPrompt sends a data: URI, its type from the first bytes
    import base64

    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 8
    (tmp_path / "photo.jpg").write_bytes(png)  # a PNG named .jpg: the bytes win, as in promptfoo
    (tmp_path / "plain.webp").write_bytes(b"abc")  # no known signature: the extension's type
    (tmp_path / "clip.mp3").write_bytes(b"ID3")  # audio stays bare base64
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts: ['{{a}}|{{b}}|{{c}}']\nproviders: [echo]\n"
        "tests: [{vars: {a: file://photo.jpg, b: file://plain.webp, c: file://clip.mp3}}]\n"
    )
    (task,) = PromptfooLoader().load(config).data["tasks"]
    encoded = base64.b64encode(png).decode()
    assert task["prompt"] == f"data:image/png;base64,{encoded}|data:image/webp;base64,YWJj|SUQz"
