"""bench gives promptfoo's own verdicts on promptfoo's own files.

Every case under tests/conformance/promptfoo/ is a promptfoo config with ``expected.json``: the rows
promptfoo 0.121.20 produced for it under ``--providers echo`` (recorded by record.py there, never by
these tests). bench runs the same config with ``--target echo`` and must give, row by row, the same
rendered prompt (the echo response), pass/fail, score to 3 decimals, error-versus-failure split and
named scores, and the same exit class. A config promptfoo refused (exit 1, no rows) must be refused
by bench too (exit 2). A case with ``fake-llm.json`` was recorded against bench's fake server
answering by those rules; bench runs against the same server and rules.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_hf import FakeHuggingFace

from bench.testing import FakeLLMServer, Reply

CORPUS = Path(__file__).parent / "conformance" / "promptfoo"
CASES = sorted(p.parent.name for p in CORPUS.glob("*/expected.json"))

# promptfoo's verdict -> bench's task status
STATUS = {"pass": "passed", "failure": "failed", "error": "error"}

#: Cases whose config runs JavaScript (javascript checks, transforms, filters): they need Node.js.
NEEDS_NODE = {
    "javascript",
    "javascript-checks",
    "javascript-transforms",
    "nunjucks-filters",
    "derived-metrics",
    "example-summarization",
}
HAS_NODE = shutil.which("node") is not None
#: The model bench's simulated user asks for on the fake server (rules marked ``user``).
USER = "fake-user"


def _run_bench(
    config: Path, folder: Path, echo: bool = True, env: dict[str, str] | None = None
) -> tuple[int, str, dict[str, Any] | None]:
    """bench on ``config``: with ``--target echo`` when promptfoo ran with ``--providers echo``, else
    with the config's own providers (offline Python scripts); ``env`` replaces the environment."""
    out = folder / "out.json"
    target = ["--target", "echo"] if echo else []
    done = subprocess.run(
        [sys.executable, "-m", "bench", "run", str(config), *target, "-o", str(out)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env=env,
    )
    data = json.loads(out.read_text()) if out.exists() else None
    return done.returncode, done.stdout + done.stderr, data


@contextlib.contextmanager
def graded(
    case: str, hf_sent: list[dict[str, Any]] | None = None, llm_sent: list[dict[str, Any]] | None = None
) -> Iterator[dict[str, str]]:
    """The variables that point bench's model calls at the fake server answering by the case's
    ``fake-llm.json``, and its classifier's at a fake Hugging Face endpoint answering by its
    ``fake-hf.json`` (record.py recorded promptfoo against the same), and the case's ``env.json``;
    none without them. What reached the Hugging Face endpoint is added to ``hf_sent``, and what
    reached the fake model server to ``llm_sent``, as record.py keeps them."""
    rules = CORPUS / case / "fake-llm.json"
    hf_rules = CORPUS / case / "fake-hf.json"
    with contextlib.ExitStack() as stack:
        named = CORPUS / case / "env.json"
        env = {str(k): str(v) for k, v in json.loads(named.read_text()).items()} if named.exists() else {}
        if rules.exists():
            server = stack.enter_context(FakeLLMServer())
            loaded = json.loads(rules.read_text())
            # promptfoo's simulated user (record.py served it as its task 'tau') is a model here:
            # its rules, bound to that model, come first
            for rule in sorted(loaded, key=lambda r: not r.get("user")):
                server.add(
                    Reply(rule["reply"]), match=rule["match"], model=USER if rule.get("user") else None
                )
            env.update({"OPENAI_API_BASE": server.url, "OPENAI_API_KEY": "sk-fake"})
            if any(rule.get("user") for rule in loaded):
                env["BENCH_PROMPTFOO_SIMULATED_USER"] = f"openai:chat:{USER}"
        if hf_rules.exists():
            hf = stack.enter_context(FakeHuggingFace(json.loads(hf_rules.read_text())))
            env.update({"HF_FAKE_URL": hf.url, "HF_TOKEN": "hf-fake"})
        yield env
        if hf_rules.exists() and hf_sent is not None:
            found = [{"path": p, "body": b.decode(), "authorization": a} for p, b, a in hf.requests]
            hf_sent += sorted(found, key=lambda r: (r["path"], r["body"]))
        if rules.exists() and llm_sent is not None:
            sent = [
                {"path": r.path, "model": r.body.get("model"), "messages": r.body.get("messages")}
                for r in server.requests
            ]
            llm_sent += sorted(sent, key=lambda r: json.dumps(r, sort_keys=True))


def _first(mapping: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if mapping.get(key) is not None:
            return mapping[key]
    return None


def _task_identity(task: dict[str, Any]) -> dict[str, Any]:
    """What the loader keeps of a promptfoo row in a task: test description, prompt label, vars."""
    metadata = task.get("metadata") or {}
    return {
        "description": _first(metadata, "description", "test_description", "promptfoo_description"),
        "prompt_label": _first(metadata, "prompt_label", "label", "promptfoo_prompt_label"),
        "vars": _first(metadata, "vars", "promptfoo_vars") or task.get("vars") or {},
    }


def _named_scores(task: dict[str, Any]) -> dict[str, float]:
    """Named scores wherever bench reports them: metadata, the scorecard, or an evaluator's details."""
    found: dict[str, Any] = {}
    for source in (task.get("metadata") or {}, task.get("scorecard") or {}):
        for key in ("named_scores", "namedScores"):
            if isinstance(source.get(key), dict):
                found.update(source[key])
    for outcome in task.get("evaluators") or []:
        details = outcome.get("details") or {}
        for key in ("named_scores", "namedScores"):
            if isinstance(details.get(key), dict):
                found.update(details[key])
    return {k: round(float(v), 3) for k, v in sorted(found.items()) if isinstance(v, int | float)}


def _same_vars(expected: dict[str, Any], got: dict[str, Any]) -> bool:
    """Vars agree when every var promptfoo shows has the same text in bench (file:// kept or read)."""
    return all(
        k in got and str(got[k]) == str(v) for k, v in expected.items() if not isinstance(v, list | dict)
    )


def _pair(
    rows: list[dict[str, Any]], tasks: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], dict | None]]:
    """Each expected row with the bench task of the same description, prompt label and vars."""
    left = list(tasks)
    pairs: list[tuple[dict[str, Any], dict | None]] = []
    for row in rows:
        same = [t for t in left if _task_identity(t)["prompt_label"] in (row["prompt_label"], None)]
        same = [t for t in same if _task_identity(t)["description"] == row["description"]] or same
        best = [t for t in same if _same_vars(row["vars"], _task_identity(t)["vars"])] or same
        task = best[0] if best else None
        if task is not None:
            left.remove(task)
        pairs.append((row, task))
    return pairs


def _row_name(index: int, row: dict[str, Any]) -> str:
    test = row["description"] or f"test #{row['test_idx']}"
    return f"row {index} ({test} | prompt {row['prompt_label']!r} | vars {json.dumps(row['vars'])})"


def _as_text(output: Any) -> Any:
    """An object ``providerOutput`` is the response as compact JSON in bench (the loader's rule)."""
    if isinstance(output, (dict, list)):
        return json.dumps(output, separators=(",", ":"), ensure_ascii=False)
    return output


def _output(task: dict[str, Any]) -> Any:
    """The output promptfoo shows: the response, or what a test's ``options.transform`` made of it
    (bench keeps the response and reports the transformed output in the evaluator's details)."""
    for outcome in task.get("evaluators") or []:
        if "output" in (outcome.get("details") or {}):
            return outcome["details"]["output"]
    return task.get("response")


def _differences(case: str, rows: list[dict[str, Any]], tasks: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    if len(tasks) != len(rows):
        lines.append(f"rows: promptfoo {len(rows)} != bench {len(tasks)}")
    for index, (row, task) in enumerate(_pair(rows, tasks)):
        name = _row_name(index, row)
        if task is None:
            lines.append(f"{name}: no bench task")
            continue
        want = row
        got_status = task.get("status")
        checks: list[tuple[str, Any, Any]] = [("verdict", STATUS[want["verdict"]], got_status)]
        if want["verdict"] != "error":
            checks += [
                ("rendered prompt (echo response)", _as_text(want["output"]), _output(task)),
                ("pass", want["pass"], task.get("passed")),
                ("score", want["score"], None if task.get("score") is None else round(task["score"], 3)),
                ("named scores", want["named_scores"], _named_scores(task)),
            ]
        for field, expected, got in checks:
            if expected != got:
                lines.append(f"{name}: {field}: promptfoo {expected!r} != bench {got!r}")
    return lines


def _derived_differences(columns: list[dict[str, Any]], data: dict[str, Any]) -> list[str]:
    """promptfoo's derivedMetrics per prompt column against the figures bench's run reports."""
    figures = {
        k: v for k, v in ((data.get("aggregates") or {}).get("promptfoo") or {}).items() if k != "type"
    }
    lines: list[str] = []
    for column in columns:
        name = f"{column['provider']}: {column['label']}"
        for key, value in figures.items():
            metric = key if len(columns) == 1 else key.removesuffix(f" ({name})")
            if metric == key and len(columns) > 1:
                continue  # another column's figure
            want = column["named_scores"].get(metric)
            got = None if value is None else round(value, 3)
            if want != got:
                lines.append(f"derived metric {metric} of {name}: promptfoo {want!r} != bench {got!r}")
        if not figures:
            lines.append(f"derived metrics of {name}: bench reported none")
    return lines


@pytest.mark.parametrize("case", CASES)
def test_bench_gives_promptfoos_verdicts(case: str, tmp_path: Path):
    if case in NEEDS_NODE and not HAS_NODE:
        pytest.skip("this case runs JavaScript: Node.js ('node') is not on PATH")
    expected = json.loads((CORPUS / case / "expected.json").read_text())
    echo = "--providers echo" in expected["command"]
    hf_sent: list[dict[str, Any]] = []
    llm_sent: list[dict[str, Any]] = []
    with graded(case, hf_sent, llm_sent) as served:
        env = {**os.environ, **served} if served else None
        code, output, data = _run_bench(CORPUS / case / "promptfooconfig.yaml", tmp_path, echo, env)
    if (CORPUS / case / "hf-requests.json").exists():  # byte for byte what promptfoo sent
        assert hf_sent == json.loads((CORPUS / case / "hf-requests.json").read_text())
    if (CORPUS / case / "llm-requests.json").exists():  # the models and messages promptfoo sent
        assert llm_sent == json.loads((CORPUS / case / "llm-requests.json").read_text())
    if expected.get("config_error"):
        # promptfoo refused the config before running anything (exit 1, no output)
        refused = code == 2 and output.lstrip().startswith("error:") and "Usage:" not in output
        assert refused, f"promptfoo refused it ({expected['config_error']}); bench exited {code}:\n{output}"
        return
    assert data is not None, f"bench wrote no output (exit {code}):\n{output}"
    differences = _differences(case, expected["rows"], data.get("tasks") or [])
    differences += _derived_differences(expected.get("prompt_metrics") or [], data)
    # exit class: promptfoo 0 = every row passed, 100 = a failure or an error; bench 0 / 1 / 3
    all_passed = expected["exit_code"] == 0
    if (code == 0) != all_passed or code not in (0, 1, 3):
        differences.append(f"exit: promptfoo {expected['exit_code']} != bench {code}")
    assert not differences, (
        f"{case}: bench differs from promptfoo 0.121.20:\n"
        + "\n".join(differences)
        + (f"\n--- bench output ---\n{output[-3000:]}")
    )


def test_the_corpus_is_promptfoos_own_output():
    """Guard against an edited expected.json: each row count matches promptfoo's recorded stats."""
    assert len(CASES) >= 12
    for case in CASES:
        expected = json.loads((CORPUS / case / "expected.json").read_text())
        assert expected["promptfoo"] == "0.121.20"
        if expected.get("config_error"):
            assert expected["exit_code"] == 1
            assert expected["rows"] == []
            continue
        stats = expected["stats"]
        assert len(expected["rows"]) == stats["successes"] + stats["failures"] + stats["errors"], case
        assert expected["exit_code"] == (0 if len(expected["rows"]) == stats["successes"] else 100), case


def test_without_node_a_row_whose_javascript_did_not_run_is_an_error_naming_it(tmp_path: Path):
    """No Node.js: every row with a javascript check is an error naming it, never promptfoo's pass
    (nor a verdict over the checks that did run), and the summary counts them as errors."""
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    code, output, data = _run_bench(CORPUS / "javascript" / "promptfooconfig.yaml", tmp_path, env=env)
    assert code == 3, output
    assert data is not None
    tasks = data["tasks"]
    assert [t["status"] for t in tasks] == ["error", "error", "error"]
    for task in tasks:
        [outcome] = task["evaluators"]
        assert outcome["error"] == (
            "javascript: needs Node.js to run JavaScript, but no 'node' is on PATH, so it did not run"
        ), task
    assert "3 tasks: 0 passed, 0 failed, 3 errors" in output
