"""Several targets side by side: per-target statistics in the JSON report, the
console, Markdown and HTML, and ``bench compare RUN:A RUN:B`` between two targets of one run.

The suite runs four tasks on ``echo`` and on ``upper`` (a command target that upper-cases the
prompt), and one task on ``upper`` only: echo passes hello, shout and lower (3 of 4), upper passes
shout and up (2 of 4) and its own task ``only`` (3 of 5).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.report.reporters.markdown import MarkdownReporter
from bench.scoring.stats import bootstrap_ci
from bench.scoring.target_stats import target_statistics
from bench.vocabulary.results import RunReport, Summary

SUITE = """\
name: two
targets:
  - {type: echo}
  - {type: command, label: upper, command: [tr, a-z, A-Z]}
tasks:
  - {id: hello, prompt: hello, expected: {contains: hello}}
  - {id: shout, prompt: HI, expected: {contains: HI}}
  - {id: lower, prompt: abc, expected: {contains: abc}}
  - {id: up, prompt: xyz, expected: {contains: XYZ}}
  - {id: only, prompt: def, target: upper, expected: {contains: DEF}}
"""

# Wilson at 95% (z = 1.959964) worked by hand: centre (p + z²/2n) / (1 + z²/n), half-width
# z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n). 3 of 4: 0.627527 ± 0.326885; 3 of 5: 0.556552 ± 0.325827.
WILSON_3_OF_4 = (0.300642, 0.954413)
WILSON_3_OF_5 = (0.230724, 0.882379)


@pytest.fixture
def two_targets(bench_cli, tmp_path: Path) -> dict:
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    result = bench_cli("run", "suite.yaml", "-o", "out.json")
    assert result.exit_code == 1, result.stdout + result.stderr  # some tasks failed
    report = json.loads((tmp_path / "out.json").read_text())
    report["console"] = result.stdout
    return report


def record(label: str | None, status: str, **fields) -> dict:
    row = {"id": fields.pop("id", f"t[{label}]"), "status": status, "passed": status == "passed"}
    row["target"] = None if label is None else {"type": "command", "label": label}
    return {**row, **fields}


def test_each_targets_counts_rates_cost_and_time_from_records():
    rows = target_statistics(
        [
            record("a", "passed", id="1[a]", score=1.0, duration_ms=100.0, usage={"cost_usd": 0.001}),
            record("a", "passed", id="2[a]", score=1.0, duration_ms=200.0, usage={"cost_usd": 0.002}),
            record("a", "passed", id="3[a]", score=0.5, duration_ms=300.0, usage={"cost_usd": None}),
            record("a", "failed", id="4[a]", score=0.0, duration_ms=400.0),
            record("a", "error", id="5[a]", duration_ms=500.0, error="boom"),
            record("b", "interrupted", id="1[b]"),
            record("b", "passed", id="2[b]", score=1.0),
            record(None, "passed", id="recorded", score=1.0),
        ]
    )
    assert rows is not None
    a, b = rows
    assert (a["label"], a["type"], a["runs"], a["tasks"]) == ("a", "command", 5, 4)  # the error is no verdict
    assert (a["passed"], a["failed"], a["errors"], a["interrupted"]) == (3, 1, 1, 0)
    assert a["pass_rate"]["value"] == 0.75
    assert (a["pass_rate"]["low"], a["pass_rate"]["high"]) == pytest.approx(WILSON_3_OF_4, abs=1e-6)
    assert a["pass_rate"]["method"] == "wilson"
    assert a["mean_score"] == bootstrap_ci([1.0, 1.0, 0.5, 0.0]).as_dict()
    assert a["mean_score"]["value"] == 0.625
    assert a["cost_usd"] == 0.003  # the unknown cost is left out, not counted as 0
    # p95 of 100..500 by linear interpolation: position 4 x 0.95 = 3.8, so 400 + 0.8 x 100.
    assert a["duration_ms"] == {"mean": 300.0, "p95": 480.0}
    assert (b["runs"], b["tasks"], b["passed"], b["interrupted"]) == (2, 1, 1, 1)
    assert (b["cost_usd"], b["duration_ms"]) == (None, None)


def test_one_target_or_none_has_no_per_target_section():
    assert target_statistics([record("a", "passed"), record(None, "failed", id="x")]) is None
    assert target_statistics([record(None, "passed")]) is None


def test_repeats_per_target_count_tasks_as_clusters():
    rows = target_statistics(
        [
            record("a", "passed", id="1[a]", repeat=0),
            record("a", "failed", id="1[a]", repeat=1),
            record("a", "passed", id="2[a]", repeat=0),
            record("a", "passed", id="2[a]", repeat=1),
            record("b", "passed", id="1[b]"),
        ]
    )
    assert rows is not None
    assert (rows[0]["tasks"], rows[0]["runs"], rows[0]["passed"]) == (2, 4, 3)
    assert rows[0]["pass_rate"]["value"] == 0.75  # the mean of the tasks' rates 1/2 and 2/2
    assert rows[0]["pass_rate"]["method"] == "cluster bootstrap over tasks"


def test_the_json_report_has_each_target_side_by_side(two_targets):
    echo, upper = two_targets["targets"]
    assert (echo["label"], echo["type"], upper["label"], upper["type"]) == (
        "echo",
        "echo",
        "upper",
        "command",
    )
    assert (echo["tasks"], echo["passed"], echo["failed"], echo["errors"]) == (4, 3, 1, 0)
    assert (upper["tasks"], upper["passed"], upper["failed"], upper["errors"]) == (5, 3, 2, 0)
    assert (echo["pass_rate"]["low"], echo["pass_rate"]["high"]) == pytest.approx(WILSON_3_OF_4, abs=1e-6)
    assert (upper["pass_rate"]["low"], upper["pass_rate"]["high"]) == pytest.approx(WILSON_3_OF_5, abs=1e-6)
    assert upper["mean_score"] == bootstrap_ci([0.0, 1.0, 0.0, 1.0, 1.0]).as_dict()
    assert echo["cost_usd"] is None  # neither target reports a cost
    assert echo["duration_ms"]["mean"] > 0
    assert upper["duration_ms"]["p95"] > 0
    # The run's own statistics stay those of all its tasks.
    assert two_targets["statistics"]["tasks"] == 9
    assert two_targets["statistics"]["pass_rate"]["value"] == 6 / 9


def test_the_console_prints_a_targets_table(two_targets):
    console = two_targets["console"]
    table = console[console.index("Targets") :]
    lines = [" ".join(line.strip("│┃ ").split()) for line in table.splitlines()]
    assert "echo ┃ upper" in lines
    assert "tasks │ 4 │ 5" in lines
    assert "passed │ 3 │ 3" in lines
    assert "failed │ 1 │ 2" in lines
    assert "errors │ 0 │ 0" in lines
    assert "pass rate │ 75.0% [30.1, 95.4] │ 60.0% [23.1, 88.2]" in lines
    assert "cost │ - │ -" in lines


def test_a_single_target_run_has_no_targets_section(bench_cli, tmp_path):
    (tmp_path / "one.yaml").write_text(
        "name: one\ntarget: {type: echo}\ntasks:\n  - {id: a, prompt: hi, expected: {contains: hi}}\n"
    )
    result = bench_cli("run", "one.yaml", "-o", "out.json")
    assert result.exit_code == 0, result.stdout
    assert "targets" not in json.loads((tmp_path / "out.json").read_text())
    assert "Targets" not in result.stdout


def test_markdown_shows_the_targets_table(two_targets):
    report = RunReport(
        suite="two",
        run_id="r1",
        summary=Summary(total=9, passed=6, failed=3),
        tasks=lambda: iter(two_targets["tasks"]),
        extra={"targets": two_targets["targets"]},
    )
    lines = MarkdownReporter().render(report).splitlines()
    head = "| target | tasks | passed | failed | errors | pass rate | mean score | cost | time/task | p95 |"
    start = lines.index(head)
    assert lines[start - 2] == "### Targets"
    echo, upper = lines[start + 2 : start + 4]
    assert echo.startswith("| echo | 4 | 3 | 1 | 0 | 75.0% [30.1, 95.4] | 0.750 [")
    assert upper.startswith("| upper | 5 | 3 | 2 | 0 | 60.0% [23.1, 88.2] | 0.600 [")
    assert echo.split(" | ")[7] == "-"  # no cost known


def test_markdown_of_a_single_target_run_has_no_targets_table():
    report = RunReport(suite="one", run_id="r1", summary=Summary(total=0), tasks=lambda: iter([]))
    assert "### Targets" not in MarkdownReporter().render(report)


def test_compare_two_targets_of_one_run_task_by_task(bench_cli, two_targets):
    result = bench_cli("compare", "latest:echo", "latest:upper", "--json")
    assert result.exit_code == 3, result.stdout  # 4 tasks cannot show a 5% change
    report = json.loads(result.stdout)
    assert report["matched"] == 4
    assert (report["only_in_a"], report["only_in_b"]) == ([], ["only"])
    assert report["regressions"] == ["hello", "lower"]  # passed on echo, failed on upper
    assert report["improvements"] == ["up"]
    rate = report["pass_rate"]
    assert (rate["a"], rate["b"], rate["difference"]) == (0.75, 0.5, -0.25)
    assert (rate["test"], rate["regressed"], rate["improved"]) == ("McNemar (exact)", 2, 1)
    assert rate["p_value"] == 1.0  # both tails of Binomial(3, 0.5) at 1: 2 x (1 + 3) / 8
    assert (report["score"]["a"], report["score"]["b"]) == (0.75, 0.5)


def test_compare_reads_targets_from_an_output_report_too(bench_cli, two_targets):
    stored = json.loads(bench_cli("compare", "latest:echo", "latest:upper", "--json").stdout)
    result = bench_cli("compare", "out.json:echo", "out.json:upper", "--json")
    assert json.loads(result.stdout) == stored


def test_compare_prints_like_two_runs(bench_cli, two_targets):
    result = bench_cli("compare", "latest:echo", "latest:upper")
    assert "4 tasks in common" in result.stdout
    assert "only in A: 0 (); only in B: 1 (only)" in result.stdout
    assert "pass rate 75.0% -> 50.0%: -25.0%" in result.stdout
    assert "regressed (2): hello, lower" in result.stdout
    assert "improved (1): up" in result.stdout


def test_compare_an_unknown_target_says_which_there_are(bench_cli, two_targets):
    result = bench_cli("compare", "out.json:echo", "out.json:gpt")
    assert result.exit_code == 2
    assert "error: out.json:gpt: no task ran on target 'gpt' (targets: echo, upper)" in result.stderr


def test_a_target_of_a_run_without_labels_is_refused(bench_cli, tmp_path):
    (tmp_path / "one.yaml").write_text(
        "name: one\ntarget: {type: echo}\ntasks:\n  - {id: a, prompt: hi, expected: {contains: hi}}\n"
    )
    bench_cli("run", "one.yaml", "-o", "one.json")
    result = bench_cli("compare", "one.json:echo", "one.json:other")
    assert result.exit_code == 2
    assert "no task ran on target 'echo' (targets: none: its tasks name no target label)" in result.stderr


def test_bench_show_prints_the_targets_of_a_stored_run(bench_cli, two_targets):
    result = bench_cli("show", "latest")
    assert result.exit_code == 0, result.stdout
    lines = [" ".join(line.strip("│┃ ").split()) for line in result.stdout.splitlines()]
    assert "pass rate │ 75.0% [30.1, 95.4] │ 60.0% [23.1, 88.2]" in lines
    shown = json.loads(bench_cli("show", "latest", "--json").stdout)
    assert shown["targets"] == two_targets["targets"]
