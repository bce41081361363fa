"""``bench run -o FILE`` picks the report by the file's extension, never silently JSON; ``-o -`` is
JSON on stdout; a report never replaces what is not a regular file; the Markdown summary goes to
``$GITHUB_STEP_SUMMARY`` too (issue 14, item 6)."""

from __future__ import annotations

import csv
import json
import os
import stat
import xml.etree.ElementTree as ET

import pytest

from bench.plugins.registry import get_registry
from bench.report import formats
from bench.testing import write_suite

SUITE = """
name: formats
target: {type: echo}
tasks:
  - {id: good, prompt: "hello", evaluate: {type: contains, value: hello}}
  - {id: formula, prompt: "=1+2", evaluate: {type: contains, value: absent}}
"""
KNOWN = ".csv, .html, .json, .jsonl, .md, .xml"


@pytest.fixture
def suite(tmp_path):
    return write_suite(tmp_path, SUITE)


def test_json_jsonl_csv_xml_and_md_are_each_their_own_format(bench_cli, suite, tmp_path):
    for name in ("r.json", "r.jsonl", "r.csv", "r.xml", "r.md"):
        assert bench_cli("run", suite, "-q", "-o", name).exit_code == 1
    assert [t["id"] for t in json.loads((tmp_path / "r.json").read_text())["tasks"]] == ["good", "formula"]
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    assert [json.loads(line)["prompt"] for line in lines] == ["hello", "=1+2"]
    rows = list(csv.reader((tmp_path / "r.csv").open(newline="")))
    assert rows == [
        ["id", "repeat", "status", "score", "passed", "response", "error", "reasons"],
        ["good", "0", "passed", "1.0", "True", "hello", "", "contains: found 'hello'"],
        # A spreadsheet would run the response as a formula: it is quoted.
        ["formula", "0", "failed", "0.0", "False", "'=1+2", "", "contains: not found: 'absent'"],
    ]
    suite_xml = ET.parse(tmp_path / "r.xml").getroot()
    assert suite_xml.find(".//testcase[@name='formula']/failure") is not None
    assert (tmp_path / "r.md").read_text().startswith("## bench: formats: 1 of 2 tasks did not pass\n")


def test_an_unknown_or_missing_extension_is_refused_before_running(bench_cli, suite, tmp_path):
    result = bench_cli("run", suite, "-o", "r.txt")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: -o r.txt: unknown report extension '.txt' (known: {KNOWN}; - writes JSON to stdout)\n"
    )
    result = bench_cli("run", suite, "-o", "results")
    assert result.stderr == (
        f"error: -o results: no extension to choose a report by (known: {KNOWN}; - writes JSON to stdout)\n"
    )
    assert not (tmp_path / ".bench" / "runs").exists()


def test_an_extension_whose_reporter_is_not_installed_says_so(bench_cli, suite, monkeypatch):
    monkeypatch.setitem(formats.EXTENSIONS, ".xyz", "absent")
    result = bench_cli("run", suite, "-o", "r.xyz")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: -o r.xyz: no reporter for .xyz (it is written by the reporter 'absent', "
        "which no installed plugin registers)\n"
    )


def test_html_is_written_by_the_html_reporter_or_refused_clearly(bench_cli, suite, tmp_path):
    result = bench_cli("run", suite, "-q", "-o", "r.html")
    if get_registry().reporters.get("html") is None:
        assert result.exit_code == 2
        assert result.stderr == (
            "error: -o r.html: no reporter for .html (it is written by the reporter 'html', "
            "which no installed plugin registers)\n"
        )
    else:
        assert result.exit_code == 1, result.output
        assert "<html" in (tmp_path / "r.html").read_text().lower()


def test_dash_writes_json_on_stdout_and_the_summary_on_stderr(bench_cli, suite):
    result = bench_cli("run", suite, "-o", "-")
    assert result.exit_code == 1
    report = json.loads(result.stdout)  # stdout is the JSON and nothing else
    assert report["summary"] == {"total": 2, "passed": 1, "failed": 1, "errors": 0, "interrupted": 0}
    assert "2 tasks: 1 passed, 1 failed, 0 errors in " in result.stderr
    # The console is back on stdout for the next command.
    assert "2 tasks: 1 passed" in bench_cli("run", suite, "-q").stdout


def test_a_report_never_replaces_a_fifo_or_a_link_to_a_device(bench_cli, suite, tmp_path):
    os.mkfifo(tmp_path / "pipe.json")
    result = bench_cli("run", suite, "-o", "pipe.json")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: -o pipe.json: refusing to replace a FIFO; write the report to a regular file "
        "(-o - writes JSON to stdout)\n"
    )
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe.json").st_mode)
    os.symlink(os.devnull, tmp_path / "null.xml")
    result = bench_cli("run", suite, "--junit", "null.xml")
    assert result.stderr == (
        "error: --junit null.xml: refusing to replace a symbolic link to a character device; "
        "write the report to a regular file\n"
    )
    assert os.readlink(tmp_path / "null.xml") == os.devnull
    assert not (tmp_path / ".bench" / "runs").exists()  # refused before anything ran


def test_the_markdown_summary_is_appended_to_the_github_step_summary(bench_cli, suite, tmp_path, monkeypatch):
    summary = tmp_path / "step.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert bench_cli("run", suite, "-q", "-o", "r.md").exit_code == 1
    markdown = (tmp_path / "r.md").read_text()
    assert "| formula | failed | contains: not found: 'absent' |" in markdown
    assert summary.read_text() == "earlier step\n" + markdown


def test_an_unwritable_step_summary_is_a_warning(bench_cli, suite, tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))  # a folder
    result = bench_cli("run", suite, "-q")
    assert result.exit_code == 1  # the run's own verdict
    assert f"warning: cannot append the summary to $GITHUB_STEP_SUMMARY ({tmp_path}): Is a directory\n" in (
        result.stderr
    )


@pytest.mark.parametrize("name", ["json", "jsonl", "csv", "html", "markdown"])
def test_a_report_that_fails_while_written_leaves_the_old_file_and_no_temporary_one(tmp_path, name):
    from bench.results import RunReport, Summary

    def tasks():
        yield {"id": "t1", "status": "failed", "passed": False, "score": 0.0, "evaluators": []}
        raise OSError(28, "No space left on device")

    report = RunReport(suite="s", run_id="r1", summary=Summary(total=1, failed=1), tasks=tasks)
    path = tmp_path / "report.out"
    path.write_text("the previous report")
    with pytest.raises(OSError, match="No space left on device"):
        get_registry().reporters.get(name).cls().write(report, path)
    assert path.read_text() == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.out"]


def test_json_and_html_reports_carry_the_same_run_header(tmp_path):
    from bench.results import RunReport, Summary

    report = RunReport(
        suite="s", run_id="r1", summary=Summary(total=1, passed=1), tasks=lambda: iter([]), extra={"k": 1}
    )
    registry = get_registry()
    registry.reporters.get("json").cls().write(report, tmp_path / "r.json")
    head = json.loads((tmp_path / "r.json").read_text())
    assert head.pop("tasks") == []
    assert head == report.head()
    assert head["passed"] is True
    assert head["k"] == 1
    registry.reporters.get("html").cls().write(report, tmp_path / "r.html")
    assert json.dumps(report.head(), separators=(",", ":")) in (tmp_path / "r.html").read_text()
