"""docs/reliability.md group A: configuration and YAML input. Each test is named by its case ID."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

FIXTURES = Path(__file__).parent / "fixtures" / "hostile"


def test_a01_yaml_syntax_error_names_file_line_and_creates_no_run(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file("name: x\ntasks: [1, 2\n")
    result = bench_cli("run", path)
    assert result.exit_code == 2
    assert f"{path}:3:1: while parsing a flow sequence (line 2, column 8): " in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / ".bench" / "runs").exists() or not any((tmp_path / ".bench" / "runs").iterdir())


def test_a02_duplicate_key_is_an_error_not_a_silent_overwrite(bench_cli):
    result = bench_cli("validate", FIXTURES / "duplicate_key.yaml")
    assert result.exit_code == 2
    assert "duplicate_key.yaml:5:5: duplicate key 'prompt' (first at line 4)" in result.stderr


def test_a03_duplicate_task_id_names_both_lines(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        tasks:
          - id: same
            response: a
            evaluate: {expected: a}
          - id: same
            response: b
            evaluate: {expected: b}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert f"{path}:5:5: tasks[1].id: duplicate task id 'same' (first at line 2)" in result.stderr


def test_a04_unknown_field_suggests_the_nearest(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        tasks:
          - id: a
            response: hi
            evaluate: {expected: hi, treshold: 0.8}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert (
        f"{path}:4:30: tasks[0].evaluate.treshold: unknown field (did you mean 'threshold'?) "
        "[evaluator 'expected' from bench-deterministic]"
    ) in result.stderr


def test_a04_unknown_task_field(bench_cli, bench_suite_file):
    path = bench_suite_file("tasks:\n  - id: a\n    respons: hi\n    evaluate: {expected: hi}\n")
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert f"{path}:3:5: tasks[0].respons: unknown field (did you mean 'response'?)" in result.stderr


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "threshold",
            "high",
            "Input should be a valid number, unable to parse string as a number (got 'high')",
        ),
        ("weight", "-1", "Input should be greater than or equal to 0 (got -1)"),
    ],
)
def test_a05_wrong_type_names_field_line_and_value(bench_cli, bench_suite_file, field, value, message):
    path = bench_suite_file(
        f"tasks:\n  - id: a\n    response: hi\n    evaluate: {{expected: hi, {field}: {value}}}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert f"tasks[0].evaluate.{field}: {message}" in result.stderr
    assert f"{path}:4:" in result.stderr


def test_a05_negative_timeout(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "tasks:\n  - id: a\n    response: hi\n    timeout: -1\n    evaluate: {expected: hi}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert f"{path}:4:5: tasks[0].timeout: Input should be greater than 0 (got -1)" in result.stderr


def test_a06_yaml_1_1_coercions_keep_the_text(bench_suite_file, tmp_path):
    from bench.testing import run_suite

    path = bench_suite_file(
        """
        tasks:
          - id: country
            response: "The code is NO"
            evaluate: {expected: NO}
          - id: switch
            response: "turned off"
            evaluate: {expected: off}
          - id: octal
            response: "there are 10 of them"
            evaluate: {expected: 010}
          - id: date
            response: "on 2024-01-01 it began"
            evaluate: {expected: 2024-01-01}
        """
    )
    outcome = run_suite(path)
    assert outcome.report.summary.passed == 4


def test_a06_float_where_text_is_needed_says_quote_it(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "version: 1.10\ntasks:\n  - id: a\n    response: x\n    evaluate: {expected: x}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert (
        "version: Input should be a valid string (got 1.1); quote it to keep the text as written"
        in result.stderr
    )


def test_a07_alias_bomb_is_refused_quickly(bench_cli):
    started = time.monotonic()
    result = bench_cli("validate", FIXTURES / "alias_bomb.yaml")
    assert time.monotonic() - started < 1.0
    assert result.exit_code == 2
    assert "alias_bomb.yaml:1:1: expands to more than 1,000,000 nodes through aliases" in result.stderr


def test_a08_deep_nesting_is_an_error_not_a_recursion_traceback(bench_cli):
    result = bench_cli("validate", FIXTURES / "deep.yaml")
    assert result.exit_code == 2
    assert "deep.yaml:1:71: nested deeper than 64 levels" in result.stderr
    assert "Traceback" not in result.output


def test_a09_unsafe_tag_is_refused_and_nothing_runs(bench_cli, tmp_path):
    result = bench_cli("run", FIXTURES / "unsafe_tag.yaml")
    assert result.exit_code == 2
    assert "unsafe_tag.yaml:4:15: unknown tag '!!python/object/apply:os.system'" in result.stderr
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just text\n", "name: x\n"])
def test_a10_not_a_suite(bench_cli, bench_suite_file, text):
    path = bench_suite_file(text)
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert f"{path}: a suite is a mapping with 'tasks:'" in result.stderr


def test_a10_no_tasks(bench_cli, bench_suite_file):
    path = bench_suite_file("tasks: []\n")
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert f"{path}:1:1: tasks: the suite has no tasks" in result.stderr


def test_a11_bom_is_accepted(bench_cli, tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbftasks:\n  - id: a\n    response: x\n    evaluate: {expected: x}\n")
    assert bench_cli("validate", path).exit_code == 0


def test_a11_latin1_and_utf16_give_the_byte_offset(bench_cli, tmp_path):
    result = bench_cli("validate", FIXTURES / "latin1.yaml")
    assert result.exit_code == 2
    assert "latin1.yaml: not UTF-8 text (invalid byte at offset 9)" in result.stderr
    utf16 = tmp_path / "utf16.yaml"
    utf16.write_bytes("tasks: []\n".encode("utf-16"))
    result = bench_cli("validate", utf16)
    assert "utf16.yaml: not UTF-8 text (invalid byte at offset 0)" in result.stderr


def test_a12_unknown_evaluator_suggests_nearest_name(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        evaluators:
          contains: {expected: "x"}
        tasks:
          - id: a
          - id: b
          - id: c
          - id: d
            response: x
            evaluate: containz
        """.replace("  - id: a\n", "  - {id: a, response: x, evaluate: contains}\n")
        .replace("  - id: b\n", "  - {id: b, response: x, evaluate: contains}\n")
        .replace("  - id: c\n", "  - {id: c, response: x, evaluate: contains}\n")
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "tasks[3].evaluate: unknown evaluator 'containz' (did you mean 'contains'?)" in result.stderr


def test_a12_unknown_type_names_the_plugin_that_provides_it(bench_suite_file):
    path = bench_suite_file("tasks:\n  - id: a\n    response: x\n    evaluate: {type: git-diff}\n")
    env = {**os.environ, "BENCH_DISABLE_PLUGINS": "bench-agent"}  # as if it were not installed
    result = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path)], env=env, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert (
        f"{path}:4:16: tasks[0].evaluate.type: unknown evaluator type 'git-diff' "
        "(pip install bench-agent provides 'git-diff')"
    ) in result.stderr


def test_a12_unknown_target_type_names_the_plugin_that_provides_it(bench_suite_file):
    path = bench_suite_file(
        "target: {type: agent, model: openai/x}\ntasks: [{id: a, prompt: x, evaluate: {expected: x}}]\n"
    )
    env = {**os.environ, "BENCH_DISABLE_PLUGINS": "bench-agent"}
    result = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path)], env=env, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {path}:1:10: target.type: unknown target type 'agent' (pip install bench-agent provides 'agent')\n"
    )


def test_a13_judge_selected_by_prompt_requires_a_model(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "tasks:\n  - id: a\n    response: x\n    evaluate: {prompt: 'Is {response} right?'}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert (
        f"{path}:4:5: tasks[0].evaluate: Value error, model is required: a judge has no default model "
        "(got {'prompt': 'Is {response} right?'}) [evaluator 'llm_judge' from bench-llm-judge]"
    ) in result.stderr


def test_a15_broken_plugin_is_reported_once_and_the_rest_works(tmp_path):
    from importlib.metadata import EntryPoint

    from bench.plugins.registry import _Builder

    builder = _Builder()
    builder.load(
        [
            EntryPoint(name="broken", value="bench_no_such_module_xyz.plugin", group="bench"),
            EntryPoint(name="core", value="bench.builtin", group="bench"),
        ]
    )
    registry = builder.collect()
    assert [str(f) for f in registry.failures] == [
        "plugin 'broken' from bench_no_such_module_xyz.plugin failed to load: "
        "ModuleNotFoundError: No module named 'bench_no_such_module_xyz'"
    ]
    assert "recorded" in registry.targets


def test_a16_two_plugins_with_one_type_name_name_both_distributions():
    from bench import Evaluator
    from bench.hookspecs import hookimpl
    from bench.plugins.registry import build_registry
    from bench.vocabulary.errors import PluginError

    class Clash(Evaluator):  # type: ignore[type-arg]
        name = "expected"

    class Plugin:
        @hookimpl
        def bench_register_evaluators(self, register):
            register(Clash)

    registry = build_registry([("bench-clash", "clash", Plugin())])
    assert registry.evaluators.get("exact_match") is not None  # the rest is usable
    with pytest.raises(PluginError) as info:
        registry.evaluators.get("expected")  # the clash fails where the name is used
    assert str(info.value) == (
        "evaluator type 'expected' is registered by two distributions: "
        "bench-deterministic and bench-clash; uninstall one of them"
    )


def test_d15_prompt_variable_missing_names_the_task_and_variable(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        target: {type: echo}
        tasks:
          - id: greet
            prompt: "Hello {name}, you are {age}"
            vars: {name: Ada}
            evaluate: {expected: Ada}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert (
        f"{path}:4:5: tasks[0].prompt: unknown placeholder {{age}} (vars given: name; "
        "write {{age}} for a literal brace)"
    ) in result.stderr


def test_d06_invalid_regex_fails_at_validate(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "tasks:\n  - id: a\n    response: x\n    evaluate: {expected: [{regex: '(unclosed'}]}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert (
        f"{path}:4:28: tasks[0].evaluate.expected[0].regex: Value error, invalid regex '(unclosed': "
        "missing ) at position 9 (got '(unclosed') [evaluator 'expected' from bench-deterministic]"
    ) in result.stderr


def test_a15_misspelt_hook_is_reported_and_an_imported_module_is_not():
    from bench.hookspecs import hookimpl
    from bench.plugins.registry import build_registry

    class Typo:
        bench_deterministic = object()  # e.g. an imported module whose name starts with bench_

        @hookimpl
        def bench_register_evaluator(self, register):  # singular: not a hook
            raise AssertionError("never called")

    class Fine:
        bench_deterministic = object()

    registry = build_registry([("bench-typo", "typo", Typo()), ("bench-fine", "fine", Fine())])
    assert [str(f) for f in registry.failures] == [
        "plugin 'typo' from bench-typo failed to load: unknown hook 'bench_register_evaluator' "
        "(did you mean 'bench_register_evaluators'?)"
    ]


@pytest.mark.parametrize(
    ("evaluate", "where", "message"),
    [
        (
            "{expected: hi, weight: .inf}",
            "4:30: tasks[0].evaluate.weight",
            "Input should be a finite number (got inf); allowed: 0 to 1000000",
        ),
        (
            "{expected: hi, weight: .nan}",
            "4:30: tasks[0].evaluate.weight",
            "Input should be a finite number (got nan); allowed: 0 to 1000000",
        ),
        (
            "{expected: hi, weight: 1e308}",
            "4:30: tasks[0].evaluate.weight",
            "Input should be less than or equal to 1000000 (got 1e+308); allowed: 0 to 1000000",
        ),
        (
            "{expected: hi, threshold: -.inf}",
            "4:30: tasks[0].evaluate.threshold",
            "Input should be a finite number (got -inf); allowed: 0 to 1",
        ),
        (
            "{expected: hi, score_threshold: 1.5}",
            "4:30: tasks[0].evaluate.score_threshold",
            "Input should be less than or equal to 1 (got 1.5); allowed: 0 to 1",
        ),
        (
            "{type: numeric_match, value: 1, absolute_tolerance: .inf}",
            "4:47: tasks[0].evaluate.absolute_tolerance",
            "Input should be a finite number (got inf); allowed: 0 or more "
            "[evaluator 'numeric_match' from bench-deterministic]",
        ),
    ],
)
def test_n08_non_finite_or_out_of_range_evaluator_number_is_refused(
    bench_cli, bench_suite_file, evaluate, where, message
):
    path = bench_suite_file(f"tasks:\n  - id: a\n    response: hi\n    evaluate: {evaluate}\n")
    result = bench_cli("validate", path)
    assert result.exit_code == 2, result.output
    assert f"{path}:{where}: {message}" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("setting", "where", "message"),
    [
        (
            "defaults: {timeout: .inf}",
            "1:12: defaults.timeout",
            "Input should be a finite number (got inf); allowed: more than 0",
        ),
        (
            "llm: {attempt_timeout: .inf}",
            "1:7: llm.attempt_timeout",
            "Input should be a finite number (got inf); allowed: more than 0",
        ),
        (
            "runtime_limits: {max_cost_usd: .nan}",
            "1:18: runtime_limits.max_cost_usd",
            "Input should be a finite number (got nan); allowed: more than 0",
        ),
        (
            "pricing: {models: [{model: m, input_cost_per_million_tokens: .inf, "
            "output_cost_per_million_tokens: 1}]}",
            "1:31: pricing.models[0].input_cost_per_million_tokens",
            "Input should be a finite number (got inf); allowed: 0 or more",
        ),
        (
            "scorecard: {dimensions: [correctness], pass_threshold: .inf}",
            "1:40: scorecard.pass_threshold",
            "Input should be a finite number (got inf); allowed: 0 to 1",
        ),
    ],
)
def test_n08_non_finite_suite_setting_is_refused(bench_cli, bench_suite_file, setting, where, message):
    path = bench_suite_file(
        f"{setting}\ntasks:\n  - id: a\n    response: hi\n    evaluate: {{expected: hi}}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2, result.output
    assert f"{path}:{where}: {message}" in result.stderr


def test_n08_infinite_task_timeout_is_refused(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "tasks:\n  - id: a\n    response: hi\n    timeout: .inf\n    evaluate: {expected: hi}\n"
    )
    result = bench_cli("run", path)
    assert result.exit_code == 2, result.output
    assert (
        f"{path}:4:5: tasks[0].timeout: Input should be a finite number (got inf); allowed: more than 0"
        in result.stderr
    )


def test_a14_unset_variable_names_the_variable_and_the_field(
    bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    monkeypatch.delenv("BENCH_A14_UNSET", raising=False)
    path = bench_suite_file(
        "tasks:\n  - id: a\n    prompt: 'Hello ${BENCH_A14_UNSET}'\n    response: hi\n"
        "    evaluate: {expected: hi}\n"
    )
    result = bench_cli("run", path)
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {path}:3:13: tasks[0].prompt: environment variable BENCH_A14_UNSET is not set "
        "(write $${BENCH_A14_UNSET} for a literal)\n"
    )
    assert not (tmp_path / ".bench" / "runs").exists()


def test_a14_set_variable_is_substituted_and_double_dollar_stays_literal(
    bench_cli, bench_suite_file, monkeypatch
):
    from bench.suite.loader import load_suite

    monkeypatch.setenv("BENCH_A14_CITY", "Paris")
    path = bench_suite_file(
        """
        name: ${BENCH_A14_CITY}-suite
        defaults: {vars: {city: "${BENCH_A14_CITY}"}}
        tasks:
          - id: a
            prompt: "Is {city} in France, ${BENCH_A14_CITY}?"
            response: "Paris, not ${BENCH_A14_CITY}"
            evaluate: {expected: "$${BENCH_A14_CITY}", weight: "${BENCH_A14_WEIGHT}"}
        """
    )
    monkeypatch.setenv("BENCH_A14_WEIGHT", "2")
    plan = load_suite(path)
    (planned,) = plan.tasks
    assert plan.name == "Paris-suite"
    assert planned.task.prompt == "Is Paris in France, Paris?"
    assert planned.task.response.output == "Paris, not ${BENCH_A14_CITY}"  # a response is data
    assert planned.evaluators[0].weight == 2
    result = bench_cli("run", path)
    assert result.exit_code == 0, result.output


def test_a14_definition_file_is_interpolated_too(bench_cli, bench_suite_file, tmp_path, monkeypatch):
    monkeypatch.delenv("BENCH_A14_UNSET", raising=False)
    (tmp_path / "check.yaml").write_text("name: contains\nconfig:\n  value: ${BENCH_A14_UNSET}\n")
    path = bench_suite_file("tasks:\n  - id: a\n    response: hi\n    evaluate: {file: check.yaml}\n")
    result = bench_cli("validate", path)
    assert result.exit_code == 2, result.output
    assert (
        f"{tmp_path / 'check.yaml'}:3:10: config.value: environment variable BENCH_A14_UNSET is not set "
        "(write $${BENCH_A14_UNSET} for a literal)"
    ) in result.stderr


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("${not a name}", "'${not a name}' is not an environment variable reference"),
        ("${BENCH_A14", "'${BENCH_A14' is not an environment variable reference"),
    ],
)
def test_a14_malformed_reference_is_an_error(bench_cli, bench_suite_file, text, problem):
    path = bench_suite_file(
        f"tasks:\n  - id: a\n    prompt: '{text}'\n    response: hi\n    evaluate: {{expected: hi}}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2, result.output
    assert (
        f"{path}:3:13: tasks[0].prompt: {problem}: write ${{NAME}} (letters, digits, _) "
        "or $${ for a literal ${"
    ) in result.stderr


def test_a14_task_rows_and_recorded_responses_are_never_interpolated(
    bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    from bench.suite.loader import load_suite

    secret = "sk-a14-secret-value-0001"
    monkeypatch.setenv("BENCH_A14_API_KEY", secret)
    row = {
        "id": "a",
        "prompt": "Say {word}",
        "vars": {"word": "${BENCH_A14_API_KEY}"},
        "evaluate": {"expected": "${BENCH_A14_API_KEY}"},
    }
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "recorded.jsonl").write_text(
        json.dumps({"id": "a", "response": "${BENCH_A14_API_KEY}"}) + "\n"
    )
    path = bench_suite_file("target: {type: recorded, file: recorded.jsonl}\ntasks: tasks.jsonl\n")
    (planned,) = load_suite(path).tasks
    assert planned.task.prompt == "Say ${BENCH_A14_API_KEY}"
    result = bench_cli("run", path, "--output", tmp_path / "report.json")
    assert result.exit_code == 0, result.output  # the literal response matches the literal expected
    assert secret not in result.output
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written
    assert not any(secret.encode() in p.read_bytes() for p in written)


def test_n30_inline_recorded_response_is_data_and_never_interpolated(
    bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    secret = "sk-n30-secret-value-0002"
    monkeypatch.setenv("BENCH_N30_TOKEN", secret)
    path = bench_suite_file(
        """
        tasks:
          - id: pasted
            prompt: Write a shell line that prints the token
            response: 'echo "${BENCH_N30_TOKEN}"'
            evaluate: {expected: "$${BENCH_N30_TOKEN}"}
        """
    )
    result = bench_cli("run", path, "-o", tmp_path / "report.json")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["tasks"][0]["response"] == 'echo "${BENCH_N30_TOKEN}"'
    assert not any(secret.encode() in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())


def _validate_measuring_peak(path):
    """``bench validate PATH`` in a fresh process that reports its own peak RSS (MiB).

    VmHWM, not ``ru_maxrss``: Linux carries the parent's peak into a child's ``ru_maxrss`` across
    exec, so after a long pytest session it reports the test runner's size.
    """
    if not Path("/proc/self/status").exists():
        pytest.skip("needs Linux /proc to read the peak RSS")
    script = (
        "import sys\nfrom bench.cli import main\ntry:\n    main()\nfinally:\n"
        "    hwm = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "    print('peak_kib=' + hwm.split()[1], file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, "validate", str(path)],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result, int(result.stderr.rsplit("peak_kib=", 1)[1]) / 1024


A17_TASKS = 12_000  # beyond TaskList.KEEP_LIMIT: the lazy path that a 100,000-task suite takes
A17_HEAD = "name: big\nevaluators:\n  polite: {type: starts_with, value: Sure}\n"


def _a17_listing_is_short(result, tasks_from):
    assert "validating: 10,000 tasks checked\n" in result.stderr
    assert "listing: 10,000 of 12,000 tasks\n" in result.stderr
    out = result.stdout
    assert out.startswith("suite 'big' is valid: 12000 tasks, target: recorded\n")
    assert len(out.splitlines()) < 80
    assert f"│ (inline) │ expected    │ bench-deterministic │ {tasks_from}" in out
    assert "│ polite   │ starts_with │ bench-deterministic │ suite.yaml:3 " in out
    assert "│ t49  │ recorded      │ expected, polite │" in out
    assert "t50" not in out
    assert "... and 11,950 more tasks\n" in out


@pytest.mark.scale  # a size or load test: once, on 3.11
def test_a17_large_task_file_validates_in_bounded_memory_with_progress_and_a_short_listing(tmp_path):
    with open(tmp_path / "tasks.jsonl", "w", encoding="utf-8") as rows:
        for i in range(A17_TASKS):
            evaluate = [{"expected": f"answer {i}"}, "polite"]
            rows.write(
                json.dumps({"id": f"t{i}", "response": f"Sure: answer {i}", "evaluate": evaluate}) + "\n"
            )
    path = tmp_path / "suite.yaml"
    path.write_text(A17_HEAD + "tasks: tasks.jsonl\n")
    result, peak_mib = _validate_measuring_peak(path)
    assert peak_mib < 150, f"peak RSS {peak_mib:.0f} MiB"
    _a17_listing_is_short(result, "tasks.jsonl  │ 12000 │")


@pytest.mark.scale  # a size or load test: once, on 3.11
def test_a17_large_inline_task_list_is_streamed_in_bounded_memory(tmp_path):
    path = tmp_path / "suite.yaml"
    with open(path, "w", encoding="utf-8") as suite:
        suite.write(A17_HEAD + "tasks:\n")
        for i in range(A17_TASKS):
            suite.write(
                f"  - id: t{i}\n    prompt: What is answer {i}?\n    response: 'Sure: answer {i}'\n"
                f"    evaluate: [{{expected: answer {i}}}, polite]\n"
            )
    result, peak_mib = _validate_measuring_peak(path)
    assert peak_mib < 150, f"peak RSS {peak_mib:.0f} MiB"  # composed whole: 160 MiB here, 700 at 100k
    _a17_listing_is_short(result, "suite.yaml   │ 12000 │")
