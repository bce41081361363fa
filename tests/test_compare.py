"""bench compare on real runs: store ids and --output files, repeats as clusters, honest verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def suite(folder: Path, name: str, answers: list[str], repeat: int = 1) -> Path:
    lines = [f"name: cmp\nrepeat: {repeat}\ntasks:"]
    lines += [
        f"  - {{id: t{i}, response: '{a}', evaluate: {{expected: 'yes'}}}}" for i, a in enumerate(answers)
    ]
    path = folder / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(bench_cli, path: Path, out: str) -> None:
    result = bench_cli("run", path, "-o", out, "--quiet")
    assert result.exit_code in (0, 1), result.stdout + result.stderr


def test_a_significant_regression_exits_1_and_lists_the_tasks(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 30), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["no"] * 12 + ["yes"] * 18), "b.json")
    result = bench_cli("compare", "a.json", "b.json", "-o", "cmp.json")
    assert result.exit_code == 1, result.stdout
    assert "verdict: regression" in result.stdout
    report = json.loads((tmp_path / "cmp.json").read_text())
    assert report["regressions"] == sorted(f"t{i}" for i in range(12))
    rate = report["pass_rate"]
    assert (rate["regressed"], rate["improved"]) == (12, 0)
    assert rate["p_value"] == 2 * 0.5**12  # exact McNemar: both tails of Binomial(12, 0.5) at 0
    assert rate["difference"] == -0.4


@pytest.mark.parametrize("repeat", [1, 2])
def test_four_of_seven_tasks_falling_is_p_0125_not_a_regression(bench_cli, tmp_path, repeat):
    # 4 of 7 tasks fell, 3 held: the exact tests give 2 * 0.5**4 = 0.125 (McNemar on the verdicts,
    # the sign-flip test on the scores or the per-task pass rates). The paired bootstrap said
    # p = 0.0055 (3 unchanged tasks are all a resample draws, (3/7)**7 of the time) and "regression".
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 7, repeat), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["yes"] * 3 + ["no"] * 4, repeat), "b.json")
    result = bench_cli("compare", "a.json", "b.json", "-o", "cmp.json")
    assert result.exit_code == 3, result.stdout
    report = json.loads((tmp_path / "cmp.json").read_text())
    assert report["verdict"] == "insufficient evidence"
    assert report["regressions"] == ["t3", "t4", "t5", "t6"]
    assert report["pass_rate"]["p_value"] == report["score"]["p_value"] == 2 * 0.5**4
    rate_test = (
        "McNemar (exact)" if repeat == 1 else "sign-flip over tasks (exact; repeats averaged per task)"
    )
    lines = result.stdout.splitlines()
    assert lines[1].endswith(f"], {rate_test}, p = 0.125")
    assert lines[2].endswith("], sign-flip (exact), p = 0.125")
    assert lines[-1].startswith("verdict: insufficient evidence (7 tasks cannot show a change of 5%")


def test_several_outputs_of_compare_are_each_written(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 10), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["yes"] * 10), "b.json")
    result = bench_cli("compare", "a.json", "b.json", "-o", "one.json", "-o", "two.json")
    assert result.exit_code == 3, result.output
    one, two = (json.loads((tmp_path / name).read_text()) for name in ("one.json", "two.json"))
    assert one == two
    assert one["matched"] == 10


def test_run_ids_from_the_store_work_like_report_files(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 10), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["yes"] * 10), "b.json")
    run_a = json.loads((tmp_path / "a.json").read_text())["run_id"]
    run_b = json.loads((tmp_path / "b.json").read_text())["run_id"]
    by_id = bench_cli("compare", run_a, run_b)
    by_file = bench_cli("compare", "a.json", "b.json")
    assert by_id.stdout == by_file.stdout
    missing = bench_cli("compare", run_a, "20990101-000000-nope")
    assert missing.exit_code == 2
    assert "no run '20990101-000000-nope'" in missing.stderr
    assert run_a in missing.stderr


def test_too_few_tasks_is_insufficient_evidence_not_a_pass(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 10), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["no"] + ["yes"] * 9), "b.json")
    result = bench_cli("compare", "a.json", "b.json")
    assert result.exit_code == 3
    assert "verdict: insufficient evidence (10 tasks cannot show a change of 5% in pass rate" in result.stdout
    # Connor's formula with the observed discordance psi = 0.1 and d = 0.05:
    # (1.959964 * sqrt(0.1) + 0.841621 * sqrt(0.1 - 0.0025))^2 / 0.0025 = 311.6
    assert "about 312 tasks would be needed" in result.stdout


def test_enough_identical_tasks_is_no_significant_change(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 160), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["yes"] * 160), "b.json")
    result = bench_cli("compare", "a.json", "b.json", "--min-effect", "0.05")
    assert result.exit_code == 0
    assert "verdict: no significant change at alpha 0.05" in result.stdout


def test_a_significant_improvement_exits_0(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["no"] * 10 + ["yes"] * 10), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["yes"] * 20), "b.json")
    result = bench_cli("compare", "a.json", "b.json")
    assert result.exit_code == 0
    assert "verdict: improvement" in result.stdout


def test_with_repeats_tasks_are_the_clusters(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 12, repeat=3), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["no"] * 12, repeat=3), "b.json")
    result = bench_cli("compare", "a.json", "b.json", "-o", "cmp.json")
    assert result.exit_code == 1
    report = json.loads((tmp_path / "cmp.json").read_text())
    assert report["matched"] == 12  # 36 runs, 12 tasks
    rate = report["pass_rate"]
    assert rate["test"] == "sign-flip over tasks (exact; repeats averaged per task)"
    assert rate["p_value"] == 2 * 0.5**12  # 12 tasks, each one pair, all fell: both tails of 2**12 signs


def test_json_prints_the_comparison_on_stdout_with_the_same_exit_code(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes", "yes", "no"]), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["no", "yes", "yes", "yes"]), "b.json")
    result = bench_cli("compare", "a.json", "b.json", "--json", "-o", "cmp.json")
    assert result.exit_code == 3
    assert result.stderr == ""
    assert result.stdout == (
        '{"verdict":"insufficient evidence","matched":3,"only_in_a":[],"only_in_b":["t3"],'
        '"regressions":["t0"],"improvements":["t2"],'
        '"pass_rate":{"a":0.6666666666666666,"b":0.6666666666666666,"difference":0.0,'
        '"interval":[-1.0,1.0],"test":"McNemar (exact)","p_value":1.0,"p_adjusted":1.0,'
        '"regressed":1,"improved":1,"statistic":0.0},'
        '"score":{"a":0.6666666666666666,"b":0.6666666666666666,"difference":0.0,'
        '"interval":[-1.0,1.0],"test":"sign-flip (exact)","p_value":1.0,"p_adjusted":1.0,"tasks":3},'
        '"needed_tasks":2091,'
        '"note":"3 tasks cannot show a change of 5% in pass rate (alpha 0.05, power 80%)"}\n'
    )
    assert (tmp_path / "cmp.json").read_text() == result.stdout


def test_json_keeps_the_regression_exit_code(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 12), "a.json")
    run(bench_cli, suite(tmp_path, "b", ["no"] * 12), "b.json")
    result = bench_cli("compare", "a.json", "b.json", "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["verdict"] == "regression"
    assert report["regressions"] == sorted(f"t{i}" for i in range(12))
    assert report["pass_rate"]["p_value"] == 2 * 0.5**12


def test_the_json_fields_are_the_ones_documented():
    import dataclasses
    import re

    from bench.report.compare import Comparison

    docs = (Path(__file__).resolve().parents[1] / "docs" / "scorecards.md").read_text()
    table = docs.split("| field | what it holds |", 1)[1].split("\n\n", 1)[0]
    documented = {
        name for row in table.splitlines()[2:] for name in re.findall(r"`(\w+)`", row.split("|")[1])
    }
    assert documented == {f.name for f in dataclasses.fields(Comparison)}


def test_an_output_that_cannot_be_written_is_refused_before_comparing(bench_cli, tmp_path):
    (tmp_path / "folder").mkdir()
    for judge in ([], ["--judge", "{type: pairwise, model: openai/x}"]):
        missing = bench_cli("compare", "a.json", "b.json", "-o", "nowhere/cmp.json", *judge)
        assert missing.exit_code == 2
        assert missing.stderr == "error: cannot write nowhere/cmp.json: folder nowhere does not exist\n"
        folder = bench_cli("compare", "a.json", "b.json", "-o", "folder", *judge)
        assert folder.exit_code == 2
        assert folder.stderr == (
            "error: --output folder: refusing to replace a directory; write the report to a regular file\n"
        )


def test_a_score_that_is_not_a_number_is_one_line_naming_the_task(bench_cli, tmp_path):
    run(bench_cli, suite(tmp_path, "a", ["yes"] * 5), "a.json")
    report = json.loads((tmp_path / "a.json").read_text())
    report["tasks"][2]["score"] = float("nan")  # json writes NaN, as a hand-edited or foreign file may
    (tmp_path / "b.json").write_text(json.dumps(report))
    result = bench_cli("compare", "a.json", "b.json")
    assert result.exit_code == 2
    assert result.stderr == "error: b.json: task 't2' has the score nan, which is not a number\n"
