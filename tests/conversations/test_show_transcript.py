"""``bench show RUN TASK`` prints a conversation as turns: who said what, and each turn's verdicts."""

from __future__ import annotations

from tests.conversations.test_over_turns import SUITE


def test_show_prints_the_transcript_turn_by_turn_with_its_verdicts(bench_cli, bench_suite_file):
    bench_cli("run", bench_suite_file(SUITE), "-q")
    shown = bench_cli("show", "latest", "support")
    assert shown.exit_code == 0, shown.output
    start = shown.stdout.index("--- conversation (2 turns) ---")
    assert shown.stdout[start:].splitlines()[:9] == [
        "--- conversation (2 turns) ---",
        "turn 1 (recorded)",
        "  user: hello",
        "  assistant: Hello! How can I help?",
        "    = every: passed  found '!'",
        "turn 2 (recorded)",
        "  user: my parcel",
        "  assistant: It ships tomorrow.",
        "    = every: failed  not found: '!'",
    ]
