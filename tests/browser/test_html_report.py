"""The HTML report opened in headless Chromium: counts, filters, a task's detail, hostile text inert.

Runs with passing, failing, erroring and repeated (flaky) tasks come from `bench run --report
html=...`; the fields the page shows when records hold them (prompt, vars, metadata, target,
scorecard, agent trajectories) come from a report built in the test. With BENCH_SCREENSHOTS=1 the
tests also write the screenshots in docs/images/.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.report.reporters.html import HtmlReporter
from bench.vocabulary.results import RunReport, Summary
from tests.browser.constants import HOSTILE, ROOT, SCREENSHOTS

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory: pytest.TempPathFactory, bench_run) -> str:
    """`bench run --repeat 2 --report html=...` on tests/browser/suite.yaml: 10 runs of 5 tasks."""
    folder = tmp_path_factory.mktemp("run")
    report = folder / "report.html"
    # 3: some tasks errored
    bench_run(
        folder, str(HERE / "suite.yaml"), "--repeat", "2", "--report", f"html={report}", exit_codes=(3,)
    )
    return report.as_uri()


def _rows(page: Any) -> list[str]:
    return [row.inner_text().split("\t")[0] for row in page.query_selector_all("#rows tbody tr")]


def test_the_report_shows_the_runs_counts_and_statistics(page, sample_report):
    page.goto(sample_report)
    cards = page.locator("#summary .card").all_inner_texts()
    assert [c.replace("\n", " ") for c in cards] == [
        "10 tasks",
        "3 passed",
        "5 failed",
        "2 errors",
        "30.0% pass rate",
    ]
    assert page.locator("#count").inner_text() == "10 of 10 tasks shown (rows 1-10)"
    stats = dict(row.inner_text().split("\t", 1) for row in page.query_selector_all("#statistics-table tr"))
    assert stats["flaky tasks"] == "coin"
    assert stats["pass@k"] == "pass@1 0.375, pass@2 0.500"
    assert stats["runs per task"] == "2 (4 tasks)"
    assert page.title() == "bench: report-sample"
    if SCREENSHOTS:
        page.screenshot(path=str(ROOT / "docs" / "images" / "report-summary.png"), full_page=True)


def test_filters_narrow_the_rows_and_sorting_puts_passes_first(page, sample_report):
    page.goto(sample_report)
    page.select_option("#status-filter", "error")
    assert _rows(page) == ["crash", "crash (run 2)"]
    page.select_option("#status-filter", "flaky")
    assert _rows(page) == ["coin", "coin (run 2)"]
    page.select_option("#status-filter", "")
    page.fill("#text-filter", "paris")
    assert _rows(page) == ["capital", "capital (run 2)"]
    assert page.locator("#count").inner_text() == "2 of 10 tasks shown (rows 1-2)"
    page.fill("#text-filter", "")
    page.select_option("#evaluator-filter", "expected")
    assert len(_rows(page)) == 5  # the failures; errored tasks reached no verdict
    page.select_option("#evaluator-filter", "")
    page.select_option("#sort", "score-desc")
    assert _rows(page)[:3] == ["capital", "capital (run 2)", "coin"]


def test_a_task_detail_shows_the_response_and_each_evaluators_reason(page, sample_report):
    page.goto(sample_report)
    page.locator("#rows tbody tr", has_text="arithmetic").first.click()
    assert page.locator("#detail-title").inner_text() == "arithmetic"
    assert page.locator("#detail pre.response").inner_text() == "I don't know."
    assert page.locator("#evaluators tr").nth(1).inner_text().split("\t") == [
        "expected",
        "failed",
        "0.000",
        "not found: 42",
        "",
    ]
    page.locator("#rows tbody tr", has_text="crash").first.click()
    assert page.locator("#detail pre.error-text").inner_text() == (
        "sample_target:answer raised RuntimeError: the model server went away"
    )


def test_h07_script_injection_in_a_response_shows_as_text_and_opens_no_dialog(page, sample_report):
    page.goto(sample_report)
    page.fill("#text-filter", "onerror")
    assert _rows(page) == ["hostile", "hostile (run 2)"]
    page.locator("#rows tbody tr").first.click()
    assert page.locator("#detail pre.response").inner_text() == HOSTILE
    page.wait_for_timeout(200)  # an injected handler would have fired by now
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 3  # the two data blocks and the page's own script
    assert page.problems == []  # no dialog (the fixture also checks this after the test)


def _rich_report(path: Path) -> str:
    """A report whose records hold every field the page can show, on two targets."""
    base = {
        "status": "passed",
        "passed": True,
        "score": 1.0,
        "duration_ms": 120.0,
        "usage": {"cost_usd": 0.002},
    }
    tasks = [
        {
            **base,
            "id": "summarise",
            "response": "A short summary.",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Summarise the <b>report</b>."},
            ],
            "vars": {"topic": "reports"},
            "metadata": {"owner": "docs team"},
            "target": {"label": "small-model"},
            "evaluators": [
                {
                    "name": "judge",
                    "type": "llm-judge",
                    "passed": True,
                    "score": 1.0,
                    "reason": "concise and correct",
                    "details": {"reasoning": "It names the report's purpose."},
                }
            ],
            "scorecard": {
                "strategy": "weighted",
                "score": 0.9,
                "passed": True,
                "reason": "",
                "dimensions": [
                    {"key": "accuracy", "raw": 0.9, "score": 0.9, "weight": 2, "gate": True, "passed": True}
                ],
            },
        },
        {
            **base,
            "id": "fix-add",
            "status": "failed",
            "passed": False,
            "score": 0.0,
            "prompt": "Fix add() in calc.py.",
            "response": "Done.",
            "target": {"label": "large-model"},
            "evaluators": [
                {"name": "tests", "type": "command", "passed": False, "score": 0.0, "reason": "1 failed"}
            ],
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "calc.py"}, "id": "1"},
                {"name": "write_file", "arguments": {"path": "calc.py"}, "id": "2"},
            ],
            "workspace": {
                "files_changed": 1,
                "lines_added": 1,
                "lines_removed": 1,
                "files": [{"path": "calc.py", "status": "modified", "added": 1, "removed": 1}],
            },
        },
    ]
    summary = Summary()
    for task in tasks:
        summary.add(str(task["status"]))
    report = RunReport(suite="rich", run_id="r1", summary=summary, tasks=lambda: iter(tasks))
    HtmlReporter().write(report, path)
    return path.as_uri()


def test_fields_of_complete_records_prompt_vars_targets_scorecard_and_trajectory(page, tmp_path):
    page.goto(_rich_report(tmp_path / "rich.html"))
    targets = [row.inner_text().split("\t") for row in page.query_selector_all("#targets-table tr")][1:]
    assert [row[:4] for row in targets] == [
        ["small-model", "1", "100.0%", "1.000"],
        ["large-model", "1", "0.0%", "0.000"],
    ]
    page.locator("#rows tbody tr", has_text="summarise").click()
    detail = page.locator("#detail")
    assert "Summarise the <b>report</b>." in detail.locator(".pair").inner_text()
    assert detail.locator("b", has_text="report").count() == 0
    assert "reports" in detail.inner_text()
    assert "docs team" in detail.inner_text()
    assert "It names the report's purpose." in detail.locator("#evaluators").inner_text()
    assert page.locator("#scorecard tr").nth(1).inner_text().split("\t")[:6] == [
        "accuracy",
        "0.9",
        "0.900",
        "2",
        "gate",
        "passed",
    ]
    page.locator("#rows tbody tr", has_text="fix-add").click()
    assert detail.locator("pre.prompt").inner_text() == "Fix add() in calc.py."
    assert page.locator("ol.trajectory li").all_inner_texts() == [
        'read_file {"path":"calc.py"}',
        'write_file {"path":"calc.py"}',
    ]
    assert page.locator("#changes tr").nth(1).inner_text().split("\t") == ["calc.py", "modified", "+1 / -1"]


def test_the_agent_example_shows_its_trajectory_and_change(page, tmp_path, bench_run):
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    folder = tmp_path / "agent"
    shutil.copytree(ROOT / "examples" / "agent", folder)
    subprocess.run([sys.executable, "make_repo.py"], cwd=folder, check=True, capture_output=True)
    bench_run(folder, "suite.yaml", "--report", "html=report.html")
    page.goto((folder / "report.html").as_uri())
    page.locator("#rows tbody tr", has_text="fix-add").click()
    assert page.locator("ol.trajectory li b").all_inner_texts() == [
        "read_file",
        "write_file",
        "run_command",
        "write_file",
        "run_command",
    ]
    assert page.locator("#changes tr").all_inner_texts()[1:] == [
        "calc.py\tmodified\t+1 / -1",
        "test_calc.py\tadded\t+5 / -0",
    ]
    if SCREENSHOTS:
        page.screenshot(path=str(ROOT / "docs" / "images" / "report-agent-task.png"), full_page=True)


def test_a_20000_task_report_keeps_one_page_of_rows_in_the_page(page, tmp_path):
    tasks = [
        {
            "id": f"task-{i:05}",
            "status": "passed" if i % 10 else "failed",
            "passed": bool(i % 10),
            "score": (i % 7) / 6,
            "response": f"answer {i}",
            "evaluators": [{"name": "expected", "type": "expected", "passed": bool(i % 10), "reason": "r"}],
        }
        for i in range(20_000)
    ]
    summary = Summary()
    for task in tasks:
        summary.add(str(task["status"]))
    report = RunReport(suite="big", run_id="r2", summary=summary, tasks=lambda: iter(tasks))
    HtmlReporter().write(report, tmp_path / "big.html")
    page.goto((tmp_path / "big.html").as_uri())
    assert page.locator("#rows tbody tr").count() == 100
    assert page.locator("#page").inner_text() == "page 1 of 200"
    page.click("#next")
    assert _rows(page)[0] == "task-00100"
    assert page.locator("#count").inner_text() == "20000 of 20000 tasks shown (rows 101-200)"
    page.select_option("#status-filter", "failed")
    assert page.locator("#count").inner_text() == "2000 of 20000 tasks shown (rows 1-100)"
    page.fill("#text-filter", "answer 19990")
    assert _rows(page) == ["task-19990"]
    page.fill("#text-filter", "")
    page.select_option("#status-filter", "")
    page.select_option("#sort", "score-asc")
    assert _rows(page)[:2] == ["task-00000", "task-00007"]


def test_a_row_opens_from_the_keyboard(page, sample_report):
    page.goto(sample_report)
    page.locator("#rows tbody tr", has_text="coin").first.focus()
    page.keyboard.press("Enter")
    assert page.locator("#detail-title").inner_text() == "coin"
    assert page.locator("#detail pre.response").inner_text() == "heads"


def test_a_link_to_one_task_opens_it(page, sample_report):
    page.goto(sample_report + "#task=coin@1")
    assert page.locator("#detail-title").inner_text() == "coin (run 2)"
    assert page.locator("#detail pre.response").inner_text() == "tails"
    page.locator("#rows tbody tr", has_text="arithmetic").first.click()
    assert page.evaluate("location.hash") == "#task=arithmetic"


def test_two_targets_of_one_run_side_by_side_and_a_filter_by_target(page, tmp_path, bench_run):
    """`bench run` of two targets (echo and a command that upper-cases): the page shows bench's
    per-target statistics with their intervals, and the task list narrows to one target."""
    suite = tmp_path / "two.yaml"
    suite.write_text(
        "name: two\ntargets:\n  - {type: echo}\n  - {type: command, label: upper, command: [tr, a-z, A-Z]}\n"
        "tasks:\n  - {id: hello, prompt: hello, expected: {contains: hello}}\n"
        "  - {id: shout, prompt: HI, expected: {contains: HI}}\n",
        encoding="utf-8",
    )
    bench_run(tmp_path, str(suite), "--report", "html=report.html", exit_codes=(1,))  # hello fails on upper
    page.goto((tmp_path / "report.html").as_uri())
    rows = [row.inner_text().split("\t") for row in page.query_selector_all("#targets-table tr")]
    assert rows[0][:7] == ["target", "tasks", "pass rate", "mean score", "passed", "failed", "errors"]
    # Wilson intervals at 95%: 2 of 2 is [34.2%, 100%], 1 of 2 is [9.5%, 90.5%].
    assert [row[:3] + row[4:7] for row in rows[1:]] == [
        ["echo", "2", "100.0% [34.2%, 100.0%] (wilson)", "2", "0", "0"],
        ["upper", "2", "50.0% [9.5%, 90.5%] (wilson)", "1", "1", "0"],
    ]
    assert _rows(page) == ["hello[echo]", "hello[upper]", "shout[echo]", "shout[upper]"]
    page.select_option("#target-filter", "upper")
    assert _rows(page) == ["hello[upper]", "shout[upper]"]
    assert page.locator("#count").inner_text() == "2 of 4 tasks shown (rows 1-2)"
    page.select_option("#status-filter", "failed")
    assert _rows(page) == ["hello[upper]"]
    if SCREENSHOTS:
        page.screenshot(path=str(ROOT / "docs" / "images" / "report-targets.png"), full_page=True)


def test_the_target_filter_is_hidden_for_a_run_of_one_target(page, sample_report):
    page.goto(sample_report)
    assert page.locator("#target-filter-label").is_hidden()
    assert page.locator("#targets").is_hidden()
