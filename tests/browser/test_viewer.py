"""``bench view`` opened in headless Chromium: the runs, one run's counts and filters, the
comparison of two targets, a hostile response inert, a run in progress updating. With
BENCH_SCREENSHOTS=1 the tests also write the viewer's screenshots in docs/images/.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.report.viewer.labels import Labelling
from bench.report.viewer.server import ViewServer
from bench.scoring.labels import Label, read_labels
from tests.browser.constants import HOSTILE, ROOT, SCREENSHOTS

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parent
TWO = (
    "name: two\ntargets:\n  - {type: echo}\n  - {type: command, label: upper, command: [tr, a-z, A-Z]}\n"
    "tasks:\n  - {id: hello, prompt: hello, expected: {contains: hello}}\n"
    "  - {id: shout, prompt: HI, expected: {contains: HI}}\n"
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, bench_run) -> Path:
    """Two runs made by `bench run`: the sample suite (--repeat 2) and a suite of two targets."""
    folder = tmp_path_factory.mktemp("view")
    common = ("--runs-dir", "runs")
    bench_run(folder, str(HERE / "suite.yaml"), *common, "--repeat", "2", exit_codes=(1, 3))
    (folder / "two.yaml").write_text(TWO, encoding="utf-8")
    # One at a time: the viewer lists a run's rows in the order they were recorded.
    bench_run(folder, "two.yaml", *common, "--concurrency", "1", exit_codes=(1, 3))
    return folder / "runs"


@pytest.fixture(scope="module")
def viewer(runs: Path, serving) -> Iterator[str]:
    with serving(runs) as url:
        yield url


def _ids(runs: Path) -> tuple[str, str]:
    """The ids of the sample run and the run of two targets."""
    by_suite = {json.loads((p / "manifest.json").read_text())["suite"]: p.name for p in runs.iterdir()}
    return by_suite["report-sample"], by_suite["two"]


def _rows(page: Any) -> list[str]:
    return [row.inner_text().split("\t")[0] for row in page.query_selector_all("#rows tbody tr")]


def test_the_runs_list_and_one_runs_counts(page, viewer, runs):
    sample, two = _ids(runs)
    page.goto(viewer)
    page.wait_for_selector("#runs-table tbody tr")
    assert [r.split("\t")[:2] for r in page.locator("#runs-table tbody tr").all_inner_texts()] == [
        [two, "two"],
        [sample, "report-sample"],
    ]
    if SCREENSHOTS:
        page.screenshot(path=str(ROOT / "docs" / "images" / "view-runs.png"), full_page=True)
    page.locator("#runs-table a", has_text=sample).click()
    page.wait_for_selector("#rows tbody tr")
    cards = page.locator("#summary .card").all_inner_texts()
    assert [c.replace("\n", " ") for c in cards] == [
        "10 tasks",
        "3 passed",
        "5 failed",
        "2 errors",
        "30.0% pass rate",
    ]
    assert page.locator("#count").inner_text() == "10 of 10 tasks shown (rows 1-10)"
    assert page.title() == "bench view: report-sample"


def test_filters_go_to_the_server_and_a_task_opens_whole(page, viewer, runs):
    sample, _ = _ids(runs)
    page.goto(f"{viewer}run/{sample}")
    page.wait_for_selector("#rows tbody tr")
    page.select_option("#status-filter", "error")
    page.locator("#count", has_text="2 of 10 tasks shown").wait_for()
    assert _rows(page) == ["crash", "crash (run 2)"]
    page.select_option("#status-filter", "")
    page.fill("#text-filter", "paris")
    page.locator("#count", has_text="2 of 10 tasks shown").wait_for()
    assert _rows(page) == ["capital", "capital (run 2)"]
    page.locator("#rows tbody tr").first.click()
    page.wait_for_selector("#detail-title")
    assert page.locator("#detail-title").inner_text() == "capital"
    assert page.locator("#detail pre.response").inner_text() == "The capital of France is Paris."
    if SCREENSHOTS:
        page.screenshot(path=str(ROOT / "docs" / "images" / "view-run.png"), full_page=True)


def test_h07_a_hostile_response_shows_as_text_and_opens_no_dialog(page, viewer, runs):
    sample, _ = _ids(runs)
    page.goto(f"{viewer}run/{sample}#task=hostile")
    page.wait_for_selector("#detail-title")
    assert page.locator("#detail pre.response").inner_text() == HOSTILE
    page.wait_for_timeout(200)  # an injected handler would have fired by now
    assert page.locator("img:not(figure.chart img)").count() == 0  # the run's charts alone
    assert page.locator("script").count() == 1  # the viewer's own
    assert page.problems == []


def test_two_targets_compared_task_by_task(page, viewer, runs):
    _, two = _ids(runs)
    page.goto(f"{viewer}run/{two}")
    page.wait_for_selector("#targets-table")
    labels = [row.split("\t")[0] for row in page.locator("#targets-table tr").all_inner_texts()[1:]]
    assert labels == ["echo", "upper"]
    page.select_option("#target-filter", "upper")
    page.locator("#count", has_text="2 of 4 tasks shown").wait_for()
    assert _rows(page) == ["hello[upper]", "shout[upper]"]
    page.locator("#target-compare a").click()
    page.wait_for_selector("#compare-rows tbody tr")
    rows = [row.split("\t")[:3] for row in page.locator("#compare-rows tbody tr").all_inner_texts()]
    assert rows == [["hello", "regressed", "passed"], ["shout", "same", "passed"]]
    assert page.locator("#verdict .card").first.inner_text().split("\n") == [
        "insufficient evidence",
        "verdict",
    ]
    if SCREENSHOTS:
        page.screenshot(path=str(ROOT / "docs" / "images" / "view-compare.png"), full_page=True)


def test_a_run_in_progress_updates_live(page, viewer, runs):
    folder = runs / "20990101-000000-live00"
    folder.mkdir()
    manifest = {"suite": "live", "started_at": "2099-01-01T00:00:00+00:00", "status": "running", "tasks": 2}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    line = '{"id":"%s","status":"passed","passed":true,"score":1.0,"response":"ok","evaluators":[]}\n'
    (folder / "results.jsonl").write_text(line % "first")
    try:
        page.goto(f"{viewer}run/{folder.name}")
        page.wait_for_selector("#rows tbody tr")
        assert page.locator("#live").inner_text() == "in progress: 1 of 2 tasks done; updating"
        with open(folder / "results.jsonl", "a") as out:
            out.write(line % "second")
        page.locator("#rows tbody tr").nth(1).wait_for(timeout=10_000)  # no eval: the CSP forbids it
        (folder / "manifest.json").write_text(json.dumps({**manifest, "status": "finished"}))
        page.wait_for_selector("#live", state="hidden", timeout=10_000)
        assert _rows(page) == ["first", "second"]
    finally:  # the shared runs folder as the other tests expect it
        shutil.rmtree(folder)


def test_a_task_labelled_from_the_keyboard_lands_in_the_labels_file(page, runs, tmp_path):
    sample, _ = _ids(runs)
    labelling = Labelling(tmp_path / "labels.jsonl", "ana")
    server = ViewServer(runs, "127.0.0.1", 0, labelling)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page.goto(f"{server.url}run/{sample}#task=capital")
        page.locator("#label-current", has_text="label: none yet").wait_for()
        assert page.locator("#label-panel h3").inner_text() == "Your label (ana)"
        page.keyboard.press("n")
        page.keyboard.type("named the capital")
        page.keyboard.press("Escape")
        page.keyboard.press("p")
        page.locator("#label-saved", has_text="saved capital: pass, note: named the capital").wait_for()
        assert read_labels(labelling.out) == [
            Label(
                "capital",
                passed=True,
                rater="ana",
                note="named the capital",
                response="The capital of France is Paris.",
            )
        ]
        # Labelled once, the task shows its label when opened again (and can be changed).
        page.goto(f"{server.url}run/{sample}#task=capital")
        page.reload()  # a new page: only the hash differs from the one labelling moved on to
        page.locator("#label-current", has_text="label: pass, note: named the capital").wait_for()
        page.keyboard.press("3")
        page.locator(
            "#label-saved", has_text="saved capital: score 0.333, note: named the capital"
        ).wait_for()
        assert [(la.passed, la.score) for la in read_labels(labelling.out)] == [(None, 0.3333)]
    finally:
        server.shutdown()
        server.server_close()
