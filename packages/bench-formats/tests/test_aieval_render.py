"""AI Eval's prompt rendering (render.go) and how a case's prompt reaches the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import bench
from bench.testing import load_suite
from bench_formats.aieval.gotemplate import go_format
from bench_formats.aieval.loader import AIEvalLoader
from bench_formats.aieval.render import RenderError, render


def prompt(template: str, variables: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    filled = [{"name": "", "required": False, "default": "", **v} for v in variables or []]
    return {"name": "p", "template": template, "variables": filled}


def test_mustache_names_are_replaced_first_then_go_actions():
    # {{TOPIC}} is a plain replacement; {{.count}} goes through text/template (int printed by %v).
    text = render(prompt("{{TOPIC}}: {{.count}} {{lower}}"), {"TOPIC": "math", "count": 3, "lower": "x"})
    assert text == "math: 3 x"


def test_defaults_fill_in_and_required_variables_must_be_given():
    p = prompt("{{.lang}}/{{.diff}}", [{"name": "lang", "default": "go"}, {"name": "diff", "required": True}])
    assert render(p, {"diff": "d"}) == "go/d"
    with pytest.raises(RenderError) as caught:
        render(p, {"lang": "rust"})
    assert str(caught.value) == 'prompt: missing required variable "diff"'


def test_if_else_and_range():
    p = prompt("{{if .items}}{{range .items}}[{{.}}]{{end}}{{else}}none{{end}}")
    assert render(p, {"items": ["a", "b"]}) == "[a][b]"
    assert render(p, {"items": []}) == "none"


def test_trim_markers_and_comments():
    assert render(prompt("a  {{- /* note */ -}}  b {{.x}}"), {"x": "!"}) == "ab !"
    # No `{{.`, `{{range` or `{{if` in the text: Go's template never runs, the text is sent as is.
    assert render(prompt("a  {{- .x}}"), {"x": "!"}) == "a  {{- .x}}"


def test_missingkey_error_is_gos_message():
    with pytest.raises(RenderError) as caught:
        render(prompt("line one\n  {{.nope}}"), {})
    assert str(caught.value) == (
        'prompt: render template: template: p:2:4: executing "p" at <.nope>: map has no entry for key "nope"'
    )


def test_unclosed_if_is_gos_parse_error():
    with pytest.raises(RenderError) as caught:
        render(prompt("{{if .x}}yes"), {"x": True})
    assert str(caught.value) == "prompt: parse template: template: p:1: unexpected EOF"


def test_unbalanced_delimiters_without_go_actions():
    with pytest.raises(RenderError) as caught:
        render(prompt("{{ name"), {})
    assert str(caught.value) == 'prompt: unmatched "{{"'
    assert render(prompt("{{ name }}"), {}) == "{{ name }}"  # balanced text stays as written


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.5, "1.5"),
        (1000000.0, "1e+06"),
        (123456.0, "123456"),
        (0.00001, "1e-05"),
        (True, "true"),
        (None, "<nil>"),
        ([1, "a"], "[1 a]"),
        ({"b": 2, "a": 1}, "map[a:1 b:2]"),
    ],
)
def test_values_print_as_go_fmt(value: Any, text: str):
    assert go_format(value) == text


def _project(tmp_path: Path, prompt_yaml: str, suite_yaml: str, config: str | None = None) -> Path:
    for folder in ("prompts", "tests"):
        (tmp_path / folder).mkdir()
    (tmp_path / "prompts" / "p.yaml").write_text(prompt_yaml)
    if config is not None:
        (tmp_path / "configs").mkdir()
        (tmp_path / "configs" / "config.yaml").write_text(config)
    path = tmp_path / "tests" / "s.yaml"
    path.write_text(suite_yaml)
    return path


def test_a_system_prompt_sends_user_task_as_the_user_message(tmp_path: Path):
    path = _project(
        tmp_path,
        "name: p\nis_system_prompt: true\ntemplate: 'Route {n} jobs for {{USER}}'\n"
        "variables: [{name: USER, default: ann}]\n",
        "suite: s\nprompt: p\ncases:\n"
        "  - {id: with_task, input: {user_task: 'fix {x}'}, expected: {contains: [ok]}}\n"
        "  - {id: without, input: {}, expected: {contains: [ok]}}\n",
    )
    (path.parent / "a.jsonl").write_text(
        "\n".join(json.dumps({"id": i, "response": "ok"}) for i in ("with_task", "without"))
    )
    outcome = bench.run(path, target={"type": "recorded", "file": "a.jsonl"}, runs_dir=tmp_path / "runs")
    sent = {t["id"]: t["messages"] for t in outcome.report.tasks()}
    # The braces of `{n}` and `{x}` reach the model as written (bench's own placeholders are escaped).
    assert sent["with_task"] == [
        {"role": "system", "content": "Route {n} jobs for ann"},
        {"role": "user", "content": "fix {x}"},
    ]
    assert sent["without"][1] == {
        "role": "user",
        "content": "Please process this request according to your instructions.",
    }


def test_the_configs_provider_becomes_a_litellm_target(tmp_path: Path):
    path = _project(
        tmp_path,
        "name: p\ntemplate: hi\ntools: [{name: git, description: run git, input_schema: {type: object}}]\n",
        "suite: s\nprompt: p\ncases:\n  - {id: a, input: {}, expected: {contains: [ok]}}\n",
        config="llm:\n  default_provider: openai\n  providers:\n    openai: {model: gpt-4o, base_url: 'http://127.0.0.1:9/v1'}\n"
        "evaluation: {trials: 1, threshold: 0.8}\n",
    )
    assert AIEvalLoader().load(path).data["target"] == {
        "type": "litellm",
        "model": "openai/gpt-4o",
        "api_base": "http://127.0.0.1:9/v1",
        "api_key_env": "OPENAI_API_KEY",
        "max_tokens": 4096,
        "tools": [
            {
                "type": "function",
                "function": {"name": "git", "description": "run git", "parameters": {"type": "object"}},
            }
        ],
    }


def test_config_trials_and_threshold_become_repeats_judged_by_pass_at_k(tmp_path: Path):
    path = _project(
        tmp_path,
        "name: p\ntemplate: hi\n",
        "suite: s\nprompt: p\ncases:\n  - {id: a, input: {}, expected: {contains: [ok]}}\n"
        "  - {id: b, trials: 1, input: {}, expected: {contains: [ok]}}\n",
        config="evaluation: {trials: 2}\n",
    )
    plan = load_suite(path, target={"type": "echo"})
    assert plan.template_warnings == []
    # evaluation.threshold is absent from the config: 0, so every case passes (as in AI Eval)
    assert plan.pass_at_k == {"a": 0.0, "b": 0.0}
    assert [t.task.id for t in plan.tasks].count("a") == 2
    assert [t.task.id for t in plan.tasks].count("b") == 1


def test_judges_ask_the_runs_model_and_repeated_types_get_distinct_names(tmp_path: Path):
    path = _project(
        tmp_path,
        "name: p\ntemplate: hi\n",
        "suite: s\nprompt: p\ncases:\n  - id: a\n    input: {}\n    expected: {contains: [x]}\n"
        "    evaluators: [{type: contains}, {type: contains, score_threshold: 0.5}, {type: llm_judge, criteria: good}]\n",
        config="llm:\n  default_provider: claude\n  providers:\n    claude: {model: claude-sonnet-4-5}\n"
        "evaluation: {trials: 1, threshold: 0.8}\n",
    )
    (task,) = AIEvalLoader().load(path).data["tasks"]
    assert task["evaluate"] == [
        {"type": "contains", "name": "contains", "value": ["x"], "tool_calls_section": True},
        {
            "type": "contains",
            "name": "contains#2",
            "value": ["x"],
            "tool_calls_section": True,
            "threshold": 0.5,
        },
        {
            "type": "llm_judge",
            "name": "llm_judge",
            "model": "anthropic/claude-sonnet-4-5",
            "api_key_env": "ANTHROPIC_API_KEY",
            "criteria": "good",
        },
    ]
