"""bench import and bench rescore: other tools' results and stored runs judged as bench runs.

The files under tests/imports/ were written by the real tools (promptfoo
0.121.20, inspect_ai, lm-evaluation-harness, the OpenTelemetry SDK) with that folder's record.py;
promptfoo's rows come from the promptfoo conformance corpus, recorded the same way.
"""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = Path(__file__).parent / "imports"
PROMPTFOO = ROOT / "packages" / "bench-formats" / "tests" / "conformance" / "promptfoo" / "example-simple-csv"
LM_EVAL = next(FILES.glob("samples_arith_*.jsonl"))


def _results(run: str) -> list[dict[str, Any]]:
    path = Path(".bench/runs") / run / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _manifest(run: str) -> dict[str, Any]:
    return json.loads((Path(".bench/runs") / run / "manifest.json").read_text())


def _new_run(output: str) -> str:
    return output.rsplit("compare: bench compare ", 1)[1].split()[1]


def test_promptfoo_results_import_with_promptfoos_rows_and_verdicts(bench_cli):
    result = bench_cli("import", PROMPTFOO / "promptfoo-0.121.20.json", "-o", "pf")
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    assert result.stdout == (
        "imported promptfoo-0.121.20.json (promptfoo): 8 tasks: 0 passed, 8 failed, 0 errors\n"
        "run: pf in .bench/runs\n"
    )
    expected = json.loads((PROMPTFOO / "expected.json").read_text())["rows"]
    rows = _results("pf")
    assert [(r["response"], r["status"], r["score"]) for r in rows] == [
        (e["output"], {"pass": "passed", "failure": "failed"}[e["verdict"]], e["score"]) for e in expected
    ]
    assert [r["imported"]["reason"] for r in rows] == [e["reason"] for e in expected]
    assert _manifest("pf")["source"]["stats"] == {"successes": 0, "failures": 8, "errors": 0}


def test_a_promptfoo_import_rescored_with_its_config_and_a_bench_evaluator_added(bench_cli, tmp_path):
    bench_cli("import", PROMPTFOO / "promptfoo-0.121.20.json", "-o", "pf")
    config = (PROMPTFOO / "promptfooconfig.yaml").read_text()
    for name in ("prompts.txt", "tests.csv"):
        (tmp_path / name).write_text((PROMPTFOO / name).read_text())
    # bench's own check beside promptfoo's: every echoed answer is in the language asked
    (tmp_path / "promptfooconfig.yaml").write_text(
        config + "defaultTest:\n  assert:\n    - type: icontains\n      value: '{{language}}'\n"
    )
    result = bench_cli("rescore", "pf", "--suite", "promptfooconfig.yaml", "-q")
    assert result.exit_code == 1, result.output
    new = _new_run(result.stdout)
    assert _manifest(new)["rescored_from"]["run"] == "pf"
    rows = _results(new)
    assert [r["response"] for r in rows] == [r["response"] for r in _results("pf")]
    assert all(r["target"] == {"type": "recorded"} for r in rows)
    compared = bench_cli("compare", "pf", new, "--json")
    assert json.loads(compared.stdout)["matched"] == 8


def test_inspect_ai_logs_import_json_and_eval(bench_cli):
    for name in ("inspect-arithmetic.json", "inspect-arithmetic-deflate.eval"):
        result = bench_cli("import", FILES / name, "-o", name)
        assert result.stdout.startswith(f"imported {name} (inspect_ai): 2 tasks: 1 passed, 1 failed"), (
            result.output
        )
        rows = {r["id"]: r for r in _results(name)}
        assert rows["one-plus-one"]["status"] == "passed"
        assert rows["two-plus-three"]["response"] == "2 + 3 = 6"
        assert rows["two-plus-three"]["evaluators"][0]["details"]["value"] == "I"
        assert [c["name"] for c in rows["one-plus-one"]["tool_calls"]] == ["add"]
        assert [m["role"] for m in rows["one-plus-one"]["trajectory"]] == [
            "user",
            "assistant",
            "tool",
            "assistant",
        ]


def _verdicts(run: str) -> dict[str, tuple[Any, ...]]:
    return {r["id"]: (r["status"], r["response"], r["evaluators"][0]["details"]) for r in _results(run)}


def test_an_inspect_ai_zstd_eval_log_imports_as_its_json_log_does(bench_cli):
    """inspect_ai writes every .eval with zstd: bench-formats depends on zstandard (Python < 3.14)."""
    zstd = FILES / "inspect-arithmetic.eval"
    with zipfile.ZipFile(zstd) as archive:  # the file inspect_ai wrote, as it wrote it
        assert {info.compress_type for info in archive.infolist()} == {93}  # zip's method for zstd
    result = bench_cli("import", zstd, "-o", "zstd")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        "imported inspect-arithmetic.eval (inspect_ai): 2 tasks: 1 passed, 1 failed"
    )
    assert bench_cli("import", FILES / "inspect-arithmetic.json", "-o", "json").exit_code == 0
    assert _verdicts("zstd") == _verdicts("json")


def test_an_inspect_ai_zstd_archive_without_zstandard_is_refused_with_the_way_out(bench_cli, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # a Python < 3.14 where it is missing
    monkeypatch.delattr(zipfile, "ZIP_ZSTANDARD", raising=False)
    result = bench_cli("import", FILES / "inspect-arithmetic.eval")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {FILES / 'inspect-arithmetic.eval'}: this inspect_ai log is compressed with zstd, "
        "which this Python reads only with zstandard, a dependency of bench-formats missing here: "
        "pip install zstandard, or write the log as JSON with inspect log convert --to json\n",
    )


def test_lm_eval_samples_import_with_exact_match_as_the_verdict(bench_cli):
    result = bench_cli("import", LM_EVAL, "-o", "lm")
    assert result.stdout.startswith(f"imported {LM_EVAL.name} (lm-eval): 2 tasks: 1 passed, 1 failed")
    rows = _results("lm")
    assert [(r["id"], r["prompt"], r["response"], r["status"]) for r in rows] == [
        ("0", "Question: 1+1\nAnswer:", "2", "passed"),
        ("1", "Question: 2+3\nAnswer:", "6", "failed"),
    ]
    assert _manifest("lm")["suite"] == "arith"


def test_an_otlp_trace_imported_then_judged_by_trajectory(bench_cli, bench_suite_file):
    result = bench_cli("import", FILES / "otlp-weather-agent.json", "-o", "trace")
    assert result.stdout.startswith(
        "imported otlp-weather-agent.json (otlp): 2 tasks: 0 passed, 0 failed, 2 errors"
    )
    unjudged = _results("trace")[0]
    assert unjudged["evaluators"][0]["error"] == (
        "imported without a verdict: judge it with bench rescore RUN_ID --suite SUITE"
    )
    bench_suite_file(
        """
        name: weather-agent
        tasks:
          - id: paris-weather
            evaluators:
              - {type: trajectory, expected: [get_weather, {name: convert_units, arguments: {to: F}}]}
              - {type: efficiency, max_steps: 3, max_tokens: 500}
          - id: oslo-weather
            evaluators:
              - {type: trajectory, mode: exact, expected: [get_weather]}
              - {type: recovery_behavior}
        """
    )
    result = bench_cli("rescore", "trace", "--suite", "suite.yaml", "-q")
    assert result.exit_code == 1, result.output
    rows = {r["id"]: r for r in _results(_new_run(result.stdout))}
    assert rows["paris-weather"]["status"] == "passed"
    oslo = {e["type"]: e for e in rows["oslo-weather"]["evaluators"]}
    assert oslo["trajectory"]["reason"] == "trajectory does not match (exact): get_weather → get_weather"
    assert oslo["recovery_behavior"]["score"] == 1.0  # the failed call was retried and worked


def test_bench_results_import_and_rescore_with_a_changed_evaluator(bench_cli, bench_suite_file):
    bench_suite_file(
        """
        name: greet
        target: {type: echo}
        tasks:
          - {id: a, prompt: hello world, evaluate: {type: contains, value: hello}}
          - {id: b, prompt: goodbye, evaluate: {type: contains, value: hello}}
        """
    )
    assert bench_cli("run", "suite.yaml", "-q").exit_code == 1
    [first] = [p.name for p in Path(".bench/runs").iterdir()]
    copied = bench_cli("import", f".bench/runs/{first}/results.jsonl", "-o", "copy")
    assert copied.stdout.startswith("imported results.jsonl (bench): 2 tasks: 1 passed, 1 failed")
    bench_suite_file(
        """
        name: greet
        target: {type: echo}
        tasks:
          - {id: a, prompt: hello world, evaluate: {type: contains, value: world}}
          - {id: b, prompt: goodbye, evaluate: {type: contains, value: good}}
        """
    )
    result = bench_cli("rescore", first, "-q")
    assert result.exit_code == 0, result.output
    new = _new_run(result.stdout)
    assert _manifest(new)["rescored_from"]["run"] == first
    assert [(r["id"], r["status"]) for r in _results(new)] == [("a", "passed"), ("b", "passed")]
    assert bench_cli("compare", first, new).exit_code in (0, 3)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("just words\n", "no importer recognises its content (tried: bench, inspect_ai, lm-eval, otlp, promptfoo)"),
        ('{"results": {"results": [', "it is not complete JSON (not valid JSON: Expecting value: line 1 column 26 "
         "(char 25)); was the file cut short?"),
        ('{"id": "a", "status": "passed", "passed": true}\n{"id": "b", "sta',
         "it is not complete JSON (line 2: not valid JSON: Unterminated string starting at: line 1 column 13 "
         "(char 12)); was the file cut short?"),
    ],
    ids=["unrecognised", "truncated-json", "truncated-jsonl"],
)  # fmt: skip
def test_a_file_no_importer_reads_is_refused(bench_cli, tmp_path, text, error):
    (tmp_path / "results.json").write_text(text)
    result = bench_cli("import", "results.json")
    assert (result.exit_code, result.stderr) == (2, f"error: cannot import results.json: {error}\n")
    assert not Path(".bench/runs").exists() or not any(Path(".bench/runs").iterdir())


def test_rescore_of_a_run_that_does_not_exist(bench_cli):
    result = bench_cli("rescore", "20250101-000000-abcdef")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: no run '20250101-000000-abcdef' in .bench/runs (runs found: none)\n",
    )


def test_rescore_refuses_a_task_with_no_stored_response(bench_cli, bench_suite_file):
    bench_suite_file(
        "name: s\ntarget: {type: echo}\ntasks:\n  - {id: a, prompt: x, evaluate: {expected: x}}\n"
    )
    bench_cli("run", "suite.yaml", "-q")
    [run] = [p.name for p in Path(".bench/runs").iterdir()]
    bench_suite_file(
        "name: s\ntarget: {type: echo}\ntasks:\n"
        "  - {id: a, prompt: x, evaluate: {expected: x}}\n  - {id: new, prompt: y, evaluate: {expected: y}}\n"
    )
    result = bench_cli("rescore", run)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: bench rescore {run}: run {run} has no stored response for 1 task of suite.yaml: 'new'\n",
    )


def test_an_imported_run_has_no_suite_to_rescore_with(bench_cli):
    bench_cli("import", LM_EVAL, "-o", "lm")
    result = bench_cli("rescore", "lm")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: run lm was imported from {LM_EVAL} and has no suite: give the evaluators with --suite SUITE\n",
    )


def test_the_import_docs_example_runs_as_written(bench_cli, tmp_path):
    """docs/import.md's example: its suite, run on the trace it names, says what the page says."""
    import re
    import shutil

    page = (ROOT / "docs" / "import.md").read_text()
    [suite] = re.findall(r"^```yaml\n(.*?)^```$", page, flags=re.MULTILINE | re.DOTALL)
    (tmp_path / "suite.yaml").write_text(suite)
    shutil.copy(FILES / "otlp-weather-agent.json", tmp_path)
    imported = bench_cli("import", "otlp-weather-agent.json", "-o", "trace")
    assert imported.stdout == (
        "imported otlp-weather-agent.json (otlp): 2 tasks: 0 passed, 0 failed, 2 errors\nrun: trace in .bench/runs\n"
    )
    assert imported.stdout.splitlines()[0] in page
    rescored = bench_cli("rescore", "trace", "--suite", "suite.yaml", "-q")
    assert "2 tasks: 1 passed, 1 failed, 0 errors" in rescored.stdout
    assert bench_cli("compare", "trace", "latest").exit_code in (0, 1, 3)
