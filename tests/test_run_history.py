"""``bench runs``, ``bench show`` and ``latest`` wherever a run id is."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from bench.testing import write_suite

ROOT = Path(__file__).resolve().parents[1]

SUITE = """
name: history
target: {type: echo}
tasks:
  - id: good
    prompt: "hello {who}"
    vars: {who: world}
    evaluate: {type: contains, value: hello}
  - id: bad
    prompt: "\\x1b[31mPASSED\\x07 [bold]x[/bold]"
    evaluate: {type: contains, value: absent}
"""
OTHER = "name: other\ntarget: {type: echo}\ntasks:\n  - {id: t, prompt: p, evaluate: {type: contains, value: p}}\n"


def _run(bench_cli, suite):
    result = bench_cli("run", suite, "-q", "--runs-dir", "runs")
    return result.stdout.split("run ", 1)[1].split(":", 1)[0]


def test_runs_lists_every_run_newest_first(bench_cli, tmp_path):
    first = _run(bench_cli, write_suite(tmp_path, SUITE))
    second = _run(bench_cli, write_suite(tmp_path, OTHER, "other.yaml"))
    rows = json.loads(bench_cli("runs", "--runs-dir", "runs", "--json").stdout)
    assert [r["run_id"] for r in rows] == [second, first]
    assert rows[1] == {
        "run_id": first,
        "suite": "history",
        "started_at": rows[1]["started_at"],
        "status": "finished",
        "tasks": 2,
        "passed": 1,
        "pass_rate": 0.5,
        "cost_usd": 0.0,
    }
    lines = bench_cli("runs", "--runs-dir", "runs").stdout.splitlines()
    assert lines[0].split() == ["run", "suite", "when", "status", "tasks", "pass", "rate", "cost"]
    assert lines[2].split()[:2] == [first, "history"]
    assert lines[2].split()[3:6] == ["finished", "2", "50.0%"]


def test_runs_says_when_there_is_none(bench_cli, tmp_path):
    assert bench_cli("runs", "--runs-dir", "none").stdout == "no runs in none\n"
    assert bench_cli("runs", "--runs-dir", "none", "--json").stdout == "[]\n"


def test_show_prints_a_runs_summary_and_what_did_not_pass(bench_cli, tmp_path):
    run_id = _run(bench_cli, write_suite(tmp_path, SUITE))
    out = bench_cli("show", "latest", "--runs-dir", "runs").stdout
    assert f"run:       {run_id}\n" in out
    assert "tasks:     2: 1 passed, 1 failed, 0 errors\n" in out
    assert "pass rate: 50.0%\n" in out
    assert "bad   failed  0.000  contains: not found: 'absent'\n" in out
    assert "good" not in out
    data = json.loads(bench_cli("show", run_id, "--runs-dir", "runs", "--json").stdout)
    assert data["manifest"]["suite"] == "history"
    assert data["tasks"][1] == {
        "id": "bad",
        "repeat": 0,
        "status": "failed",
        "score": 0.0,
        "error": None,
        "reasons": ["not found: 'absent'"],
    }


def test_show_prints_one_task_whole_as_plain_text(bench_cli, tmp_path):
    _run(bench_cli, write_suite(tmp_path, SUITE))
    out = bench_cli("show", "latest", "good", "--runs-dir", "runs").stdout
    assert "--- prompt ---\nhello world\n--- response ---\nhello world\n" in out
    assert 'vars: {"who": "world"}\n' in out
    assert "evaluator contains (contains): passed, score 1.000\n  found 'hello'\n" in out
    bad = bench_cli("show", "latest", "bad", "--runs-dir", "runs").stdout
    # Control characters removed, markup shown as text (D03, J5).
    assert "--- response ---\n[31mPASSED [bold]x[/bold]\n" in bad
    assert "\x1b" not in bad
    assert "\x07" not in bad
    data = json.loads(bench_cli("show", "latest", "good", "--runs-dir", "runs", "--json").stdout)
    assert [r["prompt"] for r in data["results"]] == ["hello world"]


def test_show_refuses_an_unknown_task_or_run(bench_cli, tmp_path):
    run_id = _run(bench_cli, write_suite(tmp_path, SUITE))
    result = bench_cli("show", run_id, "goood", "--runs-dir", "runs")
    assert result.exit_code == 2
    assert result.stderr == f"error: run {run_id} has no task 'goood' (did you mean 'good'?)\n"
    result = bench_cli("show", "nope", "--runs-dir", "runs")
    assert result.stderr == f"error: no run 'nope' in runs (runs found: {run_id})\n"
    result = bench_cli("show", "latest", "--runs-dir", "empty")
    assert result.exit_code == 2
    assert result.stderr == "error: bench show latest: no run in empty\n"


def test_resume_latest_finishes_this_suites_newest_run(bench_cli, tmp_path):
    run_id = _run(bench_cli, write_suite(tmp_path, SUITE))
    _run(bench_cli, write_suite(tmp_path, OTHER, "other.yaml"))  # newer, another suite
    result = bench_cli("run", tmp_path / "suite.yaml", "--resume", "latest", "--runs-dir", "runs")
    assert f"resuming run {run_id}: 2 kept, 0 to run" in result.stderr
    result = bench_cli(
        "run",
        write_suite(tmp_path, OTHER.replace("other", "third"), "t.yaml"),
        "--resume",
        "latest",
        "--runs-dir",
        "runs",
    )
    assert result.exit_code == 2
    assert result.stderr == "error: --resume latest: no run of suite 'third' in runs\n"


def test_compare_accepts_latest(bench_cli, tmp_path):
    suite = write_suite(tmp_path, SUITE)
    first = _run(bench_cli, suite)
    _run(bench_cli, suite)
    result = bench_cli("compare", first, "latest", "--runs-dir", "runs", "--json")
    assert json.loads(result.stdout)["matched"] == 2
    result = bench_cli("compare", "latest", "latest", "--runs-dir", "empty")
    assert result.stderr == "error: bench compare latest: no run in empty\n"


def test_the_run_history_example_in_runs_md_runs_as_shown(bench_cli, tmp_path):
    section = (ROOT / "docs" / "runs.md").read_text().split("## Run history", 1)[1].split("\n## ", 1)[0]
    (tmp_path / "suite.yaml").write_text(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    transcript = section.split("```console\n", 1)[1].split("```", 1)[0]
    commands = [block.split("\n", 1) for block in transcript.split("$ ")[1:]]
    assert [c for c, _ in commands] == [
        "bench run suite.yaml -q -o results.csv",
        "bench runs",
        "bench show latest",
        "bench show latest apology",
    ]
    for command, shown in commands:
        result = bench_cli(*shlex.split(command)[1:])
        assert result.exit_code in (0, 1), result.output
        if command.startswith("bench run "):
            continue
        assert _normal(result.stdout.replace(str(tmp_path), "/home/me/project")) == _normal(shown), command
    assert (tmp_path / "results.csv").read_text().splitlines()[0] == (
        "id,repeat,status,score,passed,response,error,reasons"
    )


def _normal(text: str) -> str:
    """Run ids, timestamps and durations vary from run to run."""
    text = re.sub(r"\d{8}-\d{6}-[0-9a-f]{6}", "RUN", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "WHEN", text)
    return re.sub(r"duration: [\d.]+ ms", "duration: T ms", text)


def test_a_hand_edited_manifest_does_not_break_the_listing(bench_cli, tmp_path):
    """A manifest whose counts or cost are not numbers shows dashes instead of an internal error."""
    bad = tmp_path / ".bench" / "runs" / "20200101-000000-bad0"
    bad.mkdir(parents=True)
    (bad / "manifest.json").write_text(
        '{"suite": "s", "started_at": "2020", "summary": {"passed": "x", "failed": true, "total": 3},'
        ' "llm": {"cost_usd": "a"}}'
    )
    listing = bench_cli("runs", "--json")
    assert listing.exit_code == 0, listing.stderr
    assert json.loads(listing.stdout) == [
        {
            "run_id": "20200101-000000-bad0",
            "suite": "s",
            "started_at": "2020",
            "status": None,
            "tasks": 3,
            "passed": None,
            "pass_rate": None,
            "cost_usd": None,
        }
    ]
    shown = bench_cli("show", "20200101-000000-bad0")
    assert shown.exit_code == 0, shown.stderr
    assert "pass rate: -\ncost:      -\n" in shown.stdout


def test_results_lines_written_with_spaces_are_read_like_compact_ones():
    from bench.vocabulary.store import latest_lines

    lines = ['{"id": "a", "repeat": 1, "status": "passed"}', '{"id":"b","status":"failed"}', '{"id": 3}', "x"]
    assert list(latest_lines(lines)) == ["a@1", "b"]
