"""``bench run --pass-rate-threshold P``: exit 0 when the pass rate is at least P."""

from __future__ import annotations

from pathlib import Path

import pytest

QUICKSTART = Path(__file__).resolve().parents[1] / "examples" / "quickstart" / "suite.yaml"
HALF = (
    "tasks:\n"
    "  - {id: a, response: yes, evaluate: {expected: yes}}\n"
    "  - {id: b, response: no, evaluate: {expected: yes}}\n"
)


def _last_line(text: str) -> str:
    return text.rstrip("\n").splitlines()[-1]


@pytest.mark.parametrize("threshold", ["0.8", "80%"])
def test_above_the_threshold_exits_0_though_a_task_failed(bench_cli, threshold):
    result = bench_cli("run", QUICKSTART, "-q", "--pass-rate-threshold", threshold)
    assert "1 failed" in result.stdout  # quickstart: 5 of 6 pass
    assert _last_line(result.stdout) == "pass rate 83.3% ≥ threshold 80%: passing"
    assert result.exit_code == 0


def test_below_the_threshold_exits_1(bench_cli):
    result = bench_cli("run", QUICKSTART, "-q", "--pass-rate-threshold", "0.9")
    assert _last_line(result.stdout) == "pass rate 83.3% < threshold 90%: failing"
    assert result.exit_code == 1


def test_the_rate_is_shown_to_the_thresholds_decimals_and_never_disagrees(bench_cli):
    # 5/6 is 83.333...%: at least 83.33%, below 83.34%.
    result = bench_cli("run", QUICKSTART, "-q", "--pass-rate-threshold", "83.34%")
    assert _last_line(result.stdout) == "pass rate 83.33% < threshold 83.34%: failing"
    assert result.exit_code == 1
    result = bench_cli("run", QUICKSTART, "-q", "--pass-rate-threshold", "0.8333")
    assert _last_line(result.stdout) == "pass rate 83.33% ≥ threshold 83.33%: passing"
    assert result.exit_code == 0


def test_equal_to_the_threshold_passes(bench_cli, bench_suite_file):
    path = bench_suite_file(HALF)
    result = bench_cli("run", path, "-q", "--pass-rate-threshold", "0.5")
    assert _last_line(result.stdout) == "pass rate 50.0% ≥ threshold 50%: passing"
    assert result.exit_code == 0
    result = bench_cli("run", path, "-q", "--pass-rate-threshold", "50.1%")
    assert _last_line(result.stdout) == "pass rate 50.0% < threshold 50.1%: failing"
    assert result.exit_code == 1


def test_with_repeat_every_run_of_every_task_counts(bench_cli, bench_suite_file):
    path = bench_suite_file(HALF)
    result = bench_cli("run", path, "-q", "--repeat", "3", "--pass-rate-threshold", "50%")
    assert "6 runs of 2 tasks: 3 passed, 3 failed, 0 errors" in result.stdout
    assert _last_line(result.stdout) == "pass rate 50.0% ≥ threshold 50%: passing"
    assert result.exit_code == 0


def test_errors_exit_3_whatever_the_pass_rate(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "target: {type: recorded}\n"
        "tasks:\n  - {id: a, response: yes, evaluate: {expected: yes}}\n  - {id: b, evaluate: {expected: x}}\n"
    )
    result = bench_cli("run", path, "-q", "--pass-rate-threshold", "0")
    assert "threshold" not in result.stdout
    assert result.exit_code == 3


@pytest.mark.parametrize("value", ["80", "1.5", "-0.1", "150%", "eighty", "nan", "%"])
def test_a_bad_threshold_is_refused_before_anything_runs(bench_cli, tmp_path, value):
    result = bench_cli("run", QUICKSTART, "--pass-rate-threshold", value)
    assert result.stderr == (
        f"error: --pass-rate-threshold {value}: write a fraction from 0 to 1 (0.8) or a percentage (80%)\n"
    )
    assert result.stdout == ""
    assert not (tmp_path / ".bench").exists()
    assert result.exit_code == 2
