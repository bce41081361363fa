"""youBencha's ``post_evaluation`` hooks, run as the task's ``after_task`` command.

The youBencha loader sets ``after_task`` to ``python -m bench_formats.youbencha.posteval`` with
the hooks in ``BENCH_YOUBENCHA_POST_EVALUATION``. As the orchestrator's ``runEvaluation`` does
after its evaluators (steps 6-8), it writes the results bundle to ``ARTIFACTS/results.json``
(``buildResultsBundle``, from bench's result in ``BENCH_RESULT``), then runs every hook at once
(``runPostEvaluations``): ``script`` (src/post-evaluation/script.ts), ``database``
(database.ts, ``json-file``) and ``webhook`` (webhook.ts). A hook never changes the verdict;
each prints youBencha's ``✓``/``✗``/``⊘`` line. A case that youBencha stops before its
evaluators (a failed pre-execution, a workspace that could not be made) runs no hook.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import http.client
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ENV = "BENCH_YOUBENCHA_POST_EVALUATION"
#: The User-Agent webhook.ts sends (its ``YOUBENCHA_VERSION``).
USER_AGENT = "youBencha/0.1.0"
#: bench's errors for a case youBencha stops before its evaluators (it then runs no hook).
STOPPED_BEFORE = ("Pre-execution failed", "workspace: ")

Outcome = tuple[str, str]  # (status: success | failed | skipped, message)


def _iso(moment: datetime.datetime) -> str:
    """JavaScript's ``toISOString``: milliseconds and ``Z``."""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _now() -> str:
    return _iso(datetime.datetime.now(datetime.timezone.utc))


def evaluator_result(outcome: dict[str, Any]) -> dict[str, Any]:
    """One bench evaluator outcome as a youBencha ``EvaluationResult``."""
    details = dict(outcome.get("details") or {})
    if details.get("youbencha_status") == "skipped":
        status, message = "skipped", str(details.get("message", outcome.get("reason", "")))
    elif outcome.get("error") is not None:
        status, message = "skipped", str(outcome["error"])
    else:
        status, message = ("passed" if outcome["passed"] else "failed"), str(outcome.get("reason", ""))
    metrics = {k: v for k, v in details.items() if not k.startswith("youbencha_") and k != "message"}
    return {
        "evaluator": str(details.get("youbencha_evaluator") or outcome["name"]),
        "status": status,
        "metrics": metrics,
        "message": message,
        "duration_ms": 0,
        "timestamp": _now(),
    }


def summary(evaluators: list[dict[str, Any]]) -> dict[str, Any]:
    """``calculateSummary``: failed if any failed, passed if all passed, else partial."""
    counts = {s: sum(e["status"] == s for e in evaluators) for s in ("passed", "failed", "skipped")}
    overall = "failed" if counts["failed"] else "passed" if counts["passed"] == len(evaluators) else "partial"
    return {"total_evaluators": len(evaluators), **counts, "overall_status": overall}


def _agent(spec: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    error = result.get("error")
    status = "success" if not error else "timeout" if str(error).startswith("timed out") else "failed"
    code = re.search(r"exit(?:ed with)? (?:code|status) (-?\d+)", str(error or ""))
    return {
        "type": spec["agent_type"],
        "youbencha_log_path": "youbencha.log.json",
        "status": status,
        "exit_code": int(code.group(1)) if code else (0 if not error else 1),
    }


def results_bundle(spec: dict[str, Any], result: dict[str, Any], run_dir: str) -> dict[str, Any]:
    """``buildResultsBundle`` from bench's result (figures bench does not have are documented)."""
    evaluators = [evaluator_result(o) for o in result.get("evaluators") or []]
    completed = _now()
    duration = float(result.get("duration_ms") or 0)
    started = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(milliseconds=duration)
    return {
        "version": "1.0.0",
        # commit: the one checked out (youBencha's workspace.modifiedCommit)
        "test_case": {
            **spec["test_case"],
            "commit": (result.get("workspace") or {}).get("base_commit") or "",
        },
        "execution": {
            "started_at": _iso(started),
            "completed_at": completed,
            "duration_ms": round(duration),
            "youbencha_version": "bench",
            "environment": {
                "os": f"{platform.system().lower()} {platform.release()}",
                "node_version": "",
                "workspace_dir": run_dir,
            },
        },
        "agent": _agent(spec, result),
        "evaluators": evaluators,
        "summary": summary(evaluators),
        "artifacts": {"agent_log": "youbencha.log.json", "reports": [], "evaluator_artifacts": []},
    }


@dataclasses.dataclass
class Context:
    """``PostEvaluationContext``: the bundle, its path, the artifacts and run folders, the cwd."""

    bundle: dict[str, Any]
    bundle_path: str
    artifacts: str
    run_dir: str
    cwd: str

    def resolve(self, path: str) -> Path:
        """Node's ``path.resolve``: against the folder ``yb`` (here: bench) was started in."""
        return Path(os.path.normpath(Path(self.cwd, path)))


def run_script(config: dict[str, Any], ctx: Context) -> Outcome:
    """``ScriptPostEvaluation``: ``/bin/sh -c`` with command and args joined by spaces."""
    command = config.get("command") or ""
    if not command.strip():
        return "skipped", "Preconditions not met"
    values = {
        "RESULTS_PATH": ctx.bundle_path,
        "ARTIFACTS_DIR": ctx.artifacts,
        "WORKSPACE_DIR": ctx.run_dir,
        "TEST_CASE_NAME": ctx.bundle["test_case"]["name"],
        "OVERALL_STATUS": ctx.bundle["summary"]["overall_status"],
    }
    args = []
    for arg in config.get("args") or []:
        for name, value in values.items():
            arg = arg.replace("${" + name + "}", value, 1)  # JavaScript's replace: the first only
        args.append(arg)
    env = {**os.environ, **values, **(config.get("env") or {})}
    timeout_ms = config.get("timeout_ms") or 30000
    try:
        child = subprocess.Popen(
            ["/bin/sh", "-c", " ".join([command, *args])],
            cwd=ctx.resolve(config.get("working_dir") or "."),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError:
        return "failed", "Failed to execute script"
    try:
        child.communicate(timeout=timeout_ms / 1000)
    except subprocess.TimeoutExpired:
        _end(child)
        return "failed", "Failed to execute script"  # youBencha: "Script timed out after Nms"
    code = child.returncode if child.returncode > 0 else 0  # Node: a signal is code null, `|| 0`
    return (
        ("success", "Script completed successfully")
        if code == 0
        else ("failed", f"Script exited with code {code}")
    )


def _end(child: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL 2 s later, as script.ts does (to the group: nothing is left behind)."""
    os.killpg(child.pid, signal.SIGTERM)
    try:
        child.communicate(timeout=2)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()


def _summary_export(bundle: dict[str, Any]) -> dict[str, Any]:
    """database.ts ``extractSummary``."""
    tc, ex, ag = bundle["test_case"], bundle["execution"], bundle["agent"]
    keys = ("name", "description", "repo", "branch", "commit", "config_file", "config_hash")
    return {
        "version": bundle["version"],
        "test_case": {k: tc.get(k) for k in keys},
        "execution": {
            k: ex[k]
            for k in ("started_at", "completed_at", "duration_ms", "youbencha_version", "environment")
        },
        "agent": {k: ag[k] for k in ("type", "youbencha_log_path", "status", "exit_code")},
        "summary": bundle["summary"],
        "evaluators": [
            {k: e[k] for k in ("evaluator", "status", "metrics", "message", "duration_ms", "timestamp")}
            for e in bundle["evaluators"]
        ],
        "artifacts": bundle["artifacts"],
    }


def run_database(config: dict[str, Any], ctx: Context) -> Outcome:
    """``DatabasePostEvaluation`` (``json-file``): one JSON line, appended unless ``append: false``."""
    out = ctx.resolve(config["output_path"])
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return "skipped", "Preconditions not met"
    data = ctx.bundle if config.get("include_full_bundle", True) else _summary_export(ctx.bundle)
    line = json.dumps({**data, "exported_at": _now()}, separators=(",", ":"), ensure_ascii=False) + "\n"
    try:
        with out.open("a" if config.get("append", True) else "w", encoding="utf-8") as handle:
            handle.write(line)
    except OSError:
        return "failed", "Failed to export results"
    return "success", f"Successfully exported results to {out}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A 3xx is the answer, as for youBencha's ``http.request``: the bundle and the hook's headers
    never go to the host a redirect names."""

    def redirect_request(self, *args: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def _target(url: str) -> tuple[str, str]:
    """The URL requested (webhook.ts sends ``pathname + search`` to ``hostname:port``: never the
    ``user:password@``) and the URL as printed (without the query and fragment too, where tokens go)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return (
        urllib.parse.urlunsplit((parts.scheme, host, parts.path or "/", parts.query, "")),
        urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", "")),
    )


def run_webhook(config: dict[str, Any], ctx: Context) -> Outcome:
    """``WebhookPostEvaluation``: the bundle as JSON, 3 tries (1 s, 2 s apart) unless told not to.

    Only ``http`` and ``https`` URLs are posted (youBencha's only clients; urllib would read a
    ``file:`` URL and call that a success), redirects are not followed, and the URL is printed
    without its credentials, query or fragment (RELIABILITY H26).
    """
    scheme = urllib.parse.urlsplit(config["url"]).scheme.lower()
    if scheme not in ("http", "https"):
        print(f"youBencha webhook: not posted: {scheme}: is not http or https", file=sys.stderr)
        return "failed", "Failed to execute webhook"
    url, shown = _target(config["url"])
    payload: dict[str, Any] = {"results": ctx.bundle}
    if config.get("include_artifacts"):
        payload["artifacts_path"] = ctx.artifacts
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **(config.get("headers") or {})}
    tries = 3 if config.get("retry_on_failure", True) else 1
    for attempt in range(1, tries + 1):
        request = urllib.request.Request(url, body, headers, method=config.get("method") or "POST")
        try:
            with _OPENER.open(request, timeout=(config.get("timeout_ms") or 5000) / 1000):
                return "success", f"Successfully posted results to {shown}"
        except (OSError, ValueError, http.client.HTTPException) as exc:  # HTTPError (not 2xx): OSError
            print(f"youBencha webhook attempt {attempt}: {exc}", file=sys.stderr)
        if attempt < tries:
            time.sleep(attempt)
    return "failed", f"Failed to post results after {tries} attempts"


RUNNERS = {"script": run_script, "database": run_database, "webhook": run_webhook}
SIGNS = {"success": "✓", "failed": "✗", "skipped": "⊘"}


def run_hook(hook: dict[str, Any], ctx: Context) -> Outcome:
    """One hook's outcome; whatever it raises is youBencha's ``Unexpected error during execution``."""
    try:
        return RUNNERS[hook["name"]](hook.get("config") or {}, ctx)
    except Exception as exc:  # runPostEvaluations catches everything
        print(f"youBencha post-evaluation {hook['name']}: {exc}", file=sys.stderr)
        return "failed", "Unexpected error during execution"


def _run_all(spec: dict[str, Any], result: dict[str, Any], run_dir: str, artifacts: str) -> list[Outcome]:
    """Save the bundle in ``artifacts``, then run every hook at once (``Promise.allSettled``)."""
    bundle = results_bundle(spec, result, run_dir)
    bundle_path = str(Path(artifacts, "results.json"))
    Path(bundle_path).write_text(json.dumps(bundle, indent=2, ensure_ascii=False), encoding="utf-8")
    ctx = Context(bundle, bundle_path, artifacts, run_dir, spec["cwd"])
    with ThreadPoolExecutor(max_workers=max(1, len(spec["hooks"]))) as pool:
        return list(pool.map(lambda hook: run_hook(hook, ctx), spec["hooks"]))


def main() -> int:
    """Build the bundle, run the hooks together, print each outcome; always exits 0."""
    spec = json.loads(os.environ.pop(ENV))
    result = json.loads(Path(os.environ["BENCH_RESULT"]).read_text(encoding="utf-8"))
    if result.get("status") == "error" and any(s in str(result.get("error")) for s in STOPPED_BEFORE):
        print("youBencha post-evaluation: not run (the case stopped before its evaluators)", file=sys.stderr)
        return 0
    workspace = Path(os.environ.get("BENCH_WORKSPACE") or os.getcwd())
    with contextlib.ExitStack() as stack:
        if spec.get("placed") and workspace.name == "src-modified":  # RUN/src-modified: youBencha's
            run_dir, artifacts = workspace.parent, workspace.parent / "artifacts"  # run folder, kept
            artifacts.mkdir(exist_ok=True)
        else:
            run_dir = workspace
            artifacts = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="youbencha-artifacts-")))
        outcomes = _run_all(spec, result, str(run_dir), str(artifacts))
    for hook, (status, message) in zip(spec["hooks"], outcomes, strict=True):
        print(f"youBencha post-evaluation {SIGNS[status]} {hook['name']}: {message}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
