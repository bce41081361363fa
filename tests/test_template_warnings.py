"""``{{var}}`` in a native suite's prompt is flagged with a hint; rendering is unchanged."""

from __future__ import annotations

import json

SUITE = """\
tasks:
  - id: a
    vars: {question: "2+2?"}
    prompt: "Answer: {{question}}"
    response: "4"
    evaluate: {expected: "4"}
"""


def test_validate_flags_a_var_written_in_double_braces(bench_cli, bench_suite_file):
    path = bench_suite_file(SUITE)
    result = bench_cli("validate", path)
    assert result.stderr == (
        f"warning: {path}:4:5: tasks[0].prompt: '{{{{question}}}}' is sent as the text '{{question}}', "
        "not the value of var 'question': bench's templates write a var as {question} "
        "(ignore this if you meant the text; see docs/suites.md#templates)\n"
    )
    assert result.exit_code == 0


def test_run_warns_on_stderr_and_runs(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    result = bench_cli("run", path, "-q", "-o", "out.json")
    assert result.stderr.startswith(f"warning: {path}:4:5: tasks[0].prompt: '{{{{question}}}}' is sent")
    assert result.exit_code == 0
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["tasks"][0]["id"] == "a"


def test_spaced_braces_dotted_names_and_messages_are_flagged(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """\
        tasks:
          - id: b
            vars: {q: {x: 1}}
            input:
              - {role: user, content: "Q: {{ q.x }}"}
            response: "4"
            evaluate: {expected: "4"}
        """
    )
    result = bench_cli("validate", path)
    assert result.stderr == (
        f"warning: {path}:5:22: tasks[0].input[0].content: '{{{{ q.x }}}}' is sent as the text "
        "'{{ q.x }}', not the value of var 'q': bench's templates write a var as {q.x} "
        "(ignore this if you meant the text; see docs/suites.md#templates)\n"
    )


def test_no_warning_for_single_braces_other_names_or_triple_braces(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """\
        tasks:
          - id: a
            vars: {question: "2+2?"}
            prompt: "{question} {{other}} {{{question}}} {\\"json\\": 1}"
            response: "4"
            evaluate: {expected: "4"}
        """
    )
    result = bench_cli("validate", path)
    assert result.stderr == ""
    assert result.exit_code == 0


def test_many_warnings_are_cut_to_ten_and_a_count(bench_cli, bench_suite_file):
    rows = "".join(
        f'  - {{id: t{i}, vars: {{v: 1}}, prompt: "{{{{v}}}}", response: "1", evaluate: {{expected: "1"}}}}\n'
        for i in range(13)
    )
    path = bench_suite_file("tasks:\n" + rows)
    lines = bench_cli("validate", path).stderr.splitlines()
    assert len(lines) == 11
    assert lines[9].startswith(f"warning: {path}:11:")
    assert lines[10] == "warning: 3 more prompts write a var as {{name}}"


def test_an_evaluator_value_is_filled_from_the_tasks_vars(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(
        """\
        evaluators:
          right_capital: {type: contains, value: "{capital}"}
        tasks:
          - {id: fr, vars: {capital: Paris}, response: "It is Paris.", evaluate: [right_capital]}
          - {id: de, vars: {capital: Berlin}, response: "It is Berlin.", evaluate: [right_capital]}
          - {id: it, vars: {capital: Rome}, response: "It is Milan.", evaluate: {expected: "{capital}"}}
        """
    )
    result = bench_cli("run", path, "-q", "-o", "out.json")
    assert result.stderr == ""
    assert result.exit_code == 1
    tasks = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert [(t["id"], t["passed"], t["evaluators"][0]["reason"]) for t in tasks] == [
        ("fr", True, "found 'Paris'"),
        ("de", True, "found 'Berlin'"),
        ("it", False, "not found: 'Rome'"),
    ]


def test_an_evaluator_value_naming_no_var_or_in_double_braces_is_warned_about(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """\
        evaluators:
          right_capital: {type: contains, value: "{captial}"}
        tasks:
          - id: fr
            vars: {capital: Paris}
            response: "It is Paris."
            evaluate: [right_capital, {type: contains, value: "{{capital}}"}]
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (
        f"warning: {path}:7:16: tasks[0].evaluate[0]: evaluator 'right_capital': value '{{captial}}' "
        "names no var of this task (vars given: capital), so it is compared as written "
        "(see docs/suites.md#templates)\n"
        f"warning: {path}:7:48: tasks[0].evaluate[1].value: '{{{{capital}}}}' is compared as the text "
        "'{capital}', not the value of var 'capital': bench's templates write a var as {capital} "
        "(ignore this if you meant the text; see docs/suites.md#templates)\n"
    )


def test_a_var_goes_into_a_regex_value_as_text_and_double_braces_of_no_var_stay(
    bench_cli, bench_suite_file, tmp_path
):
    path = bench_suite_file(
        """\
        tasks:
          - id: dot
            vars: {city: "St. Louis", open: "("}
            response: "StX Louis ("
            evaluate: [{type: regex, value: "^{city} {open}$"}]
          - id: same
            vars: {city: "St. Louis", open: "("}
            response: "St. Louis ("
            evaluate: [{type: regex, value: "^{city} {open}$"}]
          - id: jinja
            response: "Hi {{user}}"
            evaluate: [{type: equals, value: "Hi {{user}}"}]
        """
    )
    result = bench_cli("run", path, "-q", "-o", "out.json")
    assert result.exit_code == 1, result.stderr
    tasks = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert [(t["id"], t["passed"]) for t in tasks] == [("dot", False), ("same", True), ("jinja", True)]
