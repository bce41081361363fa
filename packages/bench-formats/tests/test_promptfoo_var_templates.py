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
            "{% for a in x %}a",
            "Unexpected end of template. Jinja was looking for the following tags: 'endfor' or 'else'. "
            "The innermost block that needs to be closed is 'for'.",
        ),
        ("{{ nope() }}", "'nope' is undefined"),
    ],
    ids=["unknown-filter", "syntax-error", "unclosed-for", "undefined-call"],
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
prompts: ["Echo {{q}}"]
providers: [echo]
tests:
  - description: rendered
    vars: {name: NAME, q: "{{ 'file://' ~ name }}.txt"}
    assert: [{type: contains, value: hello}]
"""


def test_n42_a_var_rendered_into_a_file_reference_reads_it_from_the_configs_folder(bench_cli, tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "promptfooconfig.yaml").write_text(RENDERED_FILE.replace("NAME", "data"))
    (tmp_path / "sub" / "data.txt").write_text("hello from sub\n")
    (tmp_path / "data.txt").write_text("hello from the working directory\n")
    result = bench_cli("run", "sub/promptfooconfig.yaml", "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    (task,) = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert task["response"] == "Echo hello from sub"


def test_n42_a_var_rendered_into_a_missing_file_is_one_line(bench_cli, tmp_path):
    (tmp_path / "promptfooconfig.yaml").write_text(RENDERED_FILE.replace("NAME", "nothere"))
    result = bench_cli("validate", "promptfooconfig.yaml")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "error: test 'rendered' var 'q' reads file://nothere.txt: cannot read nothere.txt: "
        "No such file or directory\n"
    )
