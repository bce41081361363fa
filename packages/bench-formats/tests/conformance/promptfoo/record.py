"""Re-record the promptfoo conformance corpus: run promptfoo 0.121.20 on every case, keep its verdicts.

Run by hand, never by tests (it needs npx and the npm registry or npx's cache):

    python packages/bench-formats/tests/conformance/promptfoo/record.py [CASE ...]

For each ``<case>/promptfooconfig.yaml`` it runs, in the case's folder,

    npx -y promptfoo@0.121.20 eval -c promptfooconfig.yaml --providers echo --no-cache
        --no-table --no-progress-bar --no-write -j 1 -o <tmp>/out.json

with telemetry, update checks and sharing off and promptfoo's config folder in a temporary
directory, so it reaches no model API and no promptfoo server. It writes ``expected.json`` (the
compact rows the conformance test compares) and keeps the raw output as ``promptfoo-0.121.20.json``
when it is under 50 KB.

A case with ``fake-llm.json`` (model-graded checks) runs against bench's fake OpenAI-compatible
server on 127.0.0.1 (``bench.testing.server``), answering by those rules
(``{"match": "text in the prompt", "reply": "..."}``); the conformance test runs bench against
the same server and rules. A case with ``fake-hf.json`` (``classifier`` checks) also gets a fake
Hugging Face endpoint (``tests/fake_hf.py``) whose base URL is ``HF_FAKE_URL``, with
``HF_TOKEN=hf-fake``; the requests promptfoo sent it are kept in ``hf-requests.json``. A case with
``env.json`` runs with those variables added to the environment (bench's test adds them too), and
keeps the requests its fake OpenAI-compatible server got (model and messages) in
``llm-requests.json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

VERSION = "0.121.20"
HERE = Path(__file__).resolve().parent
RAW_LIMIT = 50_000
COMMAND = [
    "npx",
    "-y",
    f"promptfoo@{VERSION}",
    "eval",
    "-c",
    "promptfooconfig.yaml",
    "--providers",
    "echo",
    "--no-cache",
    "--no-table",
    "--no-progress-bar",
    "--no-write",
    "-j",
    "1",
    "-o",
]
#: Cases that run with the config's own providers (offline Python scripts), not ``--providers echo``:
#: the conformance test then runs bench without ``--target echo`` (it reads ``command`` in expected.json).
OWN_PROVIDERS = {
    "python-provider",
    "duplicate-providers",
    "conversation-chat",
    "simulated-user",
    "default-test-provider",
    "default-test-provider-id",
}
# promptfoo's failureReason: 0 none, 1 assertion failed, 2 error
VERDICTS = {0: "pass", 1: "failure", 2: "error"}


def _environment(folder: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "PROMPTFOO_CONFIG_DIR": str(folder / ".promptfoo"),
        "PROMPTFOO_CACHE_ENABLED": "false",
        "NO_COLOR": "1",
    }


def case_env(case: Path) -> dict[str, str]:
    """The variables ``case/env.json`` adds to the run's environment; none without it."""
    found = case / "env.json"
    return {str(k): str(v) for k, v in json.loads(found.read_text()).items()} if found.exists() else {}


def llm_requests(server: Any) -> list[dict[str, Any]]:
    """What reached the fake OpenAI-compatible server, in a stable order: path, model, messages."""
    found = [
        {"path": r.path, "model": r.body.get("model"), "messages": r.body.get("messages")}
        for r in server.requests
    ]
    return sorted(found, key=lambda r: json.dumps(r, sort_keys=True))


@contextlib.contextmanager
def fake_llm(case: Path) -> Iterator[dict[str, str]]:
    """The environment that points promptfoo's and bench's OpenAI calls at bench's fake server
    answering by ``case/fake-llm.json``; nothing when the case has no such file. With ``env.json``
    the requests it got are written to ``case/llm-requests.json``."""
    rules = case / "fake-llm.json"
    if not rules.exists():
        yield {}
        return
    from bench.testing import FakeLLMServer, Reply

    loaded = json.loads(rules.read_text())
    with FakeLLMServer() as server, user_task([r for r in loaded if r.get("user")]) as task_url:
        for rule in loaded:
            if not rule.get("user"):
                server.add(Reply(rule["reply"]), match=rule["match"])
        # promptfoo reads OPENAI_BASE_URL; litellm (bench) reads OPENAI_API_BASE
        served = {"OPENAI_BASE_URL": server.url, "OPENAI_API_BASE": server.url, "OPENAI_API_KEY": "sk-fake"}
        yield {**served, **({"PROMPTFOO_REMOTE_GENERATION_URL": task_url} if task_url else {})}
        if (case / "env.json").exists():
            sent = json.dumps(llm_requests(server), indent=2, ensure_ascii=False)
            (case / "llm-requests.json").write_text(sent + "\n")


@contextlib.contextmanager
def user_task(rules: list[dict[str, Any]]) -> Iterator[str | None]:
    """promptfoo's remote generation task on 127.0.0.1, playing its simulated user (task ``tau``)
    by ``rules``: the first whose ``match`` is in the request body says ``reply`` (promptfoo's
    ``PromptfooSimulatedUserProvider`` posts ``{task, instructions, history}``, reads ``result``)."""
    if not rules:
        yield None
        return
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            reply = next((r["reply"] for r in rules if r["match"] in body), "###STOP###")
            data = json.dumps({"result": reply, "tokenUsage": {}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/api/v1/task"
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextlib.contextmanager
def fake_hf(case: Path) -> Iterator[tuple[dict[str, str], Any]]:
    """The environment pointing the case's Hugging Face endpoint at a fake one answering by
    ``case/fake-hf.json``, and that server; nothing when the case has no such file."""
    rules = case / "fake-hf.json"
    if not rules.exists():
        yield {}, None
        return
    sys.path.insert(0, str(HERE.parents[1]))
    from fake_hf import FakeHuggingFace

    with FakeHuggingFace(json.loads(rules.read_text())) as server:
        yield {"HF_FAKE_URL": server.url, "HF_TOKEN": "hf-fake"}, server


def hf_requests(server: Any) -> list[dict[str, Any]]:
    """What reached the fake Hugging Face endpoint, in a stable order: path, body as sent, auth."""
    found = [{"path": p, "body": b.decode(), "authorization": a} for p, b, a in server.requests]
    return sorted(found, key=lambda r: (r["path"], r["body"]))


def _score(value: Any) -> float | None:
    return None if not isinstance(value, int | float) else round(float(value), 3)


def _error(text: Any, case: Path) -> str | None:
    """An error's first line, the case folder written as ``<case>`` (no stack trace, no local path)."""
    if not isinstance(text, str) or not text:
        return None
    return text.splitlines()[0].replace(str(case), "<case>")


def _row(result: dict[str, Any], case: Path) -> dict[str, Any]:
    test = result.get("testCase") or {}
    grading = result.get("gradingResult") or {}
    response = result.get("response") or {}
    return {
        "test_idx": result.get("testIdx"),
        "description": test.get("description"),
        "prompt_idx": result.get("promptIdx"),
        "prompt_label": (result.get("prompt") or {}).get("label"),
        "provider": (result.get("provider") or {}).get("id"),
        "vars": test.get("vars") or {},
        "prompt": (result.get("prompt") or {}).get("raw"),
        "output": response.get("output"),
        "pass": bool(result.get("success")),
        "score": _score(result.get("score")),
        "verdict": VERDICTS[int(result.get("failureReason", 0))],
        "error": _error(result.get("error"), case),
        "reason": grading.get("reason"),
        "named_scores": {k: _score(v) for k, v in sorted((result.get("namedScores") or {}).items())},
        "assertions": [
            {
                "type": (c.get("assertion") or {}).get("type"),
                "pass": c.get("pass"),
                "score": _score(c.get("score")),
                "reason": c.get("reason"),
            }
            for c in grading.get("componentResults") or []
        ],
    }


def _refused(case: Path, done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """promptfoo stopped before evaluating (a config error): keep the exit code and its error line."""
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    if not errors:
        raise SystemExit(f"{case.name}: promptfoo wrote no output (exit {done.returncode}):\n{done.stderr}")
    expected = {
        "promptfoo": VERSION,
        "command": " ".join([*COMMAND, "out.json"]),
        "exit_code": done.returncode,
        "config_error": _error(errors[-1], case),
        "rows": [],
    }
    (case / "expected.json").write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n")
    return expected


def _command(case: Path) -> list[str]:
    """The command for ``case``: its own providers (no ``--providers echo``) for OWN_PROVIDERS."""
    if case.name in OWN_PROVIDERS:
        at = COMMAND.index("--providers")
        return [*COMMAND[:at], *COMMAND[at + 2 :]]
    return COMMAND


def record(case: Path) -> dict[str, Any]:
    """Run promptfoo on one case and write its expected.json (and the raw output if small)."""
    command = _command(case)
    with tempfile.TemporaryDirectory() as tmp, fake_llm(case) as served, fake_hf(case) as (hf_env, hf):
        out = Path(tmp) / "out.json"
        done = subprocess.run(
            [*command, str(out)],
            cwd=case,
            env={**_environment(Path(tmp)), **served, **hf_env, **case_env(case)},
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        if not out.exists():
            return _refused(case, done)
        raw = out.read_text()
        if hf is not None:
            sent = json.dumps(hf_requests(hf), indent=2, ensure_ascii=False)
            (case / "hf-requests.json").write_text(sent + "\n")
    data = json.loads(raw)
    results = sorted(data["results"]["results"], key=lambda r: (r.get("testIdx", 0), r.get("promptIdx", 0)))
    expected = {
        "promptfoo": VERSION,
        "command": " ".join([*command, "out.json"]),
        "exit_code": done.returncode,
        "stats": {k: data["results"]["stats"].get(k) for k in ("successes", "failures", "errors")},
        "rows": [_row(r, case) for r in results],
    }
    if "derivedMetrics" in (data.get("config") or {}):
        # derived metrics live on each prompt column (provider x prompt), computed over its rows
        expected["prompt_metrics"] = [
            {
                "label": p.get("label"),
                "provider": p.get("provider"),
                "named_scores": {
                    k: _score(v) for k, v in sorted((p.get("metrics") or {}).get("namedScores", {}).items())
                },
            }
            for p in data["results"].get("prompts") or []
        ]
    (case / "expected.json").write_text(json.dumps(expected, indent=2, ensure_ascii=False) + "\n")
    raw_path = case / f"promptfoo-{VERSION}.json"
    if len(raw.encode()) < RAW_LIMIT:
        raw_path.write_text(raw if raw.endswith("\n") else raw + "\n")
    else:
        raw_path.unlink(missing_ok=True)
    return expected


def main(names: list[str]) -> None:
    cases = (
        [HERE / n for n in names] if names else sorted(p.parent for p in HERE.glob("*/promptfooconfig.yaml"))
    )
    for case in cases:
        expected = record(case)
        print(
            f"{case.name}: {len(expected['rows'])} rows, exit {expected['exit_code']}, {expected.get('stats')}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
