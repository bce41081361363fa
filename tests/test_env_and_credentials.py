"""``--var``, suite ``vars:``, ``.env`` files, ``${VAR}`` and API keys (RELIABILITY A14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.testing.pytest_plugin import CANARY_KEY
from bench.testing.server import Fault

ECHO_SUITE = """
target: {type: echo}
vars: {city: Paris, country: France}
tasks:
  - id: a
    prompt: "{city} is in {country}"
    evaluate: {expected: is in}
  - id: b
    vars: {city: Lyon}
    prompt: "{city} is in {country}"
    evaluate: {expected: is in}
"""


def _unset(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Unset ``names`` now and again after the test (a .env a command loads sets them in-process)."""
    for name in names:
        monkeypatch.setenv(name, "placeholder")
        monkeypatch.delenv(name)


def _prompts(path: Path, **kwargs: object) -> dict[str, str | None]:
    from bench.suite.loader import load_suite

    return {p.task.id: p.task.prompt for p in load_suite(path, **kwargs).tasks}  # type: ignore[arg-type]


# -- vars ----------------------------------------------------------------------------------------


def test_suite_vars_are_defaults_task_vars_win_and_var_wins_over_both(bench_suite_file):
    path = bench_suite_file(ECHO_SUITE)
    assert _prompts(path) == {"a": "Paris is in France", "b": "Lyon is in France"}
    assert _prompts(path, variables={"city": "Nice"}) == {"a": "Nice is in France", "b": "Nice is in France"}


def test_var_on_the_command_line_reaches_the_prompt(bench_cli, bench_suite_file):
    path = bench_suite_file(ECHO_SUITE)
    result = bench_cli("run", path, "-q", "--var", "city=Nice", "--var", "country=Italy", "-o", "out.json")
    assert result.exit_code == 0, result.output
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    assert [t["response"] for t in tasks] == ["Nice is in Italy", "Nice is in Italy"]


def test_var_changes_the_task_digest_so_resume_runs_the_edited_tasks(bench_suite_file):
    from bench.suite.loader import load_suite

    path = bench_suite_file(ECHO_SUITE)
    plain = load_suite(path).tasks.digests
    assert load_suite(path).tasks.digests == plain
    assert load_suite(path, variables={"city": "Nice"}).tasks.digests != plain


@pytest.mark.parametrize("item", ["city", "=Nice", "two words=x", "9lives=x"])
def test_malformed_var_is_refused(bench_cli, bench_suite_file, item):
    path = bench_suite_file(ECHO_SUITE)
    for command in ("run", "validate"):
        result = bench_cli(command, path, "--var", item)
        assert result.exit_code == 2
        assert result.stderr == f"error: --var {item}: write it as NAME=VALUE (NAME: letters, digits and _)\n"


def test_jsonl_rows_get_the_suite_vars_and_var(bench_cli, bench_suite_file, tmp_path):
    rows = [
        {"id": "r1", "prompt": "{greeting}, {name}", "response": "x", "evaluate": {"expected": "x"}},
        {
            "id": "r2",
            "prompt": "{greeting}, {name}",
            "vars": {"name": "Bo"},
            "response": "x",
            "evaluate": {"expected": "x"},
        },
    ]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    path = bench_suite_file("vars: {greeting: Hi, name: Al}\ntasks: tasks.jsonl\n")
    assert _prompts(path) == {"r1": "Hi, Al", "r2": "Hi, Bo"}
    assert _prompts(path, variables={"greeting": "Yo"}) == {"r1": "Yo, Al", "r2": "Yo, Bo"}


def test_vars_and_defaults_vars_together_are_refused(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "vars: {a: 1}\ndefaults: {vars: {b: 2}}\ntasks:\n  - {id: t, response: x, evaluate: {expected: x}}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert result.stderr == f"error: {path}:1:1: vars: give vars or defaults.vars, not both\n"


def test_schema_shows_suite_vars(bench_cli):
    result = bench_cli("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["properties"]["vars"]["type"] == "object"


# -- .env ------------------------------------------------------------------------------------------

ENV_SUITE = """
target: {type: echo}
tasks:
  - id: a
    prompt: "Hello ${BENCH_ENV_WHO}"
    evaluate: {expected: Hello}
"""


def test_a14_unset_variable_through_the_cli(bench_cli, bench_suite_file, monkeypatch):
    _unset(monkeypatch, "BENCH_ENV_WHO")
    path = bench_suite_file(ENV_SUITE)
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {path}:4:13: tasks[0].prompt: environment variable BENCH_ENV_WHO is not set "
        "(write $${BENCH_ENV_WHO} for a literal)\n"
    )


def test_a14_a_value_from_the_suites_env_file_satisfies_it(
    bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    _unset(monkeypatch, "BENCH_ENV_WHO")
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / ".env").write_text("BENCH_ENV_WHO=world\n")
    path = bench_suite_file(ENV_SUITE, name="suites/suite.yaml")
    result = bench_cli("run", path, "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    assert json.loads(Path("out.json").read_text())["tasks"][0]["response"] == "Hello world"


def test_env_precedence_process_then_env_file_then_suite_then_working_directory(
    bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    _unset(monkeypatch, "BENCH_ENV_WHO")
    (tmp_path / "suites").mkdir()
    path = bench_suite_file(ENV_SUITE, name="suites/suite.yaml")
    (tmp_path / ".env").write_text("BENCH_ENV_WHO=cwd\n")

    def who(*options: str) -> str:
        result = bench_cli("run", path, "-q", "--no-cache", "-o", "out.json", *options)
        assert result.exit_code == 0, result.output
        monkeypatch.delenv("BENCH_ENV_WHO", raising=False)  # what the command loaded
        return json.loads(Path("out.json").read_text())["tasks"][0]["response"]

    assert who() == "Hello cwd"
    (tmp_path / "suites" / ".env").write_text("BENCH_ENV_WHO=suite\n")
    assert who() == "Hello suite"
    (tmp_path / "named.env").write_text("BENCH_ENV_WHO=named\n")
    assert who("--env-file", "named.env") == "Hello named"
    monkeypatch.setenv("BENCH_ENV_WHO", "process")
    assert who("--env-file", "named.env") == "Hello process"


def test_no_env_file_reads_none(bench_cli, bench_suite_file, tmp_path, monkeypatch):
    _unset(monkeypatch, "BENCH_ENV_WHO")
    (tmp_path / ".env").write_text("BENCH_ENV_WHO=world\n")
    path = bench_suite_file(ENV_SUITE)
    result = bench_cli("validate", path, "--no-env-file")
    assert result.exit_code == 2
    assert "environment variable BENCH_ENV_WHO is not set" in result.stderr


def test_missing_env_file_is_refused(bench_cli, bench_suite_file):
    path = bench_suite_file(ENV_SUITE)
    result = bench_cli("validate", path, "--env-file", "nope.env")
    assert result.exit_code == 2
    assert result.stderr == "error: --env-file nope.env: no such file\n"


def test_a_key_loaded_from_env_is_redacted(bench_cli, bench_suite_file, tmp_path, monkeypatch):
    _unset(monkeypatch, "BENCH_ENV_TOKEN")
    secret = "tok-9f8e7d6c5b4a3210"
    (tmp_path / ".env").write_text(f"BENCH_ENV_TOKEN={secret}\n")
    path = bench_suite_file(
        "target: {type: echo}\ntasks:\n  - id: a\n    prompt: 'say ${BENCH_ENV_TOKEN}'\n"
        "    evaluate: {expected: nope}\n"
    )
    result = bench_cli("run", path, "-o", "out.json")
    assert result.exit_code == 1, result.output
    report = Path("out.json").read_text()
    assert secret not in report + result.output
    assert "[REDACTED:BENCH_ENV_TOKEN]" in report


# -- credentials -----------------------------------------------------------------------------------

JUDGED = """
target: {type: litellm, model: openai/gpt-4o-mini}
evaluators:
  judge: {type: llm_judge, criteria: polite, model: anthropic/claude-3-5-haiku-latest}
tasks:
  - {id: a, prompt: q, evaluate: [judge]}
  - {id: b, prompt: q, evaluate: [judge]}
"""


def test_a_missing_key_is_one_start_up_error_before_any_request(
    bench_cli, bench_suite_file, bench_fake_llm, monkeypatch, tmp_path
):
    _unset(monkeypatch, "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
    path = bench_suite_file(JUDGED)
    result = bench_cli("run", path)
    assert result.exit_code == 2
    assert result.stderr == (
        "error: API key variables are not set: ANTHROPIC_API_KEY (needed by anthropic/claude-3-5-haiku-latest); "
        "OPENAI_API_KEY (needed by openai/gpt-4o-mini). Set them in the environment or in a .env file "
        "beside the suite, or name another variable with api_key_env; or run with --offline: the checks "
        "that need a remote model are skipped, the rest decide\n"
    )
    assert bench_fake_llm.count() == 0
    assert not (tmp_path / ".bench" / "runs").exists()


def test_dry_run_warns_about_a_missing_key(bench_cli, bench_suite_file, monkeypatch):
    _unset(monkeypatch, "OPENAI_API_KEY", "ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
    result = bench_cli("run", bench_suite_file(JUDGED), "--dry-run")
    assert result.exit_code == 0
    assert result.stderr == (
        "warning: API key variable is not set: OPENAI_API_KEY (needed by openai/gpt-4o-mini). Set it in the "
        "environment or in a .env file beside the suite, or name another variable with api_key_env\n"
    )


def test_api_key_env_is_the_variable_checked(bench_cli, bench_suite_file, bench_fake_llm, monkeypatch):
    _unset(monkeypatch, "BENCH_ENV_KEY")
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake, api_key_env: BENCH_ENV_KEY}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: x}}\n"
    )
    result = bench_cli("run", path)
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: API key variable is not set: BENCH_ENV_KEY (needed by openai/fake). "
    )
    assert bench_fake_llm.count() == 0


def test_a_key_from_a_dotenv_file_counts_as_set(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path, monkeypatch
):
    _unset(monkeypatch, "BENCH_ENV_KEY")
    (tmp_path / ".env").write_text(f"BENCH_ENV_KEY={CANARY_KEY}\n")
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake, api_key_env: BENCH_ENV_KEY}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: echo}}\n"
    )
    result = bench_cli("run", path, "-q")
    assert result.exit_code == 0, result.output
    assert bench_fake_llm.count() == 1
    assert bench_fake_llm.requests[0].headers["authorization"] == f"Bearer {CANARY_KEY}"


def test_an_explicit_api_base_passes_the_check_and_a_missing_key_is_not_retried(
    bench_cli, bench_suite_file, bench_fake_llm, monkeypatch
):
    _unset(monkeypatch, "OPENAI_API_KEY")
    path = bench_suite_file(
        f"target: {{type: echo}}\nevaluators:\n"
        f"  judge: {{type: llm_judge, criteria: ok, model: openai/judge, api_base: '{bench_fake_llm.url}'}}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: [judge]}\n"
    )
    assert bench_cli("run", path, "--dry-run").stderr == ""
    result = bench_cli("run", path, "-o", "out.json")
    assert result.exit_code == 3, result.output
    (task,) = json.loads(Path("out.json").read_text())["tasks"]
    assert task["evaluators"][0]["error"].startswith(
        "judge openai/judge: openai/judge after 1 attempt: Missing credentials. Please pass an `api_key`"
    )


def test_c14_a_rejected_key_stops_the_run_after_one_round_of_requests_at_concurrency_4(
    bench_cli, bench_suite_file, bench_fake_llm
):
    """The key probe goes beside the first calls (docs/llm.md): a refused key costs at most the
    calls already in flight (one per worker), never one per task or per retry."""
    bench_fake_llm.add(Fault(401, message="Incorrect API key provided"))
    rows = "".join(
        f"  - {{id: t{i:02}, prompt: 'question {i}', evaluate: {{expected: echo}}}}\n" for i in range(20)
    )
    path = bench_suite_file(f"target: {{type: litellm, model: openai/fake}}\ntasks:\n{rows}")
    result = bench_cli("run", path, "-j", "4", "-o", "out.json")
    assert result.exit_code == 3, result.output
    assert 1 <= bench_fake_llm.count() <= 4
    report = json.loads(Path("out.json").read_text())
    (errored,) = [t for t in report["tasks"] if t["status"] == "error"]
    assert errored["error"] == (
        "401 from openai/fake after 1 attempt: Incorrect API key provided (the key in OPENAI_API_KEY was refused)"
    )
    assert report["stopped"] == (
        "provider stopped: Incorrect API key provided (the key in OPENAI_API_KEY was refused)"
    )
    summary = report["summary"]  # tasks in flight when the 401 came are interrupted (resumable)
    assert (summary["errors"], summary["interrupted"] + summary["not_run"]) == (1, 19)
    assert CANARY_KEY not in result.output


# -- the documented examples ---------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _section(page: str, heading: str) -> str:
    text = (ROOT / "docs" / page).read_text()
    return text.split(heading + "\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]


def _block(section: str, kind: str) -> str:
    return section.split(f"```{kind}\n", 1)[1].split("```", 1)[0]


def test_the_variables_example_in_suites_md_runs_as_documented(bench_cli, tmp_path, monkeypatch):
    _unset(monkeypatch, "GREETER")
    section = _section("suites.md", "### Variables: `vars:`, `--var` and `.env` files")
    (tmp_path / "suite.yaml").write_text(_block(section, "yaml"))
    (tmp_path / ".env").write_text(_block(section, "dotenv"))
    command = _block(section, "console").strip().removeprefix("$ bench ").split()
    result = bench_cli(*command)
    assert result.exit_code == 0, result.output
    responses = [t["response"] for t in json.loads(Path("out.json").read_text())["tasks"]]
    assert responses == ["bench says: Hello, Rome", "bench says: Hello, Rome"]
    monkeypatch.delenv("GREETER")
    result = bench_cli("run", "suite.yaml", "-q", "-o", "out.json")
    assert result.exit_code == 1
    responses = [t["response"] for t in json.loads(Path("out.json").read_text())["tasks"]]
    assert responses == ["bench says: Hello, Paris", "bench says: Hello, Lyon"]


def test_the_missing_key_example_in_llm_md_prints_the_documented_error(bench_cli, tmp_path, monkeypatch):
    _unset(monkeypatch, "OPENAI_API_KEY")
    section = _section("llm.md", "## API keys and authentication failures")
    (tmp_path / "suite.yaml").write_text(_block(section, "yaml"))
    result = bench_cli("run", "suite.yaml")
    assert result.exit_code == 2
    assert result.stderr == _block(section, "text")
    result = bench_cli("run", "suite.yaml", "--dry-run")
    assert result.exit_code == 0
    assert result.stderr == "warning: " + _block(section, "text").removeprefix("error: ")
