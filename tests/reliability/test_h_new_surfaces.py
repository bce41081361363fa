"""docs/reliability.md group H on the newer surfaces: an imported file's credential fields (H12) and a
container sandbox's client command line (H13) never carry a secret in clear."""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from bench import EvaluatorError
from bench.testing.pytest_plugin import CANARY_KEY
from bench.workspace import network_guard

OTLP = Path(__file__).resolve().parents[1] / "imports" / "otlp-weather-agent.json"
ONLY_IN_THE_FILE = "sk-only-in-the-file-4c1d9e7a2b"


def _every_byte(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_h12_a_credential_in_an_imported_trace_is_written_redacted(bench_cli, tmp_path):
    trace = json.loads(OTLP.read_text())
    root = trace["resourceSpans"][0]["scopeSpans"][0]["spans"]
    for span in root:
        span["attributes"] += [
            {"key": "gen_ai.request.api_key", "value": {"stringValue": ONLY_IN_THE_FILE}},
            {"key": "http.request.header.x-api-key", "value": {"stringValue": ONLY_IN_THE_FILE}},
            {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "12"}},
        ]
    (tmp_path / "trace.json").write_text(json.dumps(trace))
    result = bench_cli("import", "trace.json", "-o", "t")
    assert result.exit_code == 0, result.output
    assert ONLY_IN_THE_FILE.encode() not in _every_byte(tmp_path / ".bench")
    rows = [json.loads(line) for line in (tmp_path / ".bench/runs/t/results.jsonl").read_text().splitlines()]
    attributes = rows[0]["imported"]["attributes"]
    assert attributes["gen_ai.request.api_key"] == "[REDACTED]"
    assert attributes["http.request.header.x-api-key"] == "[REDACTED]"
    assert attributes["gen_ai.conversation.id"] == "paris-weather"  # the rest is kept as written


# A stand-in for podman that does what podman does with `--env NAME` and `--env NAME=VALUE` (the
# first takes the value from the client's own environment), records its command line as `ps` shows
# it, and runs the command on the host.
FAKE_PODMAN = f"""#!{sys.executable}
import os, sys
args = sys.argv[1:]
open(os.environ["CMDLINE_LOG"], "a").write(" ".join(sys.argv) + "\\n")
env, i = {{}}, 0
while i < len(args) and args[i] != "--workdir":
    if args[i] == "--env":
        name, _, value = args[i + 1].partition("=")
        env[name] = value if "=" in args[i + 1] else os.environ[name]
    i += 1
os.execvpe(args[i + 3], args[i + 3:], env)
"""


def test_h13_a_secret_passed_into_a_container_is_not_on_the_clients_command_line(
    bench_cli, tmp_path, monkeypatch
):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "podman").write_text(FAKE_PODMAN)
    (bin_dir / "podman").chmod(stat.S_IRWXU)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CMDLINE_LOG", str(tmp_path / "cmdline.log"))
    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
    (tmp_path / "suite.yaml").write_text(
        textwrap.dedent(
            """\
            target:
              type: command
              command: ["sh", "-c", "test \\"$SERVICE_AUTH\\" = \\"$OPENAI_API_KEY\\" && echo $GREETING"]
              env: {OPENAI_API_KEY: "${OPENAI_API_KEY}", SERVICE_AUTH: "${OPENAI_API_KEY}", GREETING: hello}
              sandbox: {type: container, image: "python:3.12-slim", runtime: podman}
            tasks:
              - {id: t, input: hi, expected: {exact_match: hello}, evaluators: [{type: exact_match}]}
            """
        )
    )
    result = bench_cli("run", "suite.yaml", "-o", "out.json")
    assert result.exit_code == 0, result.output
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert (task["status"], task["response"]) == ("passed", "hello")  # the secret reached the program
    cmdline = (tmp_path / "cmdline.log").read_text()
    assert "--env OPENAI_API_KEY --env SERVICE_AUTH --env GREETING=hello" in cmdline
    assert CANARY_KEY not in cmdline


PROBE = "import socket,sys\ntry:\n socket.create_connection(('127.0.0.1', int(sys.argv[1])), 2); print('connected')\nexcept OSError:\n print('refused')\n"


def _probe_suite(folder: Path, port: int) -> Path:
    (folder / "probe.py").write_text(PROBE)
    suite = folder / "probe.yaml"
    suite.write_text(
        textwrap.dedent(
            f"""\
            target: {{type: command, command: ["{sys.executable}", "probe.py", "{port}"]}}
            tasks:
              - {{id: t, input: hi, expected: {{exact_match: refused}}, evaluators: [{{type: exact_match}}]}}
            """
        )
    )
    return suite


def _task(bench_cli, tmp_path: Path, *flags: str) -> dict:
    result = bench_cli("run", "probe.yaml", "-o", "out.json", *flags)
    assert result.exit_code in (0, 1, 3), result.output  # passed, failed, errors
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    return task


def test_h14_an_offline_command_target_reaches_no_network_not_even_the_hosts_loopback(bench_cli, tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as server:  # a listener on the host's loopback
        _probe_suite(tmp_path, server.getsockname()[1])
        assert _task(bench_cli, tmp_path)["response"] == "connected"  # the probe works
        assert _task(bench_cli, tmp_path, "--offline")["response"] == "refused"


def test_h14_an_offline_command_target_that_cannot_be_cut_off_is_refused_never_run(
    bench_cli, tmp_path, monkeypatch
):
    monkeypatch.setattr(network_guard, "_namespace_refusal", lambda: "unshare (util-linux) is not installed")
    with socket.create_server(("127.0.0.1", 0)) as server:
        _probe_suite(tmp_path, server.getsockname()[1])
        task = _task(bench_cli, tmp_path, "--offline")
    assert (task["status"], task["response"]) == ("error", None)
    assert task["error"] == (
        "offline: cannot cut this program off the network (unshare (util-linux) is not installed); "
        "run it in a container sandbox (network: none) instead"
    )


def test_h14_an_offline_runs_node_worker_has_a_network_namespace_of_its_own():
    from bench_formats.promptfoo import node_worker

    if node_worker.node_path() is None:
        raise AssertionError("this test needs Node.js on PATH (it runs promptfoo's JavaScript)")
    own = os.readlink("/proc/self/ns/net")
    request = {"op": "inline", "params": [], "body": "return 1 + 1", "args": []}
    try:
        assert node_worker.worker().call(request).value == 2
        assert os.readlink(f"/proc/{node_worker.worker().process.pid}/ns/net") == own
        with network_guard.offline():  # a worker started before the run went offline is replaced
            offline = node_worker.worker()
            assert offline.call(request).value == 2
            assert os.readlink(f"/proc/{offline.process.pid}/ns/net") != own
    finally:
        node_worker.shutdown()


def test_h14_an_offline_javascript_check_that_cannot_be_cut_off_is_an_error_never_run(monkeypatch):
    from bench_formats.promptfoo import javascript_checks, node_worker

    monkeypatch.setattr(network_guard, "_namespace_refusal", lambda: "unshare (util-linux) is not installed")
    node_worker.shutdown()
    with network_guard.offline(), pytest.raises(EvaluatorError) as refused:
        javascript_checks._worker("javascript assertion")
    assert str(refused.value) == (
        "javascript assertion: offline: cannot cut this program off the network "
        "(unshare (util-linux) is not installed)"
    )


#: How util-linux's unshare fails for a user without user namespaces: the kernel's EPERM, status 1.
NO_USERNS = "unshare: unshare failed: Operation not permitted"


@pytest.mark.parametrize(
    ("said", "reason"),
    [
        (
            NO_USERNS.encode(),
            "unshare --map-current-user --net failed: unshare: unshare failed: Operation not permitted; "
            "user namespaces are turned off for this user here (sysctl user.max_user_namespaces, "
            "kernel.unprivileged_userns_clone, or an AppArmor restriction)",
        ),
        (  # util-linux before 2.38, whose usage line follows
            b"unshare: unrecognized option '--map-current-user'\nTry 'unshare --help' for more information.",
            "unshare --map-current-user --net failed: unshare: unrecognized option '--map-current-user'; "
            "it needs util-linux 2.38 or later",
        ),
        (  # a translated message in a Latin-1 locale: not UTF-8
            "unshare: unshare ist fehlgeschlagen: Vorgang nicht zulässig".encode("latin-1"),
            "unshare --map-current-user --net failed: unshare: unshare ist fehlgeschlagen: Vorgang nicht "
            "zul\ufffdssig",
        ),
    ],
)
def test_h19_a_user_without_user_namespaces_gets_the_offline_refusal_not_a_crash(
    said, reason, bench_cli, tmp_path, monkeypatch
):
    """A non-root user where user namespaces are off: ``unshare --map-current-user`` fails as the
    real one does (a fake on PATH says so); the task is refused with the reason, never run."""
    fake = tmp_path / "bin" / "unshare"
    fake.parent.mkdir()
    (tmp_path / "said").write_bytes(said + b"\n")
    fake.write_text(f"#!/bin/sh\ncat {tmp_path / 'said'} >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    network_guard._namespace_refusal.cache_clear()  # the probe runs once per process
    try:
        with socket.create_server(("127.0.0.1", 0)) as server:
            _probe_suite(tmp_path, server.getsockname()[1])
            task = _task(bench_cli, tmp_path, "--offline")
    finally:
        network_guard._namespace_refusal.cache_clear()
    assert (task["status"], task["response"]) == ("error", None)
    assert task["error"] == (
        f"offline: cannot cut this program off the network ({reason}); "
        "run it in a container sandbox (network: none) instead"
    )
