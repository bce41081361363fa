"""promptfoo's Python, run as promptfoo 0.121.20 runs it: ``python`` assertions (python_checks),
Python providers (the ``promptfoo-python`` target) and the worker process both use (python_runner).
Verdicts on promptfoo's own output: the python-assert and python-provider conformance cases."""

from __future__ import annotations

import os
import sys
import textwrap
import traceback
from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError, TaskResult
from bench.testing import run_evaluator, run_suite
from bench_formats.promptfoo.python_runner import PythonTimeout, PythonWorker


def check(asserts: list[dict[str, Any]], output: str, **settings: Any) -> Any:
    return run_evaluator({"type": "promptfoo", "assert": asserts, **settings}, output)


def _script(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def _syntax_error(path: Path) -> SyntaxError:
    """The SyntaxError this Python gives for ``path`` (its wording differs between versions)."""
    try:
        compile(path.read_text(encoding="utf-8"), str(path), "exec")
    except SyntaxError as exc:
        return exc
    raise AssertionError(f"{path} compiles")


def _config(folder: Path, text: str) -> Path:
    return _script(folder, "promptfooconfig.yaml", text)


def _tasks(config: Path) -> dict[str, Any]:
    outcome = run_suite(config, runs_dir=config.parent / "runs")
    tasks = [TaskResult.model_validate(row) for row in outcome.report.tasks()]
    return {task.id: task for task in tasks}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# --- python assertions ----------------------------------------------------------------------


def test_python_assertion_runs_rather_than_being_skipped() -> None:
    # was skipped ("bench does not run Python assertions"): now promptfoo's verdict, over the vars
    asserts = [{"type": "python", "value": "context['vars']['topic'] in output"}]
    assert check(asserts, "about bananas", vars={"topic": "bananas"}).passed
    out = check(asserts, "about kiwis", vars={"topic": "bananas"})
    assert (out.passed, out.score) == (False, 0.0)
    assert out.reason == "Python code returned false\ncontext['vars']['topic'] in output"


def test_python_assertion_body_returns_a_grading_result_with_named_scores() -> None:
    body = "if 'a' in output:\n    return {'pass': True, 'score': 0.5, 'reason': 'ok', 'named_scores': {'x': 0.5}}\nreturn False"
    out = check([{"type": "python", "value": body}], "abc")
    assert (out.passed, out.score, out.reason) == (True, 0.5, "All assertions passed")
    assert out.details["named_scores"] == {"x": 0.5}


def test_python_assertion_number_threshold_and_inverse() -> None:
    out = check([{"type": "python", "value": "0.25", "threshold": 0.5}], "x")
    assert (out.passed, out.score, out.reason) == (False, 0.25, "Python code returned false\n0.25")
    # not-: pass inverts, the score stays the script's
    out = check([{"type": "not-python", "value": "0.25"}], "x")
    assert (out.passed, out.score) == (False, 0.25)


def test_python_assertion_from_a_file_and_a_named_function(tmp_path: Path) -> None:
    path = _script(
        tmp_path,
        "check.py",
        """
        def get_assert(output, context):
            return output.startswith(context["vars"]["start"])

        def length(output, context):
            return len(output) / 10
        """,
    )
    assert check([{"type": "python", "value": f"file://{path}"}], "hello", vars={"start": "he"}).passed
    out = check([{"type": "python", "value": f"file://{path}:length"}], "hello")
    assert (out.passed, out.score) == (True, 0.5)


def test_python_assertion_missing_function_fails_with_promptfoos_reason(tmp_path: Path) -> None:
    path = _script(tmp_path, "check.py", "def other(output, context):\n    return True\n")
    out = check([{"type": "python", "value": f"file://{path}:nope"}], "x")
    assert (out.passed, out.score) == (False, 0.0)
    assert out.reason == (
        "Error running Python script: AttributeError: module 'check' has no attribute 'nope'\n"
        "Stack Trace: AttributeError: module 'check' has no attribute 'nope'"
    )


def test_python_assertion_syntax_error_fails_with_promptfoos_reason(tmp_path: Path) -> None:
    path = _script(tmp_path, "check.py", "def get_assert(output, context)\n    return True\n")
    error = _syntax_error(path)
    shown = "".join(traceback.format_exception_only(type(error), error))
    out = check([{"type": "python", "value": f"file://{path}"}], "x")
    assert (out.passed, out.score) == (False, 0.0)
    assert out.reason == (
        f"Error running Python script: {shown.splitlines()[-1]}\nStack Trace: {shown.rstrip()}"
    )


def test_inline_python_that_raises_fails_with_its_traceback() -> None:
    out = check([{"type": "python", "value": "1 / 0"}], "x")
    assert (out.passed, out.score) == (False, 0.0)
    assert out.reason == (
        "Python code execution failed: Error running Python script: ZeroDivisionError: division by zero\n"
        "Stack Trace: Traceback (most recent call last):\n"
        '  File "<inline python>", line 4, in main\n'
        "ZeroDivisionError: division by zero"
    )


def test_python_assertion_past_its_time_limit_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQUEST_TIMEOUT_MS", "300")
    out = check([{"type": "python", "value": "__import__('time').sleep(30)"}], "x")
    assert out.error == "python: the check did not run: Python worker timed out after 300ms"
    assert not out.passed


def test_promptfoo_python_names_the_interpreter(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "no-python"
    monkeypatch.setenv("PROMPTFOO_PYTHON", str(missing))
    out = check([{"type": "python", "value": "True"}], "x")
    assert out.error == (
        f"python: the check did not run: cannot start Python '{missing}': No such file or directory"
    )


def test_a_script_gives_another_assertion_its_value(tmp_path: Path) -> None:
    path = _script(tmp_path, "expected.py", "def get_assert(output, context):\n    return 'ELL'\n")
    assert check([{"type": "icontains", "value": f"file://{path}"}], "hello").passed
    bad = _script(tmp_path, "flag.py", "def get_assert(output, context):\n    return True\n")
    out = check([{"type": "contains", "value": f"file://{bad}"}], "hello")
    assert out.error == (
        'contains: Script for "contains" assertion returned a boolean. Only javascript/python/ruby '
        "assertion types can return boolean values. For other assertion types, return the expected "
        "value (string, number, array, or object)."
    )


def test_user_prints_do_not_break_the_protocol(tmp_path: Path) -> None:
    path = _script(
        tmp_path,
        "noisy.py",
        """
        import sys

        def get_assert(output, context):
            print('{"ok": false}')
            sys.stdout.write("no newline")
            return True
        """,
    )
    out = check([{"type": "python", "value": f"file://{path}"}], "x")
    assert (out.passed, out.score) == (True, 1.0)


def test_one_worker_serves_every_row_of_a_run(tmp_path: Path) -> None:
    # the module is loaded once and the process reused: its counter goes 1, 2, 3 across the rows
    _script(
        tmp_path,
        "count.py",
        """
        import os
        calls = []

        def get_assert(output, context):
            calls.append(os.getpid())
            return {"pass": True, "score": len(calls) / 10, "reason": "counted",
                    "named_scores": {"same_process": float(len(set(calls)) == 1)}}
        """,
    )
    config = _config(
        tmp_path,
        """
        prompts: ['{{n}}']
        providers: [echo]
        defaultTest:
          assert: [{type: python, value: 'file://count.py'}]
        tests:
          - vars: {n: one}
          - vars: {n: two}
          - vars: {n: three}
        """,
    )
    tasks = _tasks(config)
    assert sorted(task.score for task in tasks.values()) == [0.1, 0.2, 0.3]
    assert all(task.evaluators[0].details["named_scores"] == {"same_process": 1.0} for task in tasks.values())


def test_a_timed_out_worker_is_killed_and_replaced() -> None:
    worker = PythonWorker(sys.executable)
    try:
        pid = worker.call(
            {"code": "import os\ndef f():\n    return os.getpid()\n", "function": "f", "args": []}, 5000
        )
        with pytest.raises(PythonTimeout, match=r"^Python worker timed out after 200ms$"):
            worker.call(
                {"code": "import time\ndef f():\n    time.sleep(30)\n", "function": "f", "args": []}, 200
            )
        assert not _alive(pid)
        again = worker.call(
            {"code": "import os\ndef f():\n    return os.getpid()\n", "function": "f", "args": []}, 5000
        )
        assert again != pid
    finally:
        worker.close()
    assert not _alive(again)


# --- Python providers -----------------------------------------------------------------------

PROVIDER = """
def call_api(prompt, options, context):
    if context["vars"]["topic"] == "fail":
        return {"error": "refused: " + context["vars"]["topic"]}
    if context["vars"]["topic"] == "object":
        return {"output": {"topic": "object"}}
    if context["vars"]["topic"] == "nothing":
        return {"answer": 1}
    return {
        "output": options["config"]["greeting"] + " " + prompt,
        "tokenUsage": {"total": 9, "prompt": 6, "completion": 3},
        "cost": 0.5,
    }

def slow(prompt, options, context):
    import time
    time.sleep(30)
"""


def test_python_provider_runs_rather_than_being_refused(tmp_path: Path) -> None:
    _script(tmp_path, "provider.py", PROVIDER)
    config = _config(
        tmp_path,
        """
        prompts: ['about {{topic}}']
        providers:
          - id: file://provider.py
            config: {greeting: Hi}
        tests:
          - {description: text, vars: {topic: tea}, assert: [{type: equals, value: Hi about tea}]}
          - {description: object, vars: {topic: object}, assert: [{type: is-json}]}
          - {description: error, vars: {topic: fail}}
          - {description: no output, vars: {topic: nothing}}
        """,
    )
    tasks = _tasks(config)
    assert (tasks["text"].status, tasks["text"].response) == ("passed", "Hi about tea")
    usage = tasks["text"].usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.cost_usd) == (6, 3, 9, 0.5)
    assert (tasks["object"].status, tasks["object"].response) == ("passed", '{"topic":"object"}')
    assert (tasks["error"].status, tasks["error"].error) == ("error", "refused: fail")
    assert tasks["no output"].status == "error"
    assert tasks["no output"].error == (
        "The Python script `call_api` function must return a dict with an own `output` string/object or "
        '`error` string (inherited prototype properties are rejected), instead got: {"answer":1}'
    )


def test_python_provider_missing_function_names_what_the_module_has(tmp_path: Path) -> None:
    _script(tmp_path, "provider.py", PROVIDER)
    config = _config(
        tmp_path,
        "prompts: ['x {{topic}}']\nproviders: ['python:provider.py:call_apy']\ntests: [{vars: {topic: a}}]\n",
    )
    (task,) = _tasks(config).values()
    assert task.status == "error"
    assert task.error == (
        "Python error: Function 'call_apy' not found in module 'provider'\n\n"
        "Available functions in your module: call_api, slow\n\n"
        "Expected function names for promptfoo:\n"
        "  • call_api(prompt, options, context) - for chat/completions\n"
        "  • call_embedding_api(prompt, options) - for embeddings\n"
        "  • call_classification_api(prompt, options) - for classification\n\n"
        "See https://www.promptfoo.dev/docs/providers/python/ for details."
    )


def test_python_provider_with_a_syntax_error_stops_the_run(tmp_path: Path) -> None:
    path = _script(tmp_path, "provider.py", "def call_api(prompt, options, context)\n    return {}\n")
    config = _config(tmp_path, "prompts: [hi]\nproviders: [file://provider.py]\ntests: [{vars: {a: 1}}]\n")
    with pytest.raises(ConfigError) as caught:
        _tasks(config)
    assert (
        caught.value.message == f"provider 'file://provider.py': Failed to load module: {_syntax_error(path)}"
    )


def test_python_provider_past_its_timeout_is_an_error(tmp_path: Path) -> None:
    _script(tmp_path, "provider.py", PROVIDER)
    config = _config(
        tmp_path,
        """
        prompts: [hi]
        providers:
          - id: file://provider.py:slow
            config: {timeout: 300}
        tests: [{vars: {a: 1}}]
        """,
    )
    (task,) = _tasks(config).values()
    assert (task.status, task.error) == ("error", "Python worker timed out after 300ms")


def test_python_provider_outside_the_suite_folder_is_refused(tmp_path: Path) -> None:
    _script(tmp_path, "provider.py", PROVIDER)
    folder = tmp_path / "suite"
    folder.mkdir()
    config = _config(folder, "prompts: [hi]\nproviders: [file://../provider.py]\ntests: [{vars: {a: 1}}]\n")
    with pytest.raises(ConfigError) as caught:
        _tasks(config)
    assert caught.value.message == (
        f"path escapes the suite folder: provider 'file://../provider.py' runs its script (resolved to "
        f"{tmp_path / 'provider.py'}); a suite may only read files inside {folder} (pass "
        "--allow-outside-root to allow it)"
    )


def test_the_python_worker_runs_user_code_behind_the_offline_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under --offline (BENCH_OFFLINE=1), user code that connects off loopback is refused in the
    worker itself, before the connect: the same refusal as bench's own process (docs/offline.md)."""
    monkeypatch.setenv("BENCH_OFFLINE", "1")
    worker = PythonWorker(sys.executable)
    code = (
        "import socket\ndef f():\n"
        "    try:\n        socket.create_connection(('192.0.2.1', 443), timeout=5)\n"
        "    except Exception as exc:\n        return str(exc)\n"
    )
    try:
        refused = worker.call({"code": code, "function": "f", "args": []}, 20_000)
    finally:
        worker.close()
    assert refused == (
        "offline: refused a connection to 192.0.2.1:443; an offline run connects only to loopback "
        "(127.0.0.1, ::1, localhost) and Unix sockets"
    )


#: User code that tries a connection off loopback, behind a safety net of its own (an audit hook it
#: adds): a worker whose guard is on (added first) refuses it with bench's message; a worker without
#: one reaches the safety net, never the network.
REACH_OUT = (
    "import socket, sys\n"
    "def _net(event, args):\n"
    "    if event == 'socket.connect' and args[1][0] != '127.0.0.1':\n"
    "        raise PermissionError('safety net: the worker had no offline guard')\n"
    "sys.addaudithook(_net)\n"
    "def f():\n"
    "    try:\n        socket.create_connection(('192.0.2.1', 443), timeout=5)\n"
    "    except Exception as exc:\n        return str(exc)\n"
)


def test_h17_a_python_worker_started_before_the_run_went_offline_is_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shared worker outlives a run: one started by an online run is not reused unguarded by an
    offline run in the same process (docs/offline.md)."""
    monkeypatch.delenv("BENCH_OFFLINE", raising=False)
    worker = PythonWorker(sys.executable)
    try:
        assert worker.call({"code": "def f():\n    return 1\n", "function": "f", "args": []}, 20_000) == 1
        monkeypatch.setenv("BENCH_OFFLINE", "1")
        refused = worker.call({"code": REACH_OUT, "function": "f", "args": []}, 20_000)
    finally:
        worker.close()
    assert refused == (
        "offline: refused a connection to 192.0.2.1:443; an offline run connects only to loopback "
        "(127.0.0.1, ::1, localhost) and Unix sockets"
    )
