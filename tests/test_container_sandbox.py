"""The ``container`` sandbox (Podman or Docker) on the agent example, against the host run.

The image is built here, with no registry (bench.testing's ``bench_container_image``: the host's
own Python and ``/bin/sh``). Where no container can run on this machine the tests skip, saying why.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.workspace.container import HOST_ALIAS, container_runtime

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "agent"
PYTHON = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture
def image(bench_container_image: str) -> str:
    """The test image (bench.testing's ``bench_container_image``)."""
    return bench_container_image


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on the host's loopback; the port."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                server.accept()[0].close()
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def _run(bench_cli, folder: Path, suite: str) -> dict:
    result = bench_cli("run", folder / suite, "-o", folder / f"{suite}.json", "--runs-dir", folder / "runs")
    assert result.exit_code == 0, result.stdout + result.stderr
    [task] = json.loads((folder / f"{suite}.json").read_text())["tasks"]
    return task


def _verdicts(task: dict) -> list[tuple[str, bool]]:
    return [(e["type"], e["passed"]) for e in task["evaluators"]]


def test_agent_in_a_container_cannot_leave_its_workspace(image, listener, bench_cli, tmp_path, monkeypatch):
    folder = tmp_path / "agent"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("repo", ".bench"))
    subprocess.run([sys.executable, str(folder / "make_repo.py")], check=True, capture_output=True)
    outside = tmp_path / "secret.txt"
    outside.write_text("host secret\n")
    monkeypatch.setenv("PROBE_PORT", str(listener))
    monkeypatch.setenv("PROBE_FILE", str(outside))
    monkeypatch.setenv("AGENT_IMAGE", image)
    monkeypatch.setenv("PATH", f"{Path(PYTHON).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(folder)
    contained, host = _run(bench_cli, folder, "container.yaml"), _run(bench_cli, folder, "host.yaml")
    assert contained["response"] == "Fixed add(). loopback: error; outside file: error"
    assert host["response"] == "Fixed add(). loopback: connected; outside file: read"
    assert _verdicts(contained) == _verdicts(host)
    assert all(passed for _, passed in _verdicts(contained)), contained["evaluators"]
    for task in (contained, host):  # the change and the trajectory are recorded either way
        assert [f["path"] for f in task["workspace"]["files"]] == ["calc.py"]
        assert [c["name"] for c in task["tool_calls"]] == [
            "read_file",
            "run_command",
            "run_command",
            "write_file",
        ]


#: Where Debian's podman-docker puts its ``docker``: a script that runs Podman with the same words.
PODMAN_DOCKER = Path("/usr/bin/docker")


def test_the_docker_code_path_runs_the_agent_example_through_a_docker_cli(
    image, listener, bench_cli, tmp_path, monkeypatch
):
    """``runtime: docker``: bench's Docker command line, run by podman-docker's ``docker`` (what it
    cannot prove of a real dockerd, docs/agents.md says)."""
    if not PODMAN_DOCKER.is_file() or "podman" not in PODMAN_DOCKER.read_text(errors="replace"):
        pytest.skip("needs Debian's podman-docker (a docker CLI backed by Podman) at /usr/bin/docker")
    folder = tmp_path / "agent"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("repo", ".bench"))
    subprocess.run([sys.executable, str(folder / "make_repo.py")], check=True, capture_output=True)
    suite = (folder / "container.yaml").read_text()
    (folder / "docker.yaml").write_text(suite.replace("network: none,", "network: none, runtime: docker,"))
    bin_dir, calls = tmp_path / "bin", tmp_path / "docker-calls"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text(f'#!/bin/sh\necho "$1" >> {calls}\nexec {PODMAN_DOCKER} "$@"\n')
    (bin_dir / "docker").chmod(0o755)
    outside = tmp_path / "secret.txt"
    outside.write_text("host secret\n")
    monkeypatch.setenv("PROBE_PORT", str(listener))
    monkeypatch.setenv("PROBE_FILE", str(outside))
    monkeypatch.setenv("AGENT_IMAGE", image)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{Path(PYTHON).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(folder)
    docker = _run(bench_cli, folder, "docker.yaml")
    assert calls.read_text().split() == ["run", "rm"]  # the task's container, then its removal
    # as under Podman (test_agent_in_a_container_cannot_leave_its_workspace, which compares the host)
    assert docker["response"] == "Fixed add(). loopback: error; outside file: error"
    assert all(passed for _, passed in _verdicts(docker)), docker["evaluators"]
    assert [f["path"] for f in docker["workspace"]["files"]] == ["calc.py"]


def test_podman_is_preferred_where_both_runtimes_are_installed(tmp_path, monkeypatch):
    both, docker_only = tmp_path / "both", tmp_path / "docker-only"
    for folder, names in ((both, ("docker", "podman")), (docker_only, ("docker",))):
        folder.mkdir()
        for name in names:
            (folder / name).write_text("#!/bin/sh\nexit 0\n")
            (folder / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(both))
    assert container_runtime() == str(both / "podman")
    assert container_runtime("docker") == str(both / "docker")
    monkeypatch.setenv("PATH", str(docker_only))
    assert container_runtime() == str(docker_only / "docker")
    assert container_runtime("podman") is None


def test_network_allow_reaches_the_hosts_loopback_and_listed_hosts_through_the_proxy(
    image, listener, bench_cli, bench_suite_file
):
    """``network: {allow: [...]}`` (``loopback`` and bench's proxy): the host's loopback listener
    answers at HOST_ALIAS, the container's own 127.0.0.1 is not the host's, and the proxy
    forwards to a listed host but answers 403 for one not listed (both loopback addresses: no
    test sends traffic off this machine)."""
    probe = (
        "import os, socket, sys\n"
        "from urllib.parse import urlsplit\n"
        "port = int(sys.argv[1])\n"
        "def probe(host):\n"
        "    try:\n"
        "        socket.create_connection((host, port), timeout=5).close()\n"
        "        return 'connected'\n"
        "    except OSError:\n"
        "        return 'error'\n"
        "def through_proxy(target):\n"
        "    proxy = urlsplit(os.environ['HTTPS_PROXY'])\n"
        "    with socket.create_connection((proxy.hostname, proxy.port), timeout=5) as s:\n"
        "        s.sendall(f'CONNECT {target}:{port} HTTP/1.1\\r\\n\\r\\n'.encode())\n"
        "        return s.recv(64).split()[1].decode()\n"
        f"print(probe('{HOST_ALIAS}'), probe('127.0.0.1'), through_proxy('localhost'), through_proxy('127.0.0.2'))\n"
    )
    suite = bench_suite_file(
        f"""
        target:
          type: command
          command: [python3, -c, {json.dumps(probe)}, "{listener}"]
          sandbox: {{type: container, image: "{image}", network: {{allow: ["localhost:{listener}"]}}, timeout: 60}}
        tasks: [{{id: a, prompt: p, evaluate: {{expected: "connected error 200 403"}}}}]
        """
    )
    result = bench_cli("run", suite, "-o", suite.parent / "out.json")
    assert result.exit_code == 0, result.stdout + result.stderr
    [task] = json.loads((suite.parent / "out.json").read_text())["tasks"]
    assert task["response"].strip() == "connected error 200 403"


def test_network_loopback_is_slirp4netns_bound_to_the_hosts_loopback():
    from bench.workspace.container import ContainerConfig, ContainerSandbox
    from bench.workspace.sandboxes import SandboxRun

    box = ContainerSandbox(ContainerConfig(image="img", network="loopback", runtime="podman"))
    run = SandboxRun(name="n", argv=["true"], mounts=[], workdir="/workspace")
    words = box.command(run) if container_runtime("podman") else pytest.skip("needs podman on PATH")
    at = words.index("--network")
    assert words[at : at + 4] == [
        "--network",
        "slirp4netns:allow_host_loopback=true,outbound_addr=127.0.0.1",
        "--add-host",
        f"{HOST_ALIAS}:10.0.2.2",
    ]
    assert not any("PROXY" in word for word in words)


def _agent_suite(tmp_path: Path, name: str, sandbox: str) -> Path:
    from bench.testing import git_repo, write_suite

    folder = tmp_path / name
    git_repo(folder / "repo", {"calc.py": "def add(a, b):\n    return a - b\n"})
    return write_suite(
        folder,
        f"""
        repo: repo
        target: {{type: agent, model: openai/fake-agent, command_timeout: 60{sandbox}}}
        tasks:
          - id: fix
            prompt: "Fix add() in calc.py."
            evaluate:
              - {{type: git-diff, max_files_changed: 1}}
              - {{type: file_content_match, path: calc.py, value: "return a + b"}}
              - {{type: trajectory, mode: exact, expected: [read_file, run_command, write_file, run_command]}}
        """,
    )


def test_the_agent_target_runs_its_commands_in_a_container(image, listener, tmp_path, bench_fake_llm):
    """bench-agent's ``agent`` with ``sandbox: {type: container, network: none}``: its commands
    reach neither the host's loopback listener nor a file outside the workspace; the diff, the
    trajectory and the verdicts are those of the same agent without a container."""
    pytest.importorskip("bench_agent", reason="the agent target is bench-agent's")
    from bench.testing import Reply, run_suite

    secret = tmp_path / "secret.txt"
    secret.write_text("host secret\n")
    probe = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {listener}), timeout=3).close(); print('loopback: connected')\n"
        "except OSError: print('loopback: error')\n"
        "try:\n"
        f"    open({str(secret)!r}).read(); print('outside file: read')\n"
        "except OSError: print('outside file: error')\n"
    )
    check = "python3 -c 'import calc; assert calc.add(2, 3) == 5; print(\"ok\")'"

    def tool(name: str, **arguments: str) -> Reply:
        return Reply(
            content=None, tool_calls=[{"name": name, "arguments": arguments}], finish_reason="tool_calls"
        )

    turns = [
        tool("read_file", path="calc.py"),
        tool("run_command", command=f"python3 -c {shlex.quote(probe)}"),
        tool("write_file", path="calc.py", content="def add(a, b):\n    return a + b\n"),
        tool("run_command", command=check),
        Reply("Fixed add()."),
    ]
    bench_fake_llm.default = lambda body: turns[
        min(sum(m["role"] == "assistant" for m in body["messages"]), 4)
    ]
    sandbox = f', sandbox: {{type: container, image: "{image}", network: none, timeout: 60}}'
    tasks = {}
    for name, extra in (("contained", sandbox), ("host", "")):
        start = len(bench_fake_llm.requests)
        tasks[name] = next(iter(run_suite(_agent_suite(tmp_path, name, extra), cache=False).report.tasks()))
        last = bench_fake_llm.requests[-1].body["messages"]
        tasks[name]["tool_results"] = [m["content"] for m in last if m["role"] == "tool"]
        assert len(bench_fake_llm.requests) - start == 5
    contained, host = tasks["contained"], tasks["host"]
    assert contained["tool_results"][1] == "exit code 0\nloopback: error\noutside file: error"
    # On the host the probe runs in bench's own sandbox, whose isolation depends on the machine.
    assert host["tool_results"][1].startswith("exit code 0\nloopback: ")
    assert contained["tool_results"][3] == host["tool_results"][3] == "exit code 0\nok"
    assert _verdicts(contained) == _verdicts(host)
    assert all(passed for _, passed in _verdicts(contained)), contained["evaluators"]
    for task in (contained, host):
        assert task["workspace"]["files"] == [
            {"path": "calc.py", "status": "modified", "added": 1, "removed": 1}
        ]
        assert [c["name"] for c in task["tool_calls"]] == [
            "read_file",
            "run_command",
            "write_file",
            "run_command",
        ]


def test_code_execution_runs_the_program_in_a_container(image, tmp_path):
    """``code_execution`` with ``sandbox:``: the model's program and its tests run in the image
    (its ``python3``), the verdicts those of bench's own sandbox, a host file out of reach."""
    from bench.testing import run_suite, write_suite

    secret = tmp_path / "secret.txt"
    secret.write_text("host secret\n")
    response = (
        "```python\ndef add(a, b):\n    return a + b\n\n"
        f"try:\n    open({str(secret)!r}).read(); print('outside file: read')\n"
        "except OSError:\n    print('outside file: error')\n```"
    )
    tasks = []
    for name, extra in (
        ("contained", f', sandbox: {{type: container, image: "{image}", network: none}}'),
        ("host", ""),
    ):
        suite = write_suite(
            tmp_path / name,
            f"""
            tasks:
              - id: add
                response: {json.dumps(response)}
                evaluate: {{type: code_execution, test_code: "assert add(2, 3) == 5"{extra}}}
              - id: wrong
                response: "def add(a, b):\\n    return a - b\\n"
                evaluate: {{type: code_execution, test_code: "assert add(2, 3) == 5"{extra}}}
            """,
        )
        tasks.append(list(run_suite(suite, cache=False).report.tasks()))
    contained, host = tasks
    assert (
        [_verdicts(t) for t in contained]
        == [_verdicts(t) for t in host]
        == [
            [("code_execution", True)],
            [("code_execution", False)],
        ]
    )
    details = contained[0]["evaluators"][0]["details"]
    assert (details["isolation"], details["network"]) == ("sandbox container", "none")
    assert details["stdout"] == "outside file: error\n"
    assert "AssertionError" in contained[1]["evaluators"][0]["details"]["stderr"]


#: What a real ``docker`` prints for bench's two questions (``--version``, then ``info --format
#: '{{json .SecurityOptions}}'``), by the daemon it talks to; a missing daemon fails the second.
DOCKER_VERSION = "Docker version 28.2.2, build e6534b4"
DOCKER_SECURITY = {
    "rootful": '["name=seccomp,profile=builtin","name=cgroupns"]',
    "rootless": '["name=seccomp,profile=builtin","name=rootless","name=cgroupns"]',
}
NO_DAEMON = (
    "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"
)
NEEDS_PODMAN = "needs Podman (its slirp4netns network); this docker is"
ROOTFUL = (
    "a rootful dockerd, whose containers reach the host's loopback only through --network host, "
    "which reaches every other host too"
)
UNKNOWN_TYPE = (
    "target.sandbox.type: unknown sandbox type 'contianer' (did you mean 'container'?) (known: container)"
)


def _fake_docker(folder: Path, daemon: str) -> None:
    """A ``docker`` on ``folder`` that answers as a client of a ``daemon`` dockerd would."""
    info = (
        f"echo '{DOCKER_SECURITY[daemon]}'"
        if daemon in DOCKER_SECURITY
        else f'echo "{NO_DAEMON}" >&2; exit 1'
    )
    folder.mkdir()
    script = f'#!/bin/sh\ncase "$1" in\n  --version) echo "{DOCKER_VERSION}" ;;\n  info) {info} ;;\n  *) exit 1 ;;\nesac\n'
    (folder / "docker").write_text(script)
    (folder / "docker").chmod(0o755)


def _docker_target(network: str) -> str:
    return f"{{type: command, command: [echo, hi], sandbox: {{type: container, image: x, network: {network}, runtime: docker}}}}"


#: (target, the dockerd a fake ``docker`` on PATH answers for, the error after the suite's path)
REFUSALS = [
    pytest.param(
        "{type: command, command: [echo, hi], sandbox: {type: contianer, image: x}}",
        None,
        UNKNOWN_TYPE,
        id="unknown-type",
    ),
    pytest.param(
        "{type: agent, model: openai/m, sandbox: {type: contianer, image: x}}",
        None,
        UNKNOWN_TYPE,
        id="agent-unknown-type",
    ),
    pytest.param(
        "{type: command, command: [echo, hi], sandbox: {type: container, image: x, network: host}}",
        None,
        "target.sandbox: sandbox container: network: Value error, network must be none, loopback or "
        "{allow: [hosts]}, not 'host'",
        id="network-host",
    ),
    pytest.param(
        '{type: command, command: [echo, hi], sandbox: {type: container, image: x, network: {allow: ["https://api.example.com"]}}}',
        None,
        "target.sandbox: sandbox container: network: Value error, allow: a host is a name or address "
        "with an optional :port, not 'https://api.example.com'",
        id="allow-a-url",
    ),
    pytest.param(
        _docker_target("loopback"),
        "rootful",
        f"target.sandbox: sandbox type container: network loopback {NEEDS_PODMAN} {ROOTFUL}",
        id="loopback-rootful-dockerd",
    ),
    pytest.param(
        _docker_target("{allow: [localhost]}"),
        "rootful",
        f"target.sandbox: sandbox type container: network allow: localhost {NEEDS_PODMAN} {ROOTFUL}",
        id="allow-rootful-dockerd",
    ),
    pytest.param(
        _docker_target("loopback"),
        "rootless",
        f"target.sandbox: sandbox type container: network loopback {NEEDS_PODMAN} a rootless dockerd, "
        "whose containers all share the one network RootlessKit started it with (the host's loopback "
        "disabled by default), with no per-container slirp4netns setting",
        id="loopback-rootless-dockerd",
    ),
    pytest.param(
        _docker_target("loopback"),
        "missing",
        f"target.sandbox: sandbox type container: network loopback {NEEDS_PODMAN} not Podman, and said "
        f"nothing of its daemon ({NO_DAEMON})",
        id="loopback-no-dockerd",
    ),
]


@pytest.mark.parametrize(("target", "daemon", "error"), REFUSALS)
def test_a_container_setting_that_cannot_run_is_refused_before_any_task(
    target, daemon, error, bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    if "type: agent" in target:
        pytest.importorskip("bench_agent", reason="the agent target is bench-agent's")
    if daemon is not None:
        _fake_docker(tmp_path / "bin", daemon)
        monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    suite = bench_suite_file(f"target: {target}\ntasks: [{{id: a, prompt: p, evaluate: {{expected: hi}}}}]\n")
    result = bench_cli("run", suite, "-q")
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {suite}: {error}\n"


def _podman_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Debian's podman-docker ``docker``, first on PATH; skips where it is not installed."""
    if not PODMAN_DOCKER.is_file() or "podman" not in PODMAN_DOCKER.read_text(errors="replace"):
        pytest.skip("needs Debian's podman-docker (a docker CLI backed by Podman) at /usr/bin/docker")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker").symlink_to(PODMAN_DOCKER)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir / "docker"


def test_docker_kind_tells_podman_docker_and_each_dockerd_apart(tmp_path, monkeypatch):
    from bench.workspace.container import docker_kind

    for daemon in ("rootful", "rootless"):
        _fake_docker(tmp_path / daemon, daemon)
        assert docker_kind(str(tmp_path / daemon / "docker")) == (daemon, "")
    assert docker_kind(str(_podman_docker(tmp_path, monkeypatch))) == ("podman", "")


def test_network_loopback_under_podman_docker_is_allowed_and_reaches_the_hosts_loopback(
    image, listener, bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    """``runtime: docker`` where ``docker`` is Podman: ``network: loopback`` runs, with Podman's
    words, and reaches the host's loopback listener (its own 127.0.0.1 is not the host's)."""
    _podman_docker(tmp_path, monkeypatch)
    probe = (
        "import socket, sys\n"
        "def probe(host):\n"
        "    try:\n"
        "        socket.create_connection((host, int(sys.argv[1])), timeout=5).close()\n"
        "        return 'connected'\n"
        "    except OSError:\n"
        "        return 'error'\n"
        f"print(probe('{HOST_ALIAS}'), probe('127.0.0.1'))\n"
    )
    suite = bench_suite_file(
        f"""
        target:
          type: command
          command: [python3, -c, {json.dumps(probe)}, "{listener}"]
          sandbox: {{type: container, image: "{image}", network: loopback, runtime: docker, timeout: 60}}
        tasks: [{{id: a, prompt: p, evaluate: {{expected: "connected error"}}}}]
        """
    )
    result = bench_cli("run", suite, "-o", suite.parent / "out.json")
    assert result.exit_code == 0, result.stdout + result.stderr
    [task] = json.loads((suite.parent / "out.json").read_text())["tasks"]
    assert task["response"].strip() == "connected error"


@pytest.mark.parametrize("ends", ["passed", "error"])
def test_the_allow_list_proxy_stops_when_the_run_ends(ends, tmp_path, monkeypatch, bench_suite_file):
    """The proxy of ``network: {allow: [...]}`` listens while the command runs, and is stopped,
    its port closed, when the run ends, whether the command succeeded or failed."""
    from bench.testing import run_suite

    bin_dir, words = tmp_path / "bin", tmp_path / "run-words"
    bin_dir.mkdir()
    answer = "echo hi" if ends == "passed" else "echo broken >&2; exit 3"
    (bin_dir / "podman").write_text(
        f'#!/bin/sh\nif [ "$1" = run ]; then printf "%s\\n" "$@" > {words}; {answer}; fi\n'
    )
    (bin_dir / "podman").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    suite = bench_suite_file(
        """
        target: {type: command, command: [hi], sandbox: {type: container, image: x, network: {allow: [localhost]}, runtime: podman}}
        tasks: [{id: a, prompt: p, evaluate: {expected: hi}}]
        """
    )
    [task] = run_suite(suite, cache=False).report.tasks()
    assert task["status"] == ends, task
    [proxy] = [word for word in words.read_text().splitlines() if word.startswith("HTTP_PROXY=")]
    port = int(proxy.rpartition(":")[2])
    assert [t.name for t in threading.enumerate() if t.name == "bench-egress-proxy"] == []
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


SANDBOX_MODULE = """
from bench.workspace import Sandbox, SandboxRun


class Echoing(Sandbox):
    name = "echoing"

    def command(self, run: SandboxRun) -> list[str]:
        return ["echo", *run.argv]
"""


def test_register_sandbox_is_typed_for_a_name_and_import_path_as_it_works(tmp_path, monkeypatch):
    """``RegisterSandbox`` takes what the hook's ``register`` takes at run time: a class, or a
    name and the class's import path (imported on the name's first lookup)."""
    import typing

    from bench import hookimpl
    from bench.plugins.registry import build_registry
    from bench.workspace import RegisterSandbox, Sandbox

    hints = typing.get_type_hints(RegisterSandbox.__call__)
    assert (hints["cls"], hints["path"], hints["return"]) == (type[Sandbox] | str, str | None, type(None))
    (tmp_path / "sandbox_by_path_demo.py").write_text(SANDBOX_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "sandbox_by_path_demo", raising=False)
    monkeypatch.setenv("BENCH_PLUGINS", "bench-core")

    class Plugin:
        @hookimpl
        def bench_register_sandboxes(self, register: RegisterSandbox) -> None:
            register("echoing", "sandbox_by_path_demo:Echoing")

    registry = build_registry([("bench-sandbox-by-path", "demo", Plugin())])
    assert "sandbox_by_path_demo" not in sys.modules
    provided = registry.sandboxes["echoing"]
    assert (provided.cls.__name__, provided.distribution) == ("Echoing", "bench-sandbox-by-path")
    assert registry.failures == []


def test_the_allow_list_proxy_stops_when_the_container_client_cannot_start(tmp_path, monkeypatch):
    """A command run inside (the agent's tools, ``code_execution``) whose container client fails
    to start still stops the sandbox, and with it the proxy its command line started."""
    import asyncio

    from bench.workspace import container
    from bench.workspace.sandbox import run_inside

    gone = str(tmp_path / "gone" / "podman")
    monkeypatch.setattr(container, "container_runtime", lambda preferred=None: gone)
    box = container.ContainerSandbox(
        container.ContainerConfig(image="x", network={"allow": ["localhost"]}, runtime="podman")
    )
    with pytest.raises(FileNotFoundError, match="gone/podman"):
        asyncio.run(run_inside(box, ["true"], tmp_path, timeout=10))
    assert [t.name for t in threading.enumerate() if t.name == "bench-egress-proxy"] == []


@pytest.mark.parametrize(
    ("sandbox", "error"),
    [
        (
            "{type: container, image: x, network: bogus}",
            "target.sandbox: sandbox container: network: Value error, network must be none, loopback or "
            "{allow: [hosts]}, not 'bogus'",
        ),
        (
            "{type: containr, image: x}",
            "target.sandbox.type: unknown sandbox type 'containr' (did you mean 'container'?)",
        ),
    ],
    ids=["network", "type"],
)
def test_validate_refuses_a_command_targets_sandbox_settings_that_run_refuses(
    sandbox, error, bench_cli, bench_suite_file, tmp_path, monkeypatch
):
    """``bench validate`` said such a suite was valid; only ``bench run`` refused it. Settings are
    checked with no runtime installed (whether it can run here is ``run``'s to say)."""
    monkeypatch.setenv("PATH", str(tmp_path))
    suite = bench_suite_file(
        f"target: {{type: command, command: [cat], sandbox: {sandbox}}}\n"
        "tasks: [{id: a, prompt: p, evaluate: {expected: hi}}]\n"
    )
    result = bench_cli("validate", suite)
    assert result.exit_code == 2, result.output
    assert error in result.stderr
