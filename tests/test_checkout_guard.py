"""A test session that leaves files in the checkout fails and names them (the root conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def checkout(pytester: pytest.Pytester) -> pytest.Pytester:
    """A folder with the repository's root conftest.py, as a checkout of its own."""
    pytester.makeconftest((ROOT / "conftest.py").read_text(encoding="utf-8"))
    return pytester


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_a_session_whose_tests_leave_files_in_the_checkout_fails(checkout, workers):
    checkout.makepyfile(
        test_writes="""
        from pathlib import Path

        def test_writes_a_run_here():
            Path(".bench", "runs", "r1").mkdir(parents=True)
            Path(".bench", "runs", "r1", "results.jsonl").write_text("{}")

        def test_writes_a_report_here():
            Path("report.html").write_text("<html>")
        """
    )
    result = checkout.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider", *workers)
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*= tests left files in the checkout: write them under tmp_path =*", ".bench", "report.html"]
    )


def test_a_session_whose_tests_write_only_in_tmp_path_passes(checkout):
    checkout.makepyfile(
        test_tidy="""
        def test_writes_in_tmp_path(tmp_path):
            (tmp_path / "report.html").write_text("<html>")
        """
    )
    result = checkout.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    assert "left files in the checkout" not in result.stdout.str()
