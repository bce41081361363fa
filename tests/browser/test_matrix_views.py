"""The matrix in ``bench view`` and the diff of a task across two runs, in headless Chromium.

One run of 2 prompts × 2 targets (a hostile output among them) and two runs of one suite whose
answers changed (text, JSON and a conversation), served by one viewer; each test loads one page and
checks what is on screen. With BENCH_SCREENSHOTS=1 they also write docs/images/view-matrix.png and
docs/images/compare-diff.png.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.constants import HOSTILE, ROOT, SCREENSHOTS

pytestmark = pytest.mark.browser


MATRIX = """\
name: grid
prompts:
  - {label: plain, template: "{prompt}"}
  - {label: terse, template: "In one word: {prompt}"}
targets:
  - {label: same, type: echo}
  - {label: upper, type: command, command: [tr, a-z, A-Z]}
tasks:
  - {id: greet, prompt: hello, metadata: {topic: greeting}, evaluate: {expected: hello}}
  - {id: hostile, prompt: "HOSTILE", evaluate: {expected: nothing-matches}}
""".replace("HOSTILE", HOSTILE.replace('"', '\\"'))


def _changed(city: str, reply: str, tool: str) -> str:
    """A suite of recorded answers; the two runs of it differ in `city`, `reply` and `tool`."""
    answer = json.dumps({"city": city, "facts": [1, 2]})
    talk = [
        {"role": "user", "content": "Where is order 7?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": tool, "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
        {"role": "assistant", "content": "It shipped."},
        {"role": "user", "content": "When?"},
        {"role": "assistant", "content": reply},
    ]
    tasks = [
        {
            "id": "text",
            "response": f"the capital is {city} of course",
            "evaluate": {"type": "contains", "value": "Paris"},
        },
        {"id": "json", "response": answer, "evaluate": {"type": "contains", "value": "Paris"}},
        {"id": "talk", "response": {"messages": talk}, "evaluate": {"type": "contains", "value": "Monday"}},
    ]
    return json.dumps({"name": "changed", "target": {"type": "recorded"}, "tasks": tasks})


def _made(folder: Path, bench_run: Any, suite: str, name: str) -> str:
    """A run of ``suite`` (written to ``folder/name``) in ``folder/runs``; its id."""
    runs = folder / "runs"
    (folder / name).write_text(suite, encoding="utf-8")
    before = set(runs.iterdir()) if runs.exists() else set()
    bench_run(folder, name, "--runs-dir", str(runs), "--concurrency", "1", exit_codes=(0, 1))
    (made,) = set(runs.iterdir()) - before
    return made.name


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, bench_run: Any, serving: Any
) -> Iterator[tuple[str, dict[str, str], Path]]:
    folder = tmp_path_factory.mktemp("views")
    ids = {
        "grid": _made(folder, bench_run, MATRIX, "grid.yaml"),
        "a": _made(folder, bench_run, _changed("Paris", "On Monday.", "track"), "a.json"),
        "b": _made(folder, bench_run, _changed("Lyon", "On Tuesday, " + HOSTILE, "find"), "b.json"),
    }
    with serving(folder / "runs") as url:
        yield url, ids, folder / "runs"


def _matrix(page: Any) -> list[list[str]]:
    rows = page.query_selector_all("#matrix-table tbody tr")
    return [[c.inner_text().split("\n")[0] for c in row.query_selector_all("th, td")] for row in rows]


def test_the_viewer_shows_the_matrix_filters_it_and_diffs_two_cells(page, served):
    url, ids, _ = served
    page.goto(url + "run/" + ids["grid"])
    page.wait_for_selector("#matrix-table tbody tr")
    heads = page.locator("#matrix-table thead th.column").all_inner_texts()
    assert [h.split("\n")[0] for h in heads] == [
        "plain · same",
        "plain · upper",
        "terse · same",
        "terse · upper",
    ]
    assert heads[0].split("\n")[1] == "50.0% [9.5%, 90.5%]"
    assert _matrix(page) == [
        ["greet", "passed 1.000", "failed 0.000", "passed 1.000", "failed 0.000"],
        ["hostile", *["failed 0.000"] * 4],
    ]
    assert page.locator("#matrix-table td.cell-failed").first.is_visible()
    hostile = page.locator("#matrix-table tbody tr", has_text="hostile").locator("td").first
    assert HOSTILE in hostile.inner_text()
    assert page.locator("#matrix img").count() == 0
    page.check("#matrix-disagree")
    assert [r[0] for r in _matrix(page)] == ["greet"]
    page.uncheck("#matrix-disagree")
    page.fill("#matrix-metadata", "topic=greet")
    assert [r[0] for r in _matrix(page)] == ["greet"]
    page.fill("#matrix-metadata", "")
    row = page.locator("#matrix-table tbody tr", has_text="greet")
    row.locator("td").nth(0).locator("button.pick").click()
    row.locator("td").nth(1).locator("button.pick").click()
    diff = page.locator("#matrix-diff")
    assert diff.locator("h3").inner_text() == "Diff: greet[plain][same] → greet[plain][upper]"
    assert diff.locator(".diff-del").all_inner_texts() == ["hello"]
    assert diff.locator(".diff-ins").all_inner_texts() == ["HELLO"]
    if SCREENSHOTS:
        page.locator("#matrix").screenshot(path=str(ROOT / "docs" / "images" / "view-matrix.png"))
    hostile.locator("button.open").click()
    assert page.locator("#detail-title").inner_text() == "hostile[plain][same]"


def _open_diff(page: Any, diff: Any, key: str) -> None:
    """Click task ``key``'s row and wait for its diff (the viewer fetches the two records)."""
    page.locator("#compare-rows tbody tr", has_text=key).click()
    diff.locator("h3", has_text=f"Diff: A {key} → B {key}").wait_for()


def _check_diffs(page: Any, box: str) -> None:
    """Open the text, JSON and conversation tasks' diffs in turn and check each on screen."""
    diff = page.locator(box)
    _open_diff(page, diff, "text")
    assert diff.locator(".diff-del").all_inner_texts() == ["Paris"]
    assert diff.locator(".diff-ins").all_inner_texts() == ["Lyon"]
    assert diff.locator(".diff-ins").first.is_visible()
    _open_diff(page, diff, "json")
    rows = diff.locator("table.diff-fields tr").all_inner_texts()
    assert [r.split("\t") for r in rows] == [["field", "A json", "B json"], ["city", '"Paris"', '"Lyon"']]
    _open_diff(page, diff, "talk")
    assert diff.locator("p.muted").inner_text() == "turn by turn: 2 and 2 turns"
    assert diff.locator(".diff-turn h4").all_inner_texts() == ["turn 1", "turn 2"]
    first, second = diff.locator(".diff-turn").nth(0), diff.locator(".diff-turn").nth(1)
    assert first.locator(".diff-del").all_inner_texts() == ["track({})"]
    assert first.locator(".diff-ins").all_inner_texts() == ["find({})"]
    assert second.locator(".diff-ins").first.inner_text() == "Tuesday,"
    assert HOSTILE in second.locator(".diff-side").nth(1).inner_text()
    assert diff.locator("img").count() == 0


def test_the_viewer_diffs_a_task_across_two_runs(page, served):
    url, ids, _ = served
    page.goto(f"{url}compare?a={ids['a']}&b={ids['b']}")
    page.wait_for_selector("#compare-rows tbody tr")
    _check_diffs(page, "#compare-diff")
    if SCREENSHOTS:
        page.locator("#compare-diff").screenshot(path=str(ROOT / "docs" / "images" / "compare-diff.png"))


def test_bench_compare_writes_a_page_that_diffs_each_task(page, served, tmp_path):
    _, ids, runs = served
    out = tmp_path / "compare.html"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            "compare",
            ids["a"],
            ids["b"],
            "--runs-dir",
            str(runs),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 3, result.stdout + result.stderr
    page.goto(out.as_uri())
    assert page.locator("#compare-count").inner_text() == "3 of 3 tasks shown; click a task for its diff"
    assert (
        page.locator("#compare-rows tbody tr", has_text="talk").locator("td").nth(1).inner_text()
        == "regressed"
    )
    _check_diffs(page, "#compare-diff")
