"""promptfoo's JavaScript in bench: the Node.js worker, javascript checks, transforms, filters,
derivedMetrics; with Node.js absent, every such check is an error naming it.

Tests marked ``needs_node`` skip (with the reason) where ``node`` is not on PATH; the noxfile's
bench-formats session installs Debian's nodejs when it can.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError, EvaluatorError
from bench_formats.promptfoo import javascript_checks, node_worker
from bench_formats.promptfoo.derived_metrics import FormulaError, compute, evaluate
from bench_formats.promptfoo.javascript_checks import function_body
from bench_formats.promptfoo.loader import PromptfooLoader

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js ('node') is not on PATH")


@pytest.fixture(autouse=True)
def _fresh_worker() -> Iterator[None]:
    """Each test starts without a worker and leaves none running."""
    node_worker.shutdown()
    yield
    node_worker.shutdown()


@pytest.fixture
def no_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node_worker, "node_path", lambda: None)


def _config(folder: Path, text: str) -> Path:
    path = folder / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _grade(value: Any, output: Any = "hello", folder: Path | None = None, **extra: Any) -> Any:
    assertion = {"type": extra.pop("kind", "javascript"), "value": value, **extra}
    return asyncio.run(
        javascript_checks.javascript(assertion["type"], assertion, output, {"vars": {}}, folder)
    )


def _run(config: Path, folder: Path, env: dict[str, str] | None = None) -> tuple[int, str, dict[str, Any]]:
    out = folder / "out.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "run", str(config), "--target", "echo", "-o", str(out)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )
    return done.returncode, done.stdout + done.stderr, json.loads(out.read_text()) if out.exists() else {}


# --- how a one-line value becomes a function body (no Node.js needed) ---


@pytest.mark.parametrize(
    ("code", "body"),
    [
        ("output === 'test'", "return output === 'test'"),
        ("output.length > 5;;  ", "return output.length > 5"),
        ("const s = JSON.parse(output).score; s > 0.5", "const s = JSON.parse(output).score; return s > 0.5"),
        ("const s = output; s === 'a;b'", "const s = output; return s === 'a;b'"),
        ("let x = 'it\\'s;'; x.length", "let x = 'it\\'s;'; return x.length"),
        ("const x = 1", "const x = 1"),
    ],
)
def test_a_one_line_javascript_value_returns_its_last_expression(code: str, body: str):
    assert function_body(code) == body


# --- derivedMetrics: mathjs formulas (no Node.js needed) ---


def test_derived_metric_formulas_follow_mathjs_arithmetic():
    names = {"a": 3.0, "b": 0.0}
    assert evaluate("2 ^ 3 ^ 2", names) == 512.0
    assert evaluate("a / b", names) == math.inf
    assert math.isnan(evaluate("b / b", names))
    assert evaluate("max(a, 1) + min(a, 1) + -a % 2", names) == 5.0
    with pytest.raises(FormulaError, match=r"^Undefined symbol c$"):
        evaluate("a + c", names)


def test_derived_metrics_are_computed_after_each_row_of_a_column():
    definitions = [{"name": "f", "value": "p / __count"}, {"name": "g", "value": "f + later"}]
    rows = [("x", {"p": 1.0}), ("y", {"p": 4.0}), ("x", {"p": 0.5, "later": 2.0})]
    # g fails until `later` exists, then sees f of the same row
    assert compute(definitions, rows) == {"x": {"f": 0.75, "g": 2.75}, "y": {"f": 4.0, "g": 0.0}}


# --- javascript checks in the worker ---


@needs_node
def test_javascript_results_become_promptfoos_grades():
    assert _grade("output.length > 3") == javascript_checks.Grade(True, 1.0, "Assertion passed")
    assert _grade("output.length > 9").reason == "Custom function returned false\noutput.length > 9"
    assert _grade("0.25", threshold=0.5) == javascript_checks.Grade(
        False, 0.25, "Custom function returned false\n0.25"
    )
    assert _grade("output.includes('x')", kind="not-javascript").passed
    graded = _grade("({pass: true, score: 0.5, reason: 'ok', namedScores: {tone: 1}})")
    assert graded == javascript_checks.Grade(True, 0.5, "ok", {"tone": 1.0})


@needs_node
def test_a_syntax_error_fails_the_check_with_its_message():
    grade = _grade("output ===")
    assert not grade.passed
    assert grade.reason.startswith(
        "Custom function threw error: Unexpected token '}'\nStack Trace: SyntaxError"
    )
    assert grade.reason.endswith("\noutput ===")


@needs_node
def test_a_wrong_return_type_fails_with_promptfoos_message():
    grade = _grade("'yes'")
    assert grade.reason.startswith(
        "Custom function threw error: Custom function must return a boolean, number, or GradingResult "
        'object. Got type string: "yes"'
    )


@needs_node
def test_console_output_of_a_check_does_not_disturb_the_worker():
    code = "console.log('{\"id\": 1, \"ok\": true}');\nprocess.stdout.write('noise\\n');\nreturn true"
    assert _grade(code).passed
    assert _grade("output === 'hello'").passed


@needs_node
def test_an_endless_check_is_stopped_at_the_time_limit(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(node_worker, "CALL_TIMEOUT_S", 0.5)
    with pytest.raises(EvaluatorError) as caught:
        _grade("while (true) {}\nreturn true")
    assert str(caught.value) == "javascript: did not finish: Script execution timed out after 500ms"
    assert _grade("true").passed  # the same worker goes on


@needs_node
def test_a_never_settling_promise_is_stopped_at_the_time_limit(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(node_worker, "CALL_TIMEOUT_S", 0.3)
    with pytest.raises(
        EvaluatorError, match=r"^javascript: did not finish: Script execution timed out after 300ms$"
    ):
        _grade("new Promise(() => {})")


@needs_node
def test_a_dead_worker_is_replaced_at_the_next_call():
    first = node_worker.worker()
    first.process.kill()
    first.process.wait()
    assert _grade("true").passed
    assert node_worker.worker().process.pid != first.process.pid


@needs_node
def test_a_missing_file_or_function_is_an_error_naming_it(tmp_path: Path):
    (tmp_path / "checks.js").write_text("module.exports = { ok: () => true };\n")
    with pytest.raises(EvaluatorError) as caught:
        _grade("file://nowhere.js", folder=tmp_path)
    assert (
        str(caught.value)
        == f"javascript: ENOENT: no such file or directory, open '{tmp_path / 'nowhere.js'}'"
    )
    with pytest.raises(EvaluatorError) as caught:
        _grade("file://checks.js:absent", folder=tmp_path)
    assert str(caught.value) == (
        f"javascript: Assertion malformed: {tmp_path / 'checks.js'} must export a function or have a "
        "default export as a function"
    )
    assert _grade("file://checks.js:ok", folder=tmp_path).passed


@needs_node
def test_a_typescript_file_is_an_error_naming_it(tmp_path: Path):
    with pytest.raises(EvaluatorError) as caught:
        _grade("file://check.ts", folder=tmp_path)
    assert (
        str(caught.value)
        == "javascript: file://check.ts is TypeScript; bench runs JavaScript files (.js, .cjs, .mjs)"
    )


@needs_node
def test_one_worker_serves_the_whole_run_and_ends_with_it(tmp_path: Path):
    """Every row's check runs in the same Node.js process, which is gone once bench exits."""
    rows = "\n".join(f"  - vars: {{n: {n}}}" for n in range(5))
    config = _config(
        tmp_path,
        "prompts: ['n={{n}}']\nproviders: [echo]\ndefaultTest:\n  assert:\n"
        '    - type: javascript\n      value: "({pass: true, score: 1, reason: String(process.pid)})"\n'
        f"tests:\n{rows}\n",
    )
    code, output, data = _run(config, tmp_path)
    assert code == 0, output
    pids = {t["evaluators"][0]["details"]["assertions"][0]["reason"] for t in data["tasks"]}
    assert len(pids) == 1
    pid = int(pids.pop())
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


# --- the loader: filters and transformVars ---


@needs_node
def test_nunjucks_filters_render_through_node(tmp_path: Path):
    (tmp_path / "up.js").write_text("module.exports = (s, mark) => String(s).toUpperCase() + mark;\n")
    config = _config(
        tmp_path,
        "prompts: ['{{ name | up(\"!\") }}']\nproviders: [echo]\nnunjucksFilters: {up: up.js}\ntests: [{vars: {name: ada}}]\n",
    )
    assert PromptfooLoader().load(config).data["tasks"][0]["prompt"] == "ADA!"


@needs_node
def test_a_filter_that_throws_refuses_the_config_naming_it(tmp_path: Path):
    (tmp_path / "bad.js").write_text("module.exports = () => { throw new Error('no way'); };\n")
    config = _config(
        tmp_path,
        "prompts: ['{{ name | bad }}']\nproviders: [echo]\nnunjucksFilters: {bad: bad.js}\ntests: [{vars: {name: x}}]\n",
    )
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(config)
    assert (
        caught.value.message
        == "test 1: cannot render template '{{ name | bad }}': filter 'bad' (bad.js): no way"
    )


def test_without_node_a_template_with_a_javascript_filter_is_refused_naming_it(tmp_path: Path, no_node: None):
    (tmp_path / "up.js").write_text("module.exports = (s) => s;\n")
    config = _config(
        tmp_path,
        "prompts: ['{{ name | up }}']\nproviders: [echo]\nnunjucksFilters: {up: up.js}\ntests: [{vars: {name: a}}]\n",
    )
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(config)
    assert caught.value.message == (
        "test 1: cannot render template '{{ name | up }}': filter 'up' (up.js): needs Node.js to run "
        "JavaScript, but no 'node' is on PATH, so it did not run"
    )


def test_without_node_transform_vars_is_refused_naming_it(tmp_path: Path, no_node: None):
    config = _config(
        tmp_path,
        "prompts: ['{{ name }}']\nproviders: [echo]\ntests:\n  - description: shout\n    vars: {name: a}\n"
        "    options: {transformVars: '({name: vars.name.toUpperCase()})'}\n",
    )
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(config)
    assert caught.value.message == (
        "shout: options.transformVars: needs Node.js to run JavaScript, but no 'node' is on PATH, so it did not run"
    )


@needs_node
def test_transform_vars_must_return_an_object(tmp_path: Path):
    config = _config(
        tmp_path,
        "prompts: ['{{ name }}']\nproviders: [echo]\ntests:\n  - description: t\n    vars: {name: a}\n"
        "    options: {transformVars: '42'}\n",
    )
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(config)
    assert (
        caught.value.message == "t: options.transformVars: Transform function did not return a valid object"
    )


def test_a_script_outside_the_suite_folder_is_refused(tmp_path: Path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (tmp_path / "outside.js").write_text("module.exports = () => true;\n")
    config = _config(
        suite,
        "prompts: [hi]\nproviders: [echo]\ntests:\n  - assert: [{type: javascript, value: 'file://../outside.js'}]\n",
    )
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(config)
    assert "path escapes the suite folder" in caught.value.message
    assert "file://../outside.js" in caught.value.message


# --- without Node.js: errors, never passes ---


def test_without_node_a_transform_or_script_value_is_an_error_naming_the_check(tmp_path: Path):
    """A row whose transform or file://x.js value could not run is an error, not a verdict."""
    (tmp_path / "expected.js").write_text("module.exports = () => 'hi';\n")
    config = _config(
        tmp_path,
        "prompts: [hi]\nproviders: [echo]\ntests:\n"
        "  - description: transformed\n    assert: [{type: contains, value: HI, transform: output.toUpperCase()}]\n"
        "  - description: scripted\n    assert: [{type: contains, value: 'file://expected.js'}]\n"
        "  - description: plain\n    assert: [{type: contains, value: hi}]\n",
    )
    empty = tmp_path / "bin"
    empty.mkdir()
    code, output, data = _run(config, tmp_path, {**os.environ, "PATH": str(empty)})
    assert code == 3, output
    errors = {t["id"]: t["evaluators"][0]["error"] for t in data["tasks"]}
    assert errors == {
        "transformed": "contains: its transform: needs Node.js to run JavaScript, but no 'node' is on PATH, so it did not run",
        "scripted": "contains: its value file://expected.js: needs Node.js to run JavaScript, but no 'node' is on "
        "PATH, so it did not run",
        "plain": None,
    }
    assert "3 tasks: 1 passed, 0 failed, 2 errors" in output
