"""``--offline``: a socket guard refuses every connection but loopback and Unix sockets; checks that
need a remote model are skipped with the reason, the rest decide; a remote target is refused.

Nothing here leaves this machine: the guard is tested against a TEST-NET address (192.0.2.1,
never routed) that it must refuse before ``connect`` is reached, and against a closed loopback
port that it must let through. An audit hook added after the guard's records each attempt the
guard let pass: CPython calls hooks in the order they were added, so an attempt the guard
refused never reaches it, nor the system call after it.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

import bench
from bench.testing.server import Reply
from bench.workspace import network_guard

network_guard.install()  # first, so that the recorder below sees only what the guard let through
PASSED_GUARD: list[tuple[str, Any]] = []


def _record(event: str, args: tuple[Any, ...]) -> None:
    if event in ("socket.connect", "socket.getaddrinfo"):
        PASSED_GUARD.append((event, args[1] if event == "socket.connect" else args[0]))


sys.addaudithook(_record)

REFUSED_TESTNET = (
    "offline: refused a connection to 192.0.2.1:443; an offline run connects only to loopback "
    "(127.0.0.1, ::1, localhost) and Unix sockets"
)


@pytest.fixture
def recorded() -> list[tuple[str, Any]]:
    PASSED_GUARD.clear()
    return PASSED_GUARD


def _closed_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again when the block ends


def _unset(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    for name in names:
        monkeypatch.setenv(name, "placeholder")
        monkeypatch.delenv(name)


# -- the guard --------------------------------------------------------------------------------------


def test_the_guard_refuses_an_unroutable_address_before_connect_is_reached(recorded):
    with (
        network_guard.offline(),
        socket.socket() as sock,
        pytest.raises(network_guard.OfflineRefused) as refused,
    ):
        sock.connect(("192.0.2.1", 443))
    assert str(refused.value) == REFUSED_TESTNET
    assert ("socket.connect", ("192.0.2.1", 443)) not in recorded
    assert network_guard.refused()[-1] == "192.0.2.1:443"


def test_the_guard_refuses_connect_ex_and_create_connection_too(recorded):
    with network_guard.offline():
        with socket.socket() as sock, pytest.raises(network_guard.OfflineRefused):
            sock.connect_ex(("192.0.2.1", 443))
        with pytest.raises(network_guard.OfflineRefused, match=r"api\.openai\.com:443"):
            socket.create_connection(("api.openai.com", 443), timeout=1)
    # The name was never looked up: the guard refused getaddrinfo itself.
    assert [
        e for e in recorded if e[1] in ("192.0.2.1", "api.openai.com") or e[1] == ("192.0.2.1", 443)
    ] == []


def test_the_guard_lets_a_loopback_connection_through(recorded):
    port = _closed_loopback_port()
    with network_guard.offline(), socket.socket() as sock, pytest.raises(ConnectionRefusedError) as refused:
        sock.connect(("127.0.0.1", port))
    assert not isinstance(refused.value, network_guard.OfflineRefused)  # the kernel's refusal
    assert ("socket.connect", ("127.0.0.1", port)) in recorded


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets on this platform")
def test_the_guard_lets_a_unix_socket_through(tmp_path):
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen(1)
        with network_guard.offline(), socket.socket(socket.AF_UNIX) as client:
            client.connect(path)


def test_the_guard_is_off_after_its_block_and_the_environment_restored(monkeypatch):
    monkeypatch.delenv(network_guard.ENV, raising=False)
    with network_guard.offline():
        assert network_guard.active()
        assert os.environ[network_guard.ENV] == "1"  # what a worker process started now reads
    assert not network_guard.active()
    assert network_guard.ENV not in os.environ


def test_a_killable_worker_process_inherits_the_guard(recorded):
    import asyncio

    from bench.execution import killable

    with network_guard.offline():
        try:
            message = asyncio.run(killable.run_killable(_connect_testnet))
        finally:
            killable.shutdown()
    assert message == REFUSED_TESTNET


def _connect_testnet() -> str:
    with socket.socket() as sock:
        try:
            sock.connect(("192.0.2.1", 443))
        except network_guard.OfflineRefused as refused:
            return str(refused)
    return "connected"  # pragma: no cover - the guard failed


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.9.1", True), ("::1", True), ("[::1]", True), ("localhost", True),
     ("::ffff:127.0.0.1", True), ("192.0.2.1", False), ("10.0.0.1", False), ("example.com", False),
     ("0.0.0.0", False)],
)  # fmt: skip
def test_which_hosts_are_loopback(host, loopback):
    assert network_guard.is_loopback_host(host) is loopback


# -- a run offline -------------------------------------------------------------------------------------

PROMPTFOO = """\
description: mixed
prompts:
  - "Reply to: {{question}}"
providers:
  - openai:gpt-4.1-mini
tests:
  - vars: {question: hello}
    assert:
      - {type: contains, value: hello}
  - vars: {question: polite}
    assert:
      - {type: contains, value: polite}
      - {type: llm-rubric, value: is polite}
  - vars: {question: bye}
    assert:
      - {type: icontains, value: nothing}
      - {type: llm-rubric, value: is polite}
"""
SKIPPED_RUBRIC = "offline: llm-rubric needs openai/gpt-4.1-2025-04-14"


def test_an_offline_promptfoo_run_decides_every_deterministic_row_and_skips_the_graded_checks(
    bench_cli, tmp_path, monkeypatch, recorded
):
    _unset(monkeypatch, "OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL")
    (tmp_path / "promptfooconfig.yaml").write_text(PROMPTFOO, encoding="utf-8")
    before = len(network_guard.refused())
    result = bench_cli(
        "run", "promptfooconfig.yaml", "--offline", "--target", "echo", "--runs-dir", "runs", "-o", "out.json"
    )
    assert result.exit_code == 3, result.stderr  # a task could not be decided
    assert "offline: the checks that need openai/gpt-4.1-2025-04-14 are skipped" in result.stderr
    tasks = {t["id"]: t for t in json.loads((tmp_path / "out.json").read_text())["tasks"]}
    assert {k: t["status"] for k, t in tasks.items()} == {
        "test 1": "passed",
        "test 2": "error",
        "test 3": "failed",
    }
    undecided = tasks["test 2"]["evaluators"][0]
    assert undecided["error"] == SKIPPED_RUBRIC
    assert [(a["type"], a["pass"]) for a in undecided["details"]["assertions"]] == [
        ("contains", True),
        ("llm-rubric", None),
    ]
    failed = tasks["test 3"]["evaluators"][0]
    assert failed["reason"] == f'Expected output to contain "nothing"; {SKIPPED_RUBRIC}'
    assert failed["details"][bench.llm.SKIPPED] == [SKIPPED_RUBRIC]
    # Nothing was sent anywhere: the guard refused nothing, and let through no remote attempt.
    assert network_guard.refused()[before:] == []
    assert [e for e in recorded if not _local(e[1])] == []


def _local(where: Any) -> bool:
    host = where[0] if isinstance(where, tuple) else where
    return host is None or (isinstance(host, bytes | str) and network_guard.is_loopback_host(str(host)))


JUDGED = """
target: {type: echo}
evaluators:
  remote: {type: llm_judge, criteria: polite, model: anthropic/claude-3-5-haiku-latest}
  local: {type: llm_judge, criteria: polite, model: openai/judge}
tasks:
  - {id: judged-remote, prompt: hi, evaluate: [remote, {type: contains, value: hi}]}
  - {id: failed-anyway, prompt: hi, evaluate: [remote, {type: contains, value: bye}]}
  - {id: judged-locally, prompt: hi, evaluate: [local]}
"""


def test_an_offline_run_skips_a_remote_judge_and_runs_one_on_loopback(
    bench_cli, bench_suite_file, bench_fake_llm, monkeypatch
):
    _unset(monkeypatch, "ANTHROPIC_API_KEY")  # openai/ goes to the fake server on 127.0.0.1
    bench_fake_llm.default = lambda body: Reply('{"reason": "ok", "score": 1, "passed": true}')
    result = bench_cli("run", bench_suite_file(JUDGED), "--offline", "--runs-dir", "runs", "-o", "out.json")
    assert result.exit_code == 3, result.stderr
    tasks = {t["id"]: t for t in json.loads(Path("out.json").read_text())["tasks"]}
    remote = tasks["judged-remote"]
    assert remote["status"] == "error"
    assert [(e["type"], e["passed"], e["error"]) for e in remote["evaluators"]] == [
        ("llm_judge", False, "offline: llm_judge needs anthropic/claude-3-5-haiku-latest"),
        ("contains", True, None),
    ]
    assert tasks["failed-anyway"]["status"] == "failed"  # a check that ran failed: no skip changes that
    assert tasks["judged-locally"]["status"] == "passed", tasks["judged-locally"]["evaluators"][0]["error"]
    assert bench_fake_llm.count() == 1


def test_an_offline_run_refuses_a_target_that_needs_a_remote_model(bench_cli, bench_suite_file, monkeypatch):
    _unset(monkeypatch, "OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL")
    path = bench_suite_file(
        "target: {type: litellm, model: openai/gpt-4o-mini}\ntasks:\n  - {id: a, prompt: q, evaluate: {expected: x}}\n"
    )
    for command in ("run", "validate"):
        result = bench_cli(command, path, "--offline", *(["--runs-dir", "runs"] if command == "run" else []))
        assert result.exit_code == 2
        assert result.stderr == (
            "error: offline: target 'litellm' needs openai/gpt-4o-mini, which is not served on loopback: "
            "give a target that calls no remote model (--target echo, a recorded one) or a model on a "
            "local server (api_base: http://127.0.0.1:PORT/v1)\n"
        )
    assert not Path("runs").exists()


def test_validate_offline_names_the_checks_it_would_skip(bench_cli, bench_suite_file, monkeypatch):
    _unset(monkeypatch, "ANTHROPIC_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL")
    result = bench_cli("validate", bench_suite_file(JUDGED), "--offline")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "offline: the checks that need anthropic/claude-3-5-haiku-latest, openai/judge are skipped"
    )


def test_bench_run_takes_offline(bench_suite_file, monkeypatch, tmp_path):
    _unset(monkeypatch, "ANTHROPIC_API_KEY")
    path = bench_suite_file(
        "target: {type: echo}\ntasks:\n  - id: a\n    prompt: hi\n    evaluate:\n"
        "      - {type: llm_judge, criteria: polite, model: anthropic/claude-3-5-haiku-latest}\n"
    )
    result = bench.run(path, offline=True, runs_dir=tmp_path / "runs")
    (task,) = result.report.tasks()
    assert task["evaluators"][0]["error"] == "offline: llm_judge needs anthropic/claude-3-5-haiku-latest"
    assert not network_guard.active()


def test_the_offline_docs_example_runs_as_written(bench_cli, tmp_path, monkeypatch):
    """docs/offline.md's example: its config, run as the page says, gives the results it shows."""
    import re

    _unset(monkeypatch, "OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL")
    page = (Path(__file__).resolve().parents[1] / "docs" / "offline.md").read_text(encoding="utf-8")
    [config] = re.findall(r"^```yaml\n(.*?)^```$", page, flags=re.MULTILINE | re.DOTALL)
    (tmp_path / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
    command = "bench run promptfooconfig.yaml --offline --target echo -o results.jsonl"
    assert f"```text\n{command}\n```" in page
    result = bench_cli(*command.split()[1:])
    assert result.exit_code == 3, result.stderr
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    for row in rows:
        (outcome,) = row["evaluators"]
        assert (
            f"{row['id']}: {row['status']} ({outcome['type']}: {outcome['error'] or outcome['reason']})\n"
            in page
        )
    summary = result.stdout.splitlines()
    assert "3 tasks: 1 passed, 1 failed, 1 errors" in page
    assert any(line.startswith("3 tasks: 1 passed, 1 failed, 1 errors") for line in summary)


# -- sandboxes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("network", "shown"),
    [
        ("loopback", "loopback"),
        ("{allow: [pypi.org, 'files.pythonhosted.org:443']}", "allow: pypi.org, files.pythonhosted.org:443"),
    ],
)
def test_h18_an_offline_run_refuses_a_container_with_a_network_before_any_task(
    network, shown, bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    """A container that reaches the host's loopback (its name lookups and any proxy listening
    there) or listed hosts cannot be kept on this machine: refused up front, nothing started."""
    started = tmp_path / "podman-started"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "podman").write_text(f"#!/bin/sh\ntouch {started}\nexit 1\n")
    (bin_dir / "podman").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    suite = bench_suite_file(
        f"""
        target: {{type: command, command: [echo, hi], sandbox: {{type: container, image: x, network: {network}}}}}
        tasks: [{{id: a, prompt: p, evaluate: {{expected: hi}}}}]
        """
    )
    result = bench_cli("run", suite, "-q", "--offline", "--runs-dir", "runs")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {suite}: target.sandbox.network: offline: sandbox container has network {shown}, which an "
        "offline run cannot keep on this machine; give it network: none (or run without --offline)\n"
    )
    assert not started.exists()  # the container was never started


def test_h18_a_container_with_a_network_opened_before_the_run_went_offline_never_starts(
    tmp_path, monkeypatch
):
    """A sandbox opened outside the guard (a plan loaded before an offline ``run_plan``): its
    command is refused when the guard is on, so the task is an error and nothing starts."""
    from bench.workspace.container import ContainerConfig, ContainerSandbox
    from bench.workspace.sandboxes import SandboxRun

    (tmp_path / "podman").write_text("#!/bin/sh\nexit 1\n")
    (tmp_path / "podman").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    box = ContainerSandbox(ContainerConfig(image="img", network="loopback"))
    run = SandboxRun(name="n", argv=["true"], mounts=[], workdir="/workspace")
    assert "--network" in box.command(run)  # online: the container's own setting
    with network_guard.offline(), pytest.raises(network_guard.OfflineRefused) as refused:
        box.command(run)
    assert str(refused.value) == (
        "offline: sandbox container has network loopback, which an offline run cannot keep on this "
        "machine; give it network: none (or run without --offline)"
    )


# -- code run on the host ------------------------------------------------------------------------------

REACH_HOST = """
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), 2)
    print("connected")
except OSError:
    print("refused")
"""


def test_h21_offline_code_at_the_weaker_isolation_reaches_no_network(monkeypatch):
    """Without root, code_execution (and the agent's run_command) run with rlimits only, on the
    host's network: an offline run puts them in a network namespace of their own."""
    from bench.testing import run_evaluator
    from bench.workspace import sandbox

    monkeypatch.setattr(sandbox, "isolation_level", lambda: "rlimits-only")  # as for a non-root user
    with socket.create_server(("127.0.0.1", 0)) as server:  # a listener on the host's loopback
        code = f"```python\n{REACH_HOST.format(port=server.getsockname()[1])}\n```"
        online = run_evaluator({"type": "code_execution"}, code)
        with network_guard.offline():
            offline = run_evaluator({"type": "code_execution"}, code)
    assert (online.details["stdout"].strip(), online.details["network"]) == ("connected", "on")
    assert (offline.details["stdout"].strip(), offline.details["network"]) == ("refused", "off")
    assert "file system not isolated (needs root and unshare)" in offline.details["notes"]


def test_h21_offline_code_that_cannot_be_cut_off_is_not_run(monkeypatch):
    from bench.testing import run_evaluator
    from bench.workspace import sandbox

    monkeypatch.setattr(sandbox, "isolation_level", lambda: "rlimits-only")
    monkeypatch.setattr(network_guard, "_namespace_refusal", lambda: "unshare (util-linux) is not installed")
    with network_guard.offline():
        outcome = run_evaluator({"type": "code_execution"}, "```python\nprint('ran')\n```")
    assert (outcome.passed, outcome.error) == (
        False,
        "offline: cannot cut this program off the network (unshare (util-linux) is not installed); "
        "the program was not run",
    )


# -- repositories -------------------------------------------------------------------------------------


def test_h22_an_offline_run_clones_no_repository_over_the_network(bench_cli, bench_suite_file, tmp_path):
    """git's transports are outside the guard: an offline run lets git use local ones only, so a
    repo: URL is an error naming why, before git connects (here to a closed loopback port)."""
    from bench.testing import git_repo

    local = git_repo(tmp_path / "local", {"a.txt": "a\n"})
    url = f"http://127.0.0.1:{_closed_loopback_port()}/repo.git"
    suite = bench_suite_file(
        f"""
        target: {{type: echo}}
        tasks:
          - {{id: remote, prompt: hi, repo: "{url}", evaluate: {{expected: hi}}}}
          - {{id: local, prompt: hi, repo: "{local}", evaluate: {{expected: hi}}}}
        """
    )
    result = bench_cli("run", suite, "--offline", "-o", "out.json")
    assert result.exit_code == 3, result.output
    tasks = {t["id"]: t for t in json.loads(Path("out.json").read_text())["tasks"]}
    assert tasks["local"]["status"] == "passed"
    assert tasks["remote"]["error"] == (
        "workspace: git clone failed: fatal: transport 'http' not allowed; an offline run clones only "
        "repositories on this machine (give a path)"
    )


def test_h23_an_offline_container_never_pulls_its_image(tmp_path, monkeypatch):
    """The runtime's client pulls a missing image from a registry, outside the guard: offline, it
    uses only the images this machine has (``--pull never``)."""
    from bench.workspace.container import ContainerConfig, ContainerSandbox
    from bench.workspace.sandboxes import SandboxRun

    (tmp_path / "podman").write_text("#!/bin/sh\nexit 1\n")
    (tmp_path / "podman").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    box = ContainerSandbox(ContainerConfig(image="img"))
    run = SandboxRun(name="n", argv=["true"], mounts=[], workdir="/workspace")
    assert "--pull" not in box.command(run)  # online: the runtime's own pull policy
    with network_guard.offline():
        words = box.command(run)
    assert words[words.index("--pull") : words.index("--pull") + 2] == ["--pull", "never"]
    assert words.index("--pull") < words.index("img")  # an option of run, not of the program
