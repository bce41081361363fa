"""docs/reliability.md group H on the newer surfaces: an imported file's credential fields (H12) and a
container sandbox's client command line (H13) never carry a secret in clear."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

from bench.testing.pytest_plugin import CANARY_KEY

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
