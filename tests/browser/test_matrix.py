"""The matrix of the HTML report in headless Chromium: prompt × target columns, filters, a diff
(a run of 100,000 tasks is measured by benchmarks/run_matrix.py, not timed here).

With BENCH_SCREENSHOTS=1 the tests also write the matrix's screenshot in docs/images/.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.report.reporters.html import HtmlReporter
from bench.vocabulary.results import RunReport, Summary
from tests.browser.constants import HOSTILE, ROOT, SCREENSHOTS

pytestmark = pytest.mark.browser


SUITE = """\
name: matrix
prompts:
  - {label: plain, template: "{prompt}"}
  - {label: terse, template: "In one word: {prompt}"}
targets:
  - {label: same, type: echo}
  - {label: upper, type: command, command: [tr, a-z, A-Z]}
tasks:
  - {id: greet, prompt: hello, metadata: {topic: greeting}, evaluate: {expected: hello}}
  - {id: shout, prompt: hi, metadata: {topic: shouting}, evaluate: {expected: HI}}
  - id: hostile
    prompt: "HOSTILE"
    metadata: {topic: "HOSTILE"}
    evaluate: {expected: nothing-matches}
""".replace("HOSTILE", HOSTILE.replace('"', '\\\\"'))


@pytest.fixture(scope="module")
def matrix_report(tmp_path_factory: pytest.TempPathFactory, bench_run) -> str:
    folder = tmp_path_factory.mktemp("matrix")
    (folder / "suite.yaml").write_text(SUITE)
    report = folder / "report.html"
    bench_run(folder, "suite.yaml", "--report", f"html={report}", exit_codes=(1,))
    return report.as_uri()


def _matrix(page: Any) -> list[list[str]]:
    rows = page.query_selector_all("#matrix-table tbody tr")
    return [[c.inner_text().split("\n")[0] for c in row.query_selector_all("th, td")] for row in rows]


def test_the_matrix_shows_a_row_per_task_and_a_column_per_prompt_and_target(page, matrix_report):
    page.goto(matrix_report)
    heads = page.locator("#matrix-table thead th.column").all_inner_texts()
    assert [h.split("\n")[0] for h in heads] == [
        "plain · same",
        "plain · upper",
        "terse · same",
        "terse · upper",
    ]
    # plain · same passes greet only: 1 of 3, Wilson's 95% interval
    assert heads[0].split("\n")[1] == "33.3% [6.1%, 79.2%]"
    assert _matrix(page) == [
        ["greet", "passed 1.000", "failed 0.000", "passed 1.000", "failed 0.000"],
        ["shout", "failed 0.000", "passed 1.000", "failed 0.000", "passed 1.000"],
        ["hostile", *["failed 0.000"] * 4],
    ]
    assert page.locator("#matrix-count").inner_text() == "3 of 3 tasks × 4 columns"
    failing = page.locator("#matrix-table td.cell-failed")
    assert failing.count() == 8
    box = failing.first.bounding_box()
    assert box is not None
    assert box["width"] > 100
    assert box["height"] > 10
    if SCREENSHOTS:
        page.locator("#matrix").screenshot(path=str(ROOT / "docs" / "images" / "report-matrix.png"))


def test_the_matrix_filters_by_disagreement_metadata_status_and_text(page, matrix_report):
    page.goto(matrix_report)
    page.check("#matrix-disagree")
    assert [r[0] for r in _matrix(page)] == ["greet", "shout"]
    page.uncheck("#matrix-disagree")
    page.fill("#matrix-metadata", "topic=shout")
    assert [r[0] for r in _matrix(page)] == ["shout"]
    page.fill("#matrix-metadata", "")
    page.select_option("#matrix-status", "passed")
    assert [r[0] for r in _matrix(page)] == ["greet", "shout"]
    page.select_option("#matrix-status", "")
    page.fill("#matrix-text", "in one word: hello")
    assert [r[0] for r in _matrix(page)] == ["greet"]


def test_hostile_strings_in_cells_are_text(page, matrix_report):
    page.goto(matrix_report)
    cell = page.locator("#matrix-table tbody tr", has_text="hostile").locator("td").first
    assert HOSTILE in cell.inner_text()
    assert page.locator("#matrix-table img").count() == 0
    cell.locator("button.open").click()
    assert page.locator("#detail-title").inner_text() == "hostile[plain][same]"


def test_two_cells_diff_word_by_word(page, matrix_report):
    page.goto(matrix_report)
    row = page.locator("#matrix-table tbody tr", has_text="greet")
    row.locator("td").nth(0).locator("button.pick").click()
    assert page.locator("#matrix-diff").inner_text() == "diff: greet[plain][same] chosen; choose another cell"
    row.locator("td").nth(2).locator("button.pick").click()
    diff = page.locator("#matrix-diff")
    assert diff.locator("h3").inner_text() == "Diff: greet[plain][same] → greet[terse][same]"
    assert diff.locator(".diff-ins").all_inner_texts() == ["In", " ", "one", " ", "word:", " "]
    assert diff.locator(".diff-del").count() == 0
    assert diff.locator(".diff-ins").first.is_visible()
    if SCREENSHOTS:
        diff.screenshot(path=str(ROOT / "docs" / "images" / "report-diff.png"))


def test_json_outputs_diff_field_by_field_and_hostile_text_stays_text(page, tmp_path):
    answers = {
        "a": '{"city": "Paris", "facts": [1, 2], "note": "' + HOSTILE.replace('"', '\\"') + '"}',
        "b": '{"city": "Lyon", "facts": [1, 3], "extra": true, "note": "'
        + HOSTILE.replace('"', '\\"')
        + '"}',
    }
    tasks = [
        {
            "id": f"t[{label}]",
            "status": "passed",
            "passed": True,
            "response": text,
            "target": {"type": "echo", "label": label},
        }
        for label, text in answers.items()
    ]
    summary = Summary()
    for task in tasks:
        summary.add(str(task["status"]))
    HtmlReporter().write(
        RunReport(suite="json", run_id="r4", summary=summary, tasks=lambda: iter(tasks)), tmp_path / "j.html"
    )
    page.goto((tmp_path / "j.html").as_uri())
    cells = page.locator("#matrix-table tbody tr td")
    cells.nth(0).locator("button.pick").click()
    cells.nth(1).locator("button.pick").click()
    rows = page.locator("#matrix-diff table.diff-fields tr").all_inner_texts()
    assert [r.split("\t") for r in rows] == [
        ["field", "t[a]", "t[b]"],
        ["city", '"Paris"', '"Lyon"'],
        ["facts[1]", "2", "3"],
        ["extra", "(absent)", "true"],
    ]
    assert page.locator("#matrix img").count() == 0
