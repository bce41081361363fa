"""N42: a template error in a promptfoo var is refused as one in a prompt is: exit 2, naming the
test and the var, with Jinja's reason (never an internal error with a traceback)."""

from __future__ import annotations

import json

import pytest

CONFIG = """\
prompts: ["Say {{q}}"]
providers: [echo]
tests:
  - description: greeting
    vars:
      x: 1
      q: "TEMPLATE"
"""


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("{{ x | nosuch }}", "No filter named 'nosuch'."),
        ("{{ x ", "unexpected end of template, expected 'end of print statement'."),
        (
            "{% if x %}a",
            "Unexpected end of template. Jinja was looking for the following tags: 'elif' or 'else' or "
            "'endif'. The innermost block that needs to be closed is 'if'.",
        ),
    ],
    ids=["unknown-filter", "syntax-error", "unclosed-if"],
)
def test_n42_a_var_whose_template_fails_exits_2_naming_the_test_and_the_var(
    bench_cli, tmp_path, template, reason
):
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG.replace("TEMPLATE", template))
    result = bench_cli("validate", "promptfooconfig.yaml")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: promptfooconfig.yaml: greeting: var 'q': cannot render template '{template}': {reason}\n"
    )


RENDERED_FILE = """\
prompts: ["Echo {{q}}", '[{"role": "user", "content": "Chat {{q}} {{greet}}"}]']
providers: [echo]
tests:
  - description: rendered
    vars: {name: data, greet: "Hi {{ name | upper }}", q: "{{ 'file://' ~ name }}.txt", u: "Hi {{ nobody }}"}
"""


def _responses(bench_cli, tmp_path, config: str) -> list[str]:
    (tmp_path / "promptfooconfig.yaml").write_text(config)
    (tmp_path / "data.txt").write_text("hello\n")
    result = bench_cli("run", "promptfooconfig.yaml", "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    return [task["response"] for task in json.loads((tmp_path / "out.json").read_text())["tasks"]]


def test_a_var_rendered_into_a_file_reference_is_sent_as_written(bench_cli, tmp_path):
    # promptfoo reads a var's file before it renders the vars: the rendered reference is text
    text, _ = _responses(bench_cli, tmp_path, RENDERED_FILE)
    assert text == "Echo file://data.txt"


def test_a_var_naming_an_undefined_name_is_left_as_written(bench_cli, tmp_path):
    # promptfoo's referencesUndefinedVariables: such a var is not rendered (bench sent "Say Hi ")
    (text,) = _responses(
        bench_cli,
        tmp_path,
        RENDERED_FILE.replace("{{q}}", "{{u}}").split(", '[")[0]
        + """]
providers: [echo]
tests:
  - description: undefined
    vars: {u: "Hi {{ nobody }}"}
""",
    )
    assert text == "Echo Hi {{ nobody }}"


def test_a_json_prompt_renders_var_values_as_written(bench_cli, tmp_path):
    # promptfoo's renderVarsInObject renders the prompt's strings over the vars unrendered
    _, chat = _responses(bench_cli, tmp_path, RENDERED_FILE)
    assert json.loads(chat) == [
        {"role": "user", "content": "Chat {{ 'file://' ~ name }}.txt Hi {{ name | upper }}"}
    ]
