"""docs/reliability.md group H: no secret reaches any file bench writes, or its output (H01-H05); generated
code sees no host secret (H10)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from bench.testing import run_evaluator
from bench.testing.pytest_plugin import CANARY_KEY
from bench.testing.server import Fault
from bench.testing.verdicts import judge_verdict
from bench.workspace import sandbox

# Every test here runs on both paths of the LLM client (the root conftest.py).
pytestmark = pytest.mark.usefixtures("llm_transport")


def _every_byte(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_h01_h05_canary_key_appears_in_no_output(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path, caplog
):
    (tmp_path / "leaky.py").write_text(
        "import os\ndef answer(task):\n    return 'my key is ' + os.environ['OPENAI_API_KEY']\n"
    )
    bench_fake_llm.add(Fault(500), match="fails", times=2)
    bench_fake_llm.add(Fault(401, message=f"Incorrect API key provided: {CANARY_KEY}"), match="unauthorised")
    bench_fake_llm.add(judge_verdict(passed=True))
    path = bench_suite_file(
        """
        target: {type: litellm, model: openai/fake}
        llm: {max_attempts: 2, max_consecutive_failures: 10}
        tasks:
          - {id: ok, prompt: hello, evaluate: {prompt: 'Is {response} fine?', model: openai/fake}}
          - {id: fails, prompt: fails, evaluate: {expected: x}}
          - {id: unauthorised, prompt: unauthorised, evaluate: {expected: x}}
        """
    )
    leaky = bench_suite_file(
        "target: {type: python, function: 'leaky:answer'}\ntasks:\n  - {id: leak, prompt: x, evaluate: {expected: key}}\n",
        name="leaky.yaml",
    )
    with caplog.at_level(logging.DEBUG):
        first = bench_cli("run", path, "-o", "out.json", "--junit", "junit.xml")
        second = bench_cli("run", leaky, "-o", "leak.json")
    assert first.exit_code == 3, first.output
    assert second.exit_code == 0, second.output
    canary = CANARY_KEY.encode()
    written = _every_byte(tmp_path)
    assert b"[REDACTED:OPENAI_API_KEY]" in written  # the leaks were there, and were caught
    assert canary not in written
    assert CANARY_KEY not in first.output + second.output
    assert CANARY_KEY not in caplog.text
    sent = bench_fake_llm.requests[0].headers.get("authorization", "")
    assert sent == f"Bearer {CANARY_KEY}"  # the key did reach the provider, and only there


def test_cache_keys_and_values_hold_no_key(bench_suite_file, bench_fake_llm, tmp_path):
    from bench.testing import run_suite

    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\ntasks:\n  - {id: a, prompt: hi, evaluate: {expected: hi}}\n"
    )
    run_suite(path)
    cache = tmp_path / ".bench" / "cache" / "llm.sqlite3"
    assert cache.exists()
    assert CANARY_KEY.encode() not in _every_byte(cache.parent)
    assert oct(cache.parent.stat().st_mode & 0o777) == "0o700"


QUERY_SECRET = "qs-7c1d2e3f4a5b6c7d8e9f"


def _scan(tmp_path: Path, output: str, *secrets: str) -> None:
    """No secret in any file bench wrote under the test folder (runs, cache, reports; the suite
    itself holds it) nor in what was printed."""
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".yaml")
    for secret in secrets:
        assert secret.encode() not in written, secret
        assert secret not in output, secret


def test_h02_a_key_in_the_api_base_query_reaches_no_manifest_report_or_console(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    bench_fake_llm.add(Fault(500))
    path = bench_suite_file(
        f"""
        target: {{type: litellm, model: openai/fake, api_base: '{bench_fake_llm.url}?key={QUERY_SECRET}'}}
        llm: {{max_attempts: 1, max_consecutive_failures: 2}}
        concurrency: 1
        tasks:
          - {{id: a, prompt: one, evaluate: {{expected: x}}}}
          - {{id: b, prompt: two, evaluate: {{expected: x}}}}
          - {{id: c, prompt: three, evaluate: {{expected: x}}}}
        """
    )
    outcome = bench_cli("run", path, "-o", "out.json", "--junit", "junit.xml")
    assert outcome.exit_code == 3, outcome.output
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["stopped"].startswith(
        "provider stopped: 2 consecutive failed calls to openai@http://127.0.0.1:"
    )
    manifest = json.loads(next((tmp_path / ".bench" / "runs").glob("*/manifest.json")).read_text())
    assert manifest["stopped"] == report["stopped"]
    assert "?" not in report["stopped"]  # a provider's name never carries the query (N09)
    _scan(tmp_path, outcome.output, QUERY_SECRET)


def test_h02_a_key_in_an_api_base_query_is_redacted_wherever_it_is_quoted():
    from bench.vocabulary.redact import Redactor

    redact = Redactor({})
    assert (
        redact(f"GET http://h/v1?key={QUERY_SECRET}&x=1 failed")
        == "GET http://h/v1?key=[REDACTED]&x=1 failed"
    )
    assert redact(f"https://user:{QUERY_SECRET}@h/v1") == "https://user:[REDACTED]@h/v1"
    assert redact("https://h/v1?model=x&api_key=abcdefgh123") == "https://h/v1?model=x&api_key=[REDACTED]"


def test_h03_litellm_debug_logging_prints_no_key(bench_suite_file, bench_fake_llm, tmp_path):
    path = bench_suite_file(
        f"""
        target: {{type: litellm, model: openai/fake, api_base: '{bench_fake_llm.url}?key={QUERY_SECRET}'}}
        tasks:
          - {{id: a, prompt: hello, evaluate: {{expected: x}}}}
        """
    )
    # litellm's own debug log: the call must go through litellm, not bench's direct HTTP path.
    env = {
        **os.environ,
        "LITELLM_LOG": "DEBUG",
        "OPENAI_API_KEY": CANARY_KEY,
        "BENCH_LLM_TRANSPORT": "litellm",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "run", str(path), "--verbose"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (1, 3), proc.stderr[-2000:]
    assert "LiteLLM DEBUG" in proc.stderr  # litellm's debug log was on
    assert "?key=[REDACTED]" in proc.stderr  # and quoted the URL: redacted
    _scan(tmp_path, proc.stdout + proc.stderr, CANARY_KEY, QUERY_SECRET)


def test_h04_an_internal_error_prints_its_traceback_redacted(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path, monkeypatch
):
    from bench.report.reporters.json import JsonReporter

    def broken(self, report, path):
        raise RuntimeError(f"reporter broke while holding {os.environ['OPENAI_API_KEY']}")

    monkeypatch.setattr(JsonReporter, "write", broken)
    path = bench_suite_file("tasks:\n  - {id: a, response: hi, evaluate: {expected: hi}}\n")
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 4
    assert "internal error (please report it):" in outcome.stderr
    assert "RuntimeError: reporter broke while holding [REDACTED:OPENAI_API_KEY]" in outcome.stderr
    _scan(tmp_path, outcome.output, CANARY_KEY)


def test_h05_the_variable_named_by_api_key_env_is_redacted_whatever_its_name(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path, monkeypatch
):
    secret = "auth-5e6f7a8b9c0d1e2f"
    monkeypatch.setenv("LLM_AUTH", secret)
    (tmp_path / "echo_auth.py").write_text(
        "import os\ndef answer(task):\n    return 'auth is ' + os.environ['LLM_AUTH']\n"
    )
    bench_fake_llm.add(judge_verdict(passed=False, reason=f"the response quotes {secret}"))
    path = bench_suite_file(
        """
        target: {type: python, function: 'echo_auth:answer'}
        tasks:
          - id: a
            prompt: x
            evaluate: {prompt: 'Is {response} fine?', model: openai/fake, api_key_env: LLM_AUTH}
        """
    )
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 1, outcome.output
    assert bench_fake_llm.requests[0].headers["authorization"] == f"Bearer {secret}"
    assert "[REDACTED:LLM_AUTH]" in (tmp_path / "out.json").read_text()
    _scan(tmp_path, outcome.output, secret)


def test_h01_a_response_echoing_a_key_is_never_written_to_the_cache(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    from bench.testing.server import Reply

    bench_fake_llm.add(Reply(f"the key is {CANARY_KEY}"))
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\ntasks:\n  - {id: a, prompt: leak, evaluate: {expected: key}}\n"
    )
    first = bench_cli("run", path, "-o", "first.json")
    second = bench_cli("run", path, "-o", "second.json")
    assert first.exit_code == second.exit_code == 0, first.output + second.output
    assert bench_fake_llm.count() == 2  # never cached, so asked again: the same verdict either way
    assert json.loads((tmp_path / "second.json").read_text())["tasks"][0]["response"] == (
        "the key is [REDACTED:OPENAI_API_KEY]"
    )
    _scan(tmp_path, first.output + second.output, CANARY_KEY)


def test_h09_a_planted_cache_entry_loads_as_data_never_as_code(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    import pickle
    import sqlite3

    marker = tmp_path / "PWNED"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\ntasks:\n  - {id: a, prompt: hi, evaluate: {expected: hi}}\n"
    )
    assert bench_cli("run", path).exit_code == 0
    cache = tmp_path / ".bench" / "cache" / "llm.sqlite3"
    with sqlite3.connect(cache) as db:
        db.execute("UPDATE responses SET value = ?", (pickle.dumps(Exploit()),))
    outcome = bench_cli("run", path)
    assert outcome.exit_code == 0, outcome.output
    assert not marker.exists()
    assert "is unusable" in outcome.output  # a warning, then the run went on uncached
    assert bench_fake_llm.count() == 2


def test_h09_a_cache_folder_other_users_can_write_is_not_used(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    folder = tmp_path / ".bench" / "cache"
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\ntasks:\n  - {id: a, prompt: hi, evaluate: {expected: hi}}\n"
    )
    first = bench_cli("run", path)
    second = bench_cli("run", path)
    assert first.exit_code == second.exit_code == 0
    assert (
        f"warning: response cache folder {folder} is writable by other users; running uncached"
        in first.output
    )
    assert not (folder / "llm.sqlite3").exists()
    assert bench_fake_llm.count() == 2


def test_h11_redacting_a_50_mb_base64_value_is_linear_and_never_crashes():
    import base64
    import time

    from bench.vocabulary.redact import Redactor

    secret = "s3cr3t-value-0123456789"
    blob = base64.b64encode(os.urandom(36 * 1024 * 1024)).decode()  # 48 MiB, one token
    text = f"Bearer {blob} and ?key={blob[:1000]} and {secret} " + blob
    # CPU time, not wall time: on a loaded machine the wall clock measures the other processes
    # (1.3 s of CPU took 12 s of wall beside six busy processes on one core).
    started = time.process_time()
    redacted = Redactor({"MY_TOKEN": secret})(text)
    elapsed = time.process_time() - started
    assert redacted.startswith("Bearer [REDACTED] and ?key=[REDACTED] and [REDACTED:MY_TOKEN] ")
    assert elapsed < 10, elapsed


def test_h10_generated_code_cannot_read_host_secrets(monkeypatch):
    if sandbox.isolation_level() != "namespaces":
        pytest.skip("needs root and unshare (the CI machines have both)")
    canary = f"canary-h10-{uuid.uuid4().hex}"
    monkeypatch.setenv("BENCH_H10_SECRET", canary)
    ssh = Path.home() / ".ssh"
    made_ssh = not ssh.exists()
    ssh.mkdir(mode=0o700, exist_ok=True)
    key = ssh / f"id_bench_h10_{uuid.uuid4().hex[:8]}"
    key.write_text(canary)
    key.chmod(0o600)
    paths = [str(key), f"/proc/{os.getpid()}/environ", f"/proc/{os.getppid()}/environ"]
    code = f"""
    for path in {paths!r}:
        try:
            print(path, open(path, errors="replace").read())
        except OSError as exc:
            print(path, "hidden", type(exc).__name__)
    """
    try:
        outcome = run_evaluator(
            {"type": "code_execution", "timeout_ms": 5000},
            f"```python\n{textwrap.dedent(code)}\n```",
        )
    finally:
        key.unlink()
        if made_ssh:
            ssh.rmdir()
    printed = outcome.details["stdout"]
    assert outcome.passed, outcome.details["stderr"]
    assert canary not in printed
    assert printed.count("hidden") == len(paths)


def test_h09_a_cache_folder_another_user_owns_is_not_used(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    if os.getuid() != 0:
        import pytest

        pytest.skip("giving a folder to another user needs root")
    folder = tmp_path / ".bench" / "cache"
    folder.mkdir(parents=True, mode=0o755)
    os.chown(folder, 65534, 65534)
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\ntasks:\n  - {id: a, prompt: hi, evaluate: {expected: hi}}\n"
    )
    outcome = bench_cli("run", path)
    assert outcome.exit_code == 0
    assert (
        f"warning: response cache folder {folder} is writable by other users; running uncached"
        in outcome.output
    )
    assert not (folder / "llm.sqlite3").exists()


def test_h01_an_answer_with_a_secret_shaped_example_is_still_cached(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    from bench.testing.server import Reply

    bench_fake_llm.add(Reply("connect with postgresql://user:password@localhost/db and Bearer YOUR_API_KEY"))
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\ntasks:\n  - {id: a, prompt: how, evaluate: {expected: connect}}\n"
    )
    assert bench_cli("run", path).exit_code == 0
    assert bench_cli("run", path).exit_code == 0
    assert bench_fake_llm.count() == 1  # no known secret in it: cached like any answer
