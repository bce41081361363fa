"""Editors and bootstrap: `bench schema`, `bench init`, --version, -h."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from bench.authoring.schema import suite_schema
from bench.document import load_yaml
from bench.plugins.registry import get_registry
from bench.vocabulary.version import __version__

ROOT = Path(__file__).resolve().parents[1]
SUITES = [
    path
    for path in sorted((ROOT / "examples").rglob("*.yaml"))
    if isinstance(data := load_yaml(path).data, dict) and "tasks" in data
]


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = suite_schema(get_registry())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_examples_are_suites():
    assert len(SUITES) >= 10, SUITES


@pytest.mark.parametrize("path", SUITES, ids=lambda p: str(p.relative_to(ROOT / "examples")))
def test_every_example_suite_is_valid_under_the_schema(validator, path):
    errors = [(list(e.absolute_path), e.message) for e in validator.iter_errors(load_yaml(path).data)]
    assert errors == []


def test_a_wrong_setting_of_a_known_type_is_refused_at_its_path(validator):
    suite = {
        "tasks": [{"id": "a", "response": "x", "evaluate": [{"type": "contains", "value": "x", "valu": 1}]}]
    }
    error = jsonschema.exceptions.best_match(validator.iter_errors(suite))
    assert list(error.absolute_path) == ["tasks", 0, "evaluate", 0]

    def messages(errors: list[jsonschema.ValidationError]) -> list[str]:
        return [m for e in errors for m in (e.message, *messages(e.context))]

    assert "Additional properties are not allowed ('valu' was unexpected)" in messages(error.context)


def test_an_unknown_top_level_field_is_refused(validator):
    errors = list(validator.iter_errors({"tasks": [], "taks": []}))
    assert [e.message for e in errors] == ["Additional properties are not allowed ('taks' was unexpected)"]


def test_the_schema_lists_every_installed_evaluator_type(bench_cli):
    result = bench_cli("schema")
    assert result.exit_code == 0, result.output
    entry = json.loads(result.stdout)["$defs"]["EvaluatorEntry"]
    titles = {branch.get("title") for branch in entry["anyOf"]}
    assert set(get_registry().evaluators) <= titles


def test_a_schema_key_in_a_suite_is_accepted(bench_cli, bench_suite_file, validator):
    text = """\
        $schema: ./bench.schema.json
        tasks:
          - id: a
            response: "hello"
            evaluate: {expected: hello}
        """
    path = bench_suite_file(text)
    result = bench_cli("validate", path)
    assert result.exit_code == 0, result.output
    assert "is valid: 1 tasks" in result.stdout
    assert list(validator.iter_errors(load_yaml(path).data)) == []


@pytest.mark.parametrize(("example", "tasks"), [("quickstart", 3), ("echo", 2)])
def test_init_writes_a_suite_that_runs(bench_cli, tmp_path, example, tasks):
    result = bench_cli("init", "--example", example)
    assert result.exit_code == 0, result.output
    suite = tmp_path / "suite.yaml"
    assert suite.read_text().startswith("# yaml-language-server: $schema=./bench.schema.json\n")
    assert json.loads((tmp_path / "bench.schema.json").read_text())["title"] == "bench suite"
    ran = bench_cli("run", "suite.yaml", "-q")
    assert ran.exit_code == 0, ran.output
    assert f"{tasks} tasks: {tasks} passed, 0 failed, 0 errors" in ran.stdout


def test_init_never_overwrites(bench_cli, tmp_path):
    (tmp_path / "suite.yaml").write_text("mine")
    result = bench_cli("init")
    assert result.exit_code == 2
    assert result.stderr == "error: suite.yaml already exists; bench init never overwrites a file\n"
    assert (tmp_path / "suite.yaml").read_text() == "mine"
    assert not (tmp_path / "assistant.py").exists()


def test_init_writes_nothing_when_a_file_it_would_write_exists(bench_cli, tmp_path):
    (tmp_path / "evaluators").mkdir()
    (tmp_path / "evaluators" / "polite.yaml").write_text("mine")
    result = bench_cli("init")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: evaluators/polite.yaml already exists; bench init never overwrites a file\n"
    )
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["evaluators", "polite.yaml"]


def test_init_keeps_an_existing_schema_file(bench_cli, tmp_path):
    (tmp_path / "bench.schema.json").write_text("{}")
    assert bench_cli("init", "other.yaml", "--example", "echo").exit_code == 0
    assert (tmp_path / "bench.schema.json").read_text() == "{}"


def test_init_unknown_example(bench_cli):
    result = bench_cli("init", "--example", "quickstar")
    assert result.exit_code == 2
    assert result.stderr == "error: unknown example 'quickstar' (did you mean 'quickstart'?)\n"


def test_version(bench_cli):
    result = bench_cli("--version")
    assert (result.exit_code, result.stdout) == (0, f"bench {__version__}\n")


@pytest.mark.parametrize("command", ["run", "validate", "evaluators", "plugins", "compare", "schema", "init"])
def test_dash_h_is_help_on_every_command(bench_cli, command):
    result = bench_cli(command, "-h")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Usage: bench {command} [OPTIONS]")


def test_shell_completion_is_offered(bench_cli):
    assert "--show-completion" in bench_cli("--help").stdout
