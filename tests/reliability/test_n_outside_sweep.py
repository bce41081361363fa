"""Defects found by the outside sweep, named N01... in docs/reliability.md.

Each test drives the ``bench`` CLI the way the sweep did and checks what the user would see.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

from bench.testing import git_repo, write_suite

PY = sys.executable


def _agent_suite(tmp_path: Path, ids: list[str], captured: str) -> Path:
    """A workspace suite whose agent writes ``captured`` (its own task id inside) and says done."""
    git_repo(tmp_path / "repo", {"a.txt": "one\n"})
    script = tmp_path / "agent.py"
    script.write_text(
        "import os, sys\nfrom pathlib import Path\n"
        f"Path({captured!r}).write_text('captured by ' + sys.argv[1])\nprint('done')\n"
    )
    tasks = "\n".join(
        f"  - {{id: {json.dumps(task_id)}, prompt: {json.dumps(task_id)}, evaluate: {{type: contains, value: done}}}}"
        for task_id in ids
    )
    return write_suite(
        tmp_path,
        f"repo: repo\n"
        f"target: {{type: command, command: [{json.dumps(PY)}, {json.dumps(str(script))}, '{{prompt}}']}}\n"
        f"post_execution_checks: [{{type: file_capture, path: {captured}}}]\n"
        f"tasks:\n{tasks}\n",
    )


def _run_folder(tmp_path: Path) -> Path:
    (folder,) = (tmp_path / ".bench" / "runs").iterdir()
    return folder


@pytest.mark.parametrize("task_id", [".", ".."])
def test_n01_a_dot_task_id_never_makes_the_run_folder_its_captures_folder(bench_cli, tmp_path, task_id):
    path = _agent_suite(tmp_path, [task_id, "other"], "results.jsonl")
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    lines = (_run_folder(tmp_path) / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == sorted([task_id, "other"])
    for task in json.loads((tmp_path / "out.json").read_text())["tasks"]:
        stored = Path(task["workspace"]["captured"]["results.jsonl"]["stored"])
        assert stored.read_text() == f"captured by {task['id']}"
        assert stored.resolve().parent.parent == _run_folder(tmp_path) / "captures"


def test_n01_ids_that_differ_only_in_unsafe_characters_keep_their_own_captures(bench_cli, tmp_path):
    path = _agent_suite(tmp_path, ["a/b", "a_b", "a b"], "note.txt")
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    tasks = json.loads((tmp_path / "out.json").read_text())["tasks"]
    stored = {t["id"]: Path(t["workspace"]["captured"]["note.txt"]["stored"]) for t in tasks}
    assert len(set(stored.values())) == 3
    assert {task_id: p.read_text() for task_id, p in stored.items()} == {
        "a/b": "captured by a/b",
        "a_b": "captured by a_b",
        "a b": "captured by a b",
    }


def test_n02_a_300_character_task_id_is_captured_like_any_other(bench_cli, tmp_path):
    long_id = "t" * 300
    path = _agent_suite(tmp_path, [long_id], "note.txt")
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    (task,) = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert task["status"] == "passed"
    assert Path(task["workspace"]["captured"]["note.txt"]["stored"]).read_text() == f"captured by {long_id}"


def test_n09_provider_names_never_carry_the_api_base_query_or_user_info():
    from bench.llm.failures import public_url

    assert public_url("http://127.0.0.1:8000/v1?key=abc&x=1#frag") == "http://127.0.0.1:8000/v1"
    assert public_url("https://user:pa55word@example.test/v1") == "https://example.test/v1"
    assert public_url("https://example.test") == "https://example.test"


def test_n12_a_data_row_cannot_choose_where_model_calls_go_or_which_key_they_send(bench_cli, tmp_path):
    row = {
        "id": "a",
        "response": "y",
        "evaluate": {
            "prompt": "Is {response} fine?",
            "model": "openai/m",
            "api_base": "http://127.0.0.1:9/v1",
        },
    }
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    path = write_suite(tmp_path, "tasks: tasks.jsonl\n")
    outcome = bench_cli("validate", path)
    assert outcome.exit_code == 2
    assert outcome.stderr.strip().endswith(
        "tasks[0].evaluate.api_base: task 'a': a data row may not choose where model calls go or which key "
        "they send; define this evaluator in the suite file and name it from the row"
    )
    row["evaluate"] = {
        "type": "llm_judge",
        "config": {"prompt": "ok? {response}", "model": "openai/m", "api_key_env": "AWS_SECRET"},
    }
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    outcome = bench_cli("run", path)
    assert outcome.exit_code == 2
    assert "tasks[0].evaluate.config.api_key_env: task 'a': a data row may not choose" in outcome.stderr
    assert not (tmp_path / ".bench").exists()


def test_n13_a_long_secret_in_the_console_summary_is_redacted_before_it_is_cut(
    bench_cli, tmp_path, monkeypatch
):
    secret = "sk-proj-" + "A1b2C3d4" * 20
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    (tmp_path / "raises_with_key.py").write_text(
        "import os\ndef answer(task):\n    raise RuntimeError('provider said: invalid key ' + os.environ['OPENAI_API_KEY'])\n"
    )
    tasks = "".join(f"  - {{id: t{i}, prompt: x, evaluate: {{expected: x}}}}\n" for i in range(25))
    path = write_suite(
        tmp_path, f"target: {{type: python, function: 'raises_with_key:answer'}}\ntasks:\n{tasks}"
    )
    outcome = bench_cli("run", path)
    assert outcome.exit_code == 3
    assert "[REDACTED:OPENAI_API_KEY]" in outcome.output
    assert "A1b2C3d4" not in outcome.output


def test_n14_secrets_are_redacted_in_the_forms_json_writes_them(bench_cli, tmp_path, monkeypatch):
    monkeypatch.setenv("DB_PASSWORD", 'C:\\secret\\pa"ss')
    monkeypatch.setenv("HF_TOKEN", "hf_müllerGeheim12")
    (tmp_path / "echo_escaped_secrets.py").write_text(
        "import os\ndef answer(task):\n    return 'pw ' + os.environ['DB_PASSWORD'] + ' tok ' + os.environ['HF_TOKEN']\n"
    )
    path = write_suite(
        tmp_path,
        "target: {type: python, function: 'echo_escaped_secrets:answer'}\ntasks:\n  - {id: a, prompt: x, evaluate: {expected: pw}}\n",
    )
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    (task,) = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert task["response"] == "pw [REDACTED:DB_PASSWORD] tok [REDACTED:HF_TOKEN]"
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".py")
    for form in (b'pa"ss', b'pa\\"ss', b"Geheim", b"m\\u00fcller"):
        assert form not in written, form


def test_n17_a_command_runs_with_default_signal_handling_and_its_own_locale(tmp_path, monkeypatch):
    from bench.testing import run_suite

    monkeypatch.delenv("LC_CTYPE", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.setenv("LANG", "C")
    script = "yes | head -c1 >/dev/null; echo status=$${PIPESTATUS[0]} lc=$${LC_CTYPE-unset}"
    path = write_suite(
        tmp_path,
        f"target: {{type: command, command: [bash, -c, {json.dumps(script)}]}}\n"
        "tasks:\n  - {id: a, prompt: x, evaluate: {expected: x}}\n",
    )
    (task,) = run_suite(path).report.tasks()
    assert task["response"].strip() == "status=141 lc=unset"  # SIGPIPE killed `yes`, as in a shell


def test_n18_a_file_url_repo_in_a_row_may_not_hide_its_path_behind_a_hash(bench_cli, tmp_path):
    (tmp_path / "x#").mkdir()
    git_repo(tmp_path.parent / f"{tmp_path.name}-outside", {"a.txt": "secret\n"})
    url = f"file://{tmp_path}/x#/../../{tmp_path.name}-outside"
    row = {"id": "a", "prompt": "p", "repo": url, "evaluate": {"expected": "p"}}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(row) + "\n")
    path = write_suite(tmp_path, "target: {type: echo}\ntasks: tasks.jsonl\n")
    outcome = bench_cli("validate", path)
    assert outcome.exit_code == 2
    assert outcome.stderr.strip().endswith("tasks[0].repo: task 'a': a file:// repo may not hold '?' or '#'")


def test_n19_a_secret_with_a_trailing_newline_is_still_redacted():
    from bench.vocabulary.redact import Redactor

    redact = Redactor({"OPENAI_API_KEY": "sk-abcdef1234567890\n", "PIN_KEY": "12345678"})
    assert redact("key sk-abcdef1234567890 here") == "key [REDACTED:OPENAI_API_KEY] here"
    assert redact('{"tokens": 12345678}') == '{"tokens": 12345678}'  # numbers are left alone: JSON stays JSON
    assert redact("AUTHORIZATION: BEARER sk-zyxwvu98765") == "AUTHORIZATION: BEARER [REDACTED]"


# N31, N32: a secret must leave no piece, in any form, in what bench writes or prints.
PROJECT_KEY = "sk-proj-iK2ZWeqhFWCEPyYngFb51yBMWXaSCrUZoL8g5ubbbPIa84yRnBUbHoWC8FJowoRoWD8s7bA16J7PglOU"
# A .env password with a backslash, both quote kinds and what HTML, XML, CSV and Markdown escape.
ESCAPED_PASSWORD = "Kx9\\Qm'Lp\"Zr<Tw&Vy>Nb_Jc*Hd|Fg`Sa[Ue]"
PIECE = 12


def _forms(secret: str) -> set[str]:
    """``secret`` as bench might write it: as is, quoted by ``repr`` or JSON (reasons), and each of
    those as every report writes text (JSON, HTML, HTML's script JSON, XML, CSV, Markdown)."""
    from xml.sax.saxutils import escape

    from bench.report.reporters.html import escape_json

    def inner_json(text: str, ascii_only: bool) -> str:
        return json.dumps(text, ensure_ascii=ascii_only)[1:-1]

    quoted = {secret, repr(secret + '"')[1:-2], repr(secret)[1:-1]}
    quoted |= {inner_json(q, a) for q in quoted for a in (True, False)}
    reports = [
        lambda s: s,
        lambda s: inner_json(s, True),
        lambda s: inner_json(s, False),
        lambda s: escape_json(inner_json(s, False)),
        html.escape,
        lambda s: html.escape(s, quote=False),
        lambda s: escape(s, {'"': "&quot;", "\n": "&#10;"}),
        lambda s: s.replace('"', '""'),
        lambda s: re.sub(r"([\\`*_{}\[\]|~])", r"\\\1", html.escape(s, quote=False)),
    ]
    return {write(q) for q in quoted for write in reports}


def _pieces_shown(text: str, *secrets: str) -> list[str]:
    """Every 12-character piece of a form of a secret that ``text`` holds."""
    return sorted(
        {
            form[i : i + PIECE]
            for secret in secrets
            for form in _forms(secret)
            for i in range(len(form) - PIECE + 1)
            if form[i : i + PIECE] in text
        }
    )


def _everything_written(tmp_path: Path, *commands) -> str:
    """The text of every file under ``tmp_path`` (the run folder and each report) and the output of
    each command."""
    files = [p for p in sorted(tmp_path.rglob("*")) if p.is_file() and p.suffix not in (".py", ".yaml")]
    return "\n".join(
        [p.read_text(encoding="utf-8", errors="replace") for p in files]
        + [c.stdout + c.stderr for c in commands]
    )


def _run_every_report(bench_cli, path: Path):
    return bench_cli(
        "run", path, "-o", "out.json", "--junit", "junit.xml",
        *("--report", "jsonl=out.jsonl", "--report", "csv=out.csv"),
        *("--report", "html=out.html", "--report", "markdown=out.md"),
    )  # fmt: skip


def _viewer_data(tmp_path: Path, task: str) -> str:
    from bench.report.viewer.data import RunsView

    view = RunsView(tmp_path / ".bench" / "runs")
    return json.dumps([view.run_page("latest", {}), view.task("latest", task)])


def test_n31_no_piece_of_a_key_a_command_agent_prints_reaches_any_file_or_the_console(
    bench_cli, tmp_path, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", PROJECT_KEY)
    (tmp_path / "agent.py").write_text(
        "import os\nprint('my key: ' + os.environ['OPENAI_API_KEY'] + ', then' + ' more words' * 9)\n"
    )
    checks = {
        "exact": "{type: exact_match, value: '42'}",
        "equals": "{type: equals, value: '42'}",
        "regex": "{type: regex, value: '^42$'}",
        "contains": "{type: contains, value: '42'}",
        "starts": "{type: starts_with, value: 'The answer'}",
        "number": "{type: numeric_match, value: 42}",
    }
    tasks = "".join(f"  - {{id: {name}, prompt: x, evaluate: {check}}}\n" for name, check in checks.items())
    path = write_suite(
        tmp_path, f"target: {{type: command, command: [{json.dumps(PY)}, agent.py]}}\ntasks:\n{tasks}"
    )
    outcome = _run_every_report(bench_cli, path)
    assert outcome.exit_code == 3, outcome.output
    shown = [bench_cli("show", "latest"), *(bench_cli("show", "latest", name) for name in checks)]
    written = _everything_written(tmp_path, outcome, *shown) + _viewer_data(tmp_path, "exact")
    assert _pieces_shown(written, PROJECT_KEY) == []
    # The reasons quoted the response, cut, with the key redacted before the cut.
    assert (
        "got 'my key: [REDACTED:OPENAI_API_KEY], then ' … 'e words more words more words more words'"
        in written
    )


def test_n32_a_secret_quoted_with_escapes_is_redacted_in_every_form_bench_writes(
    bench_cli, tmp_path, monkeypatch
):
    monkeypatch.setenv("DB_PASSWORD", ESCAPED_PASSWORD)
    (tmp_path / "agent.py").write_text("import os\nprint('pw ' + os.environ['DB_PASSWORD'])\n")
    checks = {
        "exact": "{type: exact_match, value: '42'}",
        "starts": "{type: starts_with, value: 'The answer'}",
        "number": "{type: numeric_match, value: 42}",
        "boolean": "{type: boolean_assert, value: true}",
    }
    tasks = "".join(f"  - {{id: {name}, prompt: x, evaluate: {check}}}\n" for name, check in checks.items())
    path = write_suite(
        tmp_path,
        'name: "nightly ${DB_PASSWORD}"\n'
        f"target: {{type: command, command: [{json.dumps(PY)}, agent.py]}}\ntasks:\n{tasks}",
    )
    outcome = _run_every_report(bench_cli, path)
    assert outcome.exit_code == 3, outcome.output
    shown = [bench_cli("show", "latest"), *(bench_cli("show", "latest", name) for name in checks)]
    written = _everything_written(tmp_path, outcome, *shown) + _viewer_data(tmp_path, "exact")
    assert _pieces_shown(written, ESCAPED_PASSWORD) == []
    assert "got 'pw [REDACTED:DB_PASSWORD]'" in written


SECRETS = {"DB_PASSWORD": ESCAPED_PASSWORD, "API_KEY": "pa\\ss-w0rd-Xq7", "APP_SECRET": "it's-a-s3cret-99"}


@pytest.mark.parametrize(
    "quote",
    [
        repr,
        lambda s: repr(s + '"'),
        json.dumps,
        lambda s: json.dumps(repr(s)),
        lambda s: json.dumps(json.dumps(s)),
    ],
    ids=["repr", "repr-with-double-quote", "json", "json-of-repr", "json-of-json"],
)
@pytest.mark.parametrize("name", SECRETS)
def test_n32_the_redactor_knows_a_secret_as_repr_and_json_quote_it(quote, name):
    from bench.vocabulary.redact import Redactor

    secret = SECRETS[name]
    redacted = Redactor(SECRETS)(quote(f"said {secret} twice: {secret}!"))
    assert redacted.count(f"[REDACTED:{name}]") == 2
    assert _pieces_shown(redacted, secret) == []


def test_n31_excerpt_and_quoted_redact_before_they_cut_and_keep_a_marker_whole(monkeypatch):
    from bench.vocabulary import excerpt, quoted, redact

    monkeypatch.setattr(redact, "_current", redact.Redactor({"OPENAI_API_KEY": PROJECT_KEY}))
    text = f"head {PROJECT_KEY} middle {PROJECT_KEY} tail"
    assert excerpt(text, 12) == "head [REDACTED:OPENAI_API_KEY]…"
    assert excerpt(text, 12, keep="end") == "…[REDACTED:OPENAI_API_KEY] tail"
    assert (
        excerpt(text, 80, ellipsis="...")
        == "head [REDACTED:OPENAI_API_KEY] middle [REDACTED:OPENAI_API_KEY] tail"
    )
    assert quoted(text, 20) == "'head [REDACTED:OPENAI_API_KEY]' … '[REDACTED:OPENAI_API_KEY] tail'"
    assert quoted("it's a\\b") == '"it\'s a\\\\b"'
