"""``bench run -o FILE`` picks the report by the file's extension, never silently JSON; ``-o -`` is
JSON on stdout; a report never replaces what is not a regular file; the Markdown summary goes to
``$GITHUB_STEP_SUMMARY`` too."""

from __future__ import annotations

import contextlib
import csv
import errno
import json
import os
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from bench.plugins.registry import get_registry
from bench.report.reporters import formats
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


def test_several_outputs_are_each_written_and_their_paths_printed(bench_cli, suite, tmp_path):
    result = bench_cli("run", suite, "-q", "-o", "r.html", "-o", "r.json", "--junit", "j.xml")
    assert result.exit_code == 1, result.stderr
    assert "<html" in (tmp_path / "r.html").read_text().lower()
    assert [t["id"] for t in json.loads((tmp_path / "r.json").read_text())["tasks"]] == ["good", "formula"]
    assert ET.parse(tmp_path / "j.xml").getroot().find(".//testcase[@name='formula']/failure") is not None
    assert result.stdout.endswith("wrote r.html\nwrote r.json\nwrote j.xml\n")
    # With -o - stdout is the JSON alone: the other paths are printed with the summary, on stderr.
    piped = bench_cli("run", suite, "-q", "-o", "-", "-o", "r.csv")
    assert json.loads(piped.stdout)["summary"]["total"] == 2
    assert piped.stderr.endswith("wrote r.csv\n")
    assert (tmp_path / "r.csv").read_text().startswith("id,repeat,status")


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
    from bench.vocabulary.results import RunReport, Summary

    def tasks():
        yield {"id": "t1", "status": "failed", "passed": False, "score": 0.0, "evaluators": []}
        raise OSError(28, "No space left on device")

    report = RunReport(suite="s", run_id="r1", summary=Summary(total=1, failed=1), tasks=tasks)
    path = tmp_path / "report.out"
    path.write_text("the previous report")
    with pytest.raises(formats.ReportWriteError) as raised:
        get_registry().reporters.get(name).cls().write(report, path)
    assert str(raised.value) == f"cannot write the report {path}: No space left on device"
    assert path.read_text() == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.out"]


def test_json_and_html_reports_carry_the_same_run_header(tmp_path):
    from bench.vocabulary.results import RunReport, Summary

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


WRITER = """
import sys
from pathlib import Path

from bench.plugins.registry import get_registry
from bench.vocabulary.results import RunReport, Summary

name, path, times = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
tasks = [{"id": f"{name}-{i}", "status": "passed", "passed": True, "score": 1.0} for i in range(300)]
report = RunReport(suite=name, run_id=name, summary=Summary(total=300, passed=300), tasks=lambda: iter(tasks))
writer = get_registry().reporters.get("json").cls()
sys.stdin.readline()  # both start together
for _ in range(times):
    writer.write(report, path)
"""


def test_n40_two_processes_writing_one_report_path_each_leave_a_whole_report(tmp_path):
    path = tmp_path / "same.json"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, name, str(path), "100"],
            stdin=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("one", "two")
    ]
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    seen = set()
    while any(writer.poll() is None for writer in writers):
        with contextlib.suppress(FileNotFoundError):  # before the first write lands
            seen.add(_whole_report(path.read_text()))  # any moment: a whole report, never a mix
    errors = [writer.communicate(timeout=60)[1] for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0], errors
    seen.add(_whole_report(path.read_text()))
    assert seen <= {"one", "two"}
    assert [p.name for p in tmp_path.iterdir()] == ["same.json"]  # no temporary file left behind


def _whole_report(text: str) -> str:
    """The suite of a complete JSON report from one writer (asserted), e.g. ``one``."""
    report = json.loads(text)
    name = report["suite"]
    assert [t["id"] for t in report["tasks"]] == [f"{name}-{i}" for i in range(300)]
    return name


def test_n40_a_report_is_written_with_the_modes_the_umask_gives(tmp_path):
    from bench.vocabulary.results import RunReport, Summary

    report = RunReport(suite="s", run_id="r1", summary=Summary(), tasks=lambda: iter([]))
    before = os.umask(0o027)
    try:
        get_registry().reporters.get("json").cls().write(report, tmp_path / "r.json")
    finally:
        os.umask(before)
    assert stat.S_IMODE(os.stat(tmp_path / "r.json").st_mode) == 0o640  # as open() would: not 0600


class _FullDisk:
    """A text file whose writes fail as on a full disk (``open``'s stand-in in the report writer)."""

    def __init__(self, file, *args, **kwargs):
        if isinstance(file, int):
            os.close(file)  # the temporary file's descriptor, made by the writer

    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def test_n45_a_full_disk_while_writing_a_report_is_one_line_and_the_results_stay(
    bench_cli, suite, tmp_path, monkeypatch
):
    # Injected at the report's own file write: a real full disk would stop the test's other files.
    monkeypatch.setattr(formats, "open", _FullDisk, raising=False)
    (tmp_path / "out.json").write_text("the previous report")
    result = bench_cli("run", suite, "-q", "-o", "out.json")
    assert result.exit_code == 4
    assert result.stderr == "error: cannot write the report out.json: No space left on device\n"
    assert "Traceback" not in result.stderr
    assert (tmp_path / "out.json").read_text() == "the previous report"
    assert not list(tmp_path.glob(".out.json*"))
    (run,) = (tmp_path / ".bench" / "runs").iterdir()
    assert [json.loads(line)["id"] for line in (run / "results.jsonl").read_text().splitlines()] == [
        "good",
        "formula",
    ]


def test_n45_a_full_stdout_for_o_dash_is_one_line(suite, tmp_path):
    with open("/dev/full", "w") as full:  # a real full disk: every write to it fails with ENOSPC
        result = subprocess.run(
            [sys.executable, "-m", "bench", "run", str(suite), "-q", "-o", "-"],
            cwd=tmp_path,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert result.returncode == 4
    assert result.stderr == "error: cannot write the report to stdout: No space left on device\n"
