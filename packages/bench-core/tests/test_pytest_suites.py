"""``pytest SUITE.yaml``: each task a test item when the user opts in, failing with
the evaluators' reasons; YAML files are left alone otherwise.

pytest runs in a subprocess: in-process runs restore ``sys.modules`` afterwards, which leaves
bench's YAML loader bound to a stale copy of PyYAML.
"""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

SUITE = """\
name: greetings
target: {type: echo}
tasks:
  - {id: hello, prompt: "Hello, world", evaluate: {expected: "Hello"}}
  - {id: sorry, prompt: "Sorry, no.", evaluate: {type: not-regex, value: "(?i)sorry"}}
  - {id: bye, prompt: "Bye now", evaluate: {expected: "Bye"}}
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".yaml", **{"evals/greetings": SUITE, "config/other": "key: value\n"})
    return pytester


def test_yaml_files_are_not_collected_without_opting_in(project: pytest.Pytester):
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    named = project.runpytest_subprocess("-p", "no:cacheprovider", "evals/greetings.yaml")
    assert named.ret == pytest.ExitCode.USAGE_ERROR
    named.stderr.fnmatch_lines(["ERROR: not found: */evals/greetings.yaml"])
    assert not (project.path / ".bench").exists()


def test_the_ini_option_collects_each_task_and_fails_with_the_reasons(project: pytest.Pytester):
    project.makeini("[pytest]\nbench_suites = evals/*.yaml\n")
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "evals/greetings.yaml::hello PASSED*",
            "evals/greetings.yaml::sorry FAILED*",
            "evals/greetings.yaml::bye PASSED*",
        ]
    )
    failure = result.stdout.str().split(" bench task sorry ", 1)[1].split("short test summary", 1)[0]
    assert failure.splitlines()[1:3] == [
        "task sorry failed (score 0.00)",
        "  regex failed (score 0.00): negated: matches '(?i)sorry'",
    ]
    assert "Traceback" not in failure
    runs = list((project.path / ".bench" / "runs").iterdir())
    assert len(runs) == 1, "one bench run for the file, not one per task"


def test_the_flag_collects_a_suite_named_on_the_command_line(project: pytest.Pytester):
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--bench-suites", "evals/greetings.yaml", "config"
    )
    result.assert_outcomes(passed=2, failed=1)


def test_k_runs_only_the_selected_tasks(project: pytest.Pytester):
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--bench-suites", "evals/greetings.yaml", "-k", "bye"
    )
    result.assert_outcomes(passed=1, deselected=2)
    [run] = (project.path / ".bench" / "runs").iterdir()
    assert [line.count('"id"') for line in (run / "results.jsonl").read_text().splitlines()] == [1]
    assert '"id":"bye"' in (run / "results.jsonl").read_text().replace(" ", "")


def test_a_suite_that_does_not_load_is_one_collection_error(project: pytest.Pytester):
    project.makefile(
        ".yaml",
        **{"evals/broken": "target: {type: echo}\ntasks:\n  - {id: a, prompt: x, evaluate: {type: nope}}\n"},
    )
    project.makeini("[pytest]\nbench_suites = evals/*.yaml\n")
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*bench could not load the suite: *unknown evaluator type 'nope'*"])
    assert "Traceback" not in result.stdout.str()
