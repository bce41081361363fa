"""A conversation task's transcript in the HTML report and in ``bench view``, opened in headless
Chromium: turns with who said what, tool calls, per-turn verdicts, the failed turn marked, and
hostile strings from the transcript shown as text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.constants import HOSTILE

pytestmark = pytest.mark.browser

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def conversation_run(tmp_path_factory: pytest.TempPathFactory, bench_run) -> Path:
    """`bench run` on tests/browser/conversation.yaml: an HTML report and a run folder."""
    folder = tmp_path_factory.mktemp("talks")
    report = f"html={folder / 'report.html'}"
    # 1: both conversations fail a check
    bench_run(
        folder, str(HERE / "conversation.yaml"), "--runs-dir", "runs", "--report", report, exit_codes=(1,)
    )
    return folder


@pytest.fixture(scope="module")
def viewer(conversation_run: Path, serving) -> Iterator[str]:
    with serving(conversation_run / "runs") as url:
        yield url


def _turns(page: Any) -> list[list[str]]:
    """Each turn's heading, its messages (role and text) and its verdicts, as the page shows them."""
    page.wait_for_selector("#transcript")
    return [
        [turn.locator("h4").inner_text()]
        + [m.inner_text() for m in turn.locator(".message").all()]
        + [v.inner_text() for v in turn.locator("ul.turn-verdicts li").all()]
        for turn in page.locator("#transcript li.turn").all()
    ]


def _check_recorded(page: Any) -> None:
    assert _turns(page) == [
        [
            "turn 1 (recorded)",
            "user\nWhere is order 7?",
            'assistant\n-> <img src=x onerror=alert(2)>({"order": 7})',
            "tool\n<script>alert(3)</script>",
            "assistant\nLost!",
        ],
        [
            "turn 2 (recorded)",
            "user\nRefund?",
            "assistant\nWhat is your order number?",
            "remembers: failed turn 2: the assistant said 'What is your order number'",
        ],
    ]
    assert page.locator("#transcript li.failed-turn").evaluate_all("els => els.map(e => e.dataset.turn)") == [
        "2"
    ]
    page.wait_for_timeout(200)  # an injected handler would have fired by now
    assert page.locator("#detail img, #detail script").count() == 0


def test_the_report_shows_a_conversation_as_turns_with_per_turn_verdicts(page, conversation_run):
    page.goto((conversation_run / "report.html").as_uri() + "#task=echoed")
    assert _turns(page) == [
        ["turn 1 (scripted)", "user\nhello", "assistant\nhello", "bang: failed not found: '!'"],
        [
            "turn 2 (scripted)",
            f"user\n{HOSTILE}",
            f"assistant\n{HOSTILE}",
            "bang: failed not found: '!'",
            "turn 2: contains: failed not found: 'never there'",
        ],
    ]
    assert page.locator("#detail h3", has_text="Conversation (2 turns)").count() == 1
    page.goto((conversation_run / "report.html").as_uri() + "#task=recorded")
    page.reload()
    _check_recorded(page)
    assert page.locator("script").count() == 3  # the page's two data blocks and its own script


def test_the_report_says_a_skipped_phase_check_is_not_applicable(page, conversation_run):
    page.goto((conversation_run / "report.html").as_uri() + "#task=steered")
    row = page.locator("#evaluators tr", has=page.locator("td.not-applicable"))
    assert row.locator("td").all_inner_texts()[:4] == [
        "turn 2: pushback (contains)",
        "not applicable",
        "-",
        "not applicable: phase 2 was skipped (when: after_mismatch)",
    ]


def test_h07_bench_view_shows_the_transcript_with_hostile_strings_inert(page, viewer, conversation_run):
    [run] = (conversation_run / "runs").iterdir()
    page.goto(f"{viewer}run/{run.name}#task=recorded")
    page.wait_for_selector("#detail-title")
    _check_recorded(page)
    assert page.locator("script").count() == 1  # the viewer's own


def test_the_report_statistics_show_the_simulated_users_share(
    page, bench_cli, bench_suite_file, bench_fake_llm
):
    """The three sources of a conversation's flakiness in the HTML report (console and ``bench
    show``: tests/conversations/test_show_flakiness.py, on the same run)."""
    from tests.conversations.test_show_flakiness import two_users
    from tests.conversations.test_simulated_user import SUITE

    two_users(bench_fake_llm)
    suite = bench_suite_file(SUITE.replace("tasks:\n", "concurrency: 1\ntasks:\n"))
    report = suite.parent / "report.html"
    assert bench_cli("run", suite, "-q", "--repeat", "4", "--report", f"html={report}").exit_code == 1
    page.goto(report.as_uri())
    stats = dict(row.inner_text().split("\t", 1) for row in page.query_selector_all("#statistics-table tr"))
    assert stats["flaky tasks"] == "refund"
    assert (
        stats["simulated user"]
        == "0.083333 (100% of the spread): most variation comes from the simulated user"
    )
