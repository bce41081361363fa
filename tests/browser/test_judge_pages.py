"""``bench calibrate -o FILE.html`` and ``bench compare --judge -o FILE.html`` opened in headless
Chromium: the figures visible, hostile labels and reasons shown as text (H07), no console error
(the ``page`` fixture fails the test on one)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bench.judging.calibrate import Item, JudgeCalibration
from bench.judging.calibration_report import write_html as write_calibration
from bench.judging.comparison import compare_offline
from bench.judging.pairwise import write_html as write_comparison
from tests.browser.constants import HOSTILE

pytestmark = pytest.mark.browser

# Humans pass a, b, c; the judge passes a, b, d: kappa 1/3 (tests/test_calibrate.py works it by hand).
HUMAN = {"a": True, "b": True, "c": True, "d": False, "e": False, "f": False}
JUDGE = {"a": True, "b": True, "c": False, "d": True, "e": False, "f": False}


def test_the_calibration_page_shows_the_figures_and_hostile_text_as_text(page: Any, tmp_path: Path):
    items = [
        Item(
            task,
            HUMAN[task],
            JUDGE[task],
            1.0 if JUDGE[task] else 0.0,
            None,
            f"note {task} {HOSTILE}",
            f"reason {task} {HOSTILE}",
        )
        for task in HUMAN
    ]
    document = {
        "suite": "calib",
        "labels": "labels.jsonl",
        "judges": [JudgeCalibration("helpful", items).as_dict()],
    }
    path = tmp_path / "cal.html"
    write_calibration(path, document)
    page.goto(path.as_uri())
    assert page.title() == "bench calibrate: calib"
    assert page.locator("section.judge h2").all_inner_texts() == ["judge helpful"]
    figures = dict(row.inner_text().split("\t", 1) for row in page.query_selector_all("table.figures tr"))
    assert figures["kappa"].startswith("0.333 [")
    assert figures["precision of pass"].startswith("0.667 [")
    assert figures["recall of pass"].startswith("0.667 [")
    assert "best score threshold" in figures
    confusion = [row.inner_text().split("\t") for row in page.query_selector_all("table.confusion tr")]
    assert confusion[1:] == [["human pass", "2", "1"], ["human fail", "1", "2"]]
    notes = page.locator("table.disagreements td.note").all_inner_texts()
    reasons = page.locator("table.disagreements td.reason").all_inner_texts()
    assert notes == [f"note c {HOSTILE}", f"note d {HOSTILE}"]
    assert reasons == [f"reason c {HOSTILE}", f"reason d {HOSTILE}"]
    assert page.locator("img").count() == 0  # the <img onerror> is text, not an element
    assert page.problems == []


def test_the_calibration_page_shows_the_graded_agreement(page: Any, tmp_path: Path):
    # The graded example of tests/test_calibrate.py: weighted kappa 19/31 and 71/83, alpha
    # ordinal 905/1092 and interval 72/83, worked by hand there.
    human = {"a": 1.0, "b": 0.75, "c": 0.5, "d": 0.25, "e": 0.0, "f": 0.25}
    judge = {"a": 1.0, "b": 0.9, "c": 0.3, "d": 0.5, "e": 0.0, "f": 0.0}
    items = [Item(t, human[t] >= 0.5, judge[t] >= 0.5, judge[t], human[t], "", "") for t in human]
    calibration = JudgeCalibration("helpful", items, scale=[0.0, 0.25, 0.5, 0.75, 1.0])
    path = tmp_path / "cal.html"
    write_calibration(path, {"suite": "calib", "labels": "labels.jsonl", "judges": [calibration.as_dict()]})
    page.goto(path.as_uri())
    figures = dict(row.inner_text().split("\t", 1) for row in page.query_selector_all("table.figures tr"))
    assert figures["weighted kappa, linear"].startswith("0.613 [")
    assert figures["weighted kappa, quadratic"].startswith("0.855 [")
    assert figures["Krippendorff's alpha, ordinal"].startswith("0.829 [")
    assert figures["Krippendorff's alpha, interval"].startswith("0.867 [")
    assert page.locator("p.scale").inner_text() == (
        "weighted kappa and alpha: judge against humans on the humans' scale (0, 0.25, 0.5, 0.75, 1), 6 tasks"
    )
    assert page.problems == []


class _PrefersLonger:
    """A ranker that prefers the longer response, wherever it is shown."""

    name = "longer"

    async def rank(self, prompt: str, shown: Sequence[str], llm: Any, index: int) -> list[float]:
        return [1.0 if len(text) == max(map(len, shown)) else 2.0 for text in shown]


def test_the_comparison_page_shows_the_ranking_and_the_verdicts(page: Any, tmp_path: Path):
    tasks = {
        "one": ("prompt one", {"short": "x", f"long {HOSTILE}": "a longer answer"}),
        "two": ("prompt two", {"short": "y", f"long {HOSTILE}": "another longer answer"}),
    }
    # Playwright's own loop runs in this thread: the comparison runs its loop in another.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(compare_offline, _PrefersLonger(), ["short", f"long {HOSTILE}"], tasks).result()
    path = tmp_path / "cmp.html"
    write_comparison(path, result)
    page.goto(path.as_uri())
    rows = [row.inner_text().split("\t") for row in page.query_selector_all("#standings tr")]
    assert rows[0][:2] == ["rank", "run"]
    assert [r[:5] for r in rows[1:]] == [
        ["1", f"long {HOSTILE}", "2", "0", "0"],
        ["2", "short", "0", "2", "0"],
    ]
    assert rows[1][5].startswith("100.0% [")
    verdicts = [row.inner_text().split("\t") for row in page.query_selector_all("#verdicts tr")][1:]
    assert [v[2] for v in verdicts] == [f"long {HOSTILE}", f"long {HOSTILE}"]
    assert page.locator("img").count() == 0
    assert page.problems == []


def test_the_run_report_shows_each_judges_calibration_against_its_bar(page: Any, tmp_path: Path):
    from bench.report.reporters.html import HtmlReporter
    from bench.vocabulary.results import RunReport, Summary

    calibration = [
        {
            "judge": "helpful",
            "kappa": {"value": 1 / 3, "low": -0.5, "high": 1.0, "method": "bootstrap"},
            "min_kappa": 0.6,
            "labels": "labels.jsonl",
            "passes": False,
        },
        {
            "judge": f"strict {HOSTILE}",
            "kappa": {"value": 0.9, "low": 0.7, "high": 1.0, "method": "bootstrap"},
            "min_kappa": 0.6,
            "labels": "labels.jsonl",
            "passes": True,
        },
    ]
    summary = Summary(total=0, passed=0, failed=0, errors=0)
    report = RunReport(
        suite="calib",
        run_id="r1",
        summary=summary,
        tasks=lambda: iter([]),
        extra={"calibration": calibration},
    )
    HtmlReporter().write(report, tmp_path / "run.html")
    page.goto((tmp_path / "run.html").as_uri())
    assert page.locator("#calibration h2").inner_text() == "Judge calibration"
    rows = [row.inner_text().split("\t") for row in page.query_selector_all("#calibration-table tr")][1:]
    assert [[r[0], r[1], r[3], r[4]] for r in rows] == [
        ["helpful", "0.333 [-0.500, 1.000]", "min_kappa 0.6 (labels.jsonl)", "below the bar"],
        [f"strict {HOSTILE}", "0.900 [0.700, 1.000]", "min_kappa 0.6 (labels.jsonl)", "meets the bar"],
    ]
    assert page.locator("img").count() == 0
    assert page.problems == []
