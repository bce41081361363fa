"""`--report markdown=FILE`: the CI step summary; untrusted text renders as text."""

from __future__ import annotations

from bench.testing import write_suite


def test_markdown_lists_what_did_not_pass_with_markup_made_inert(bench_cli, tmp_path):
    suite = write_suite(
        tmp_path,
        """
        name: md
        target: {type: recorded}
        tasks:
          - {id: fine, response: "Paris", evaluate: {expected: Paris}}
          - {id: wrong, response: "Lyon", evaluate: {expected: "<img src=x onerror=alert(1)>|[a](javascript:x)*"}}
        """,
    )
    result = bench_cli("run", suite, "-q", "--report", f"markdown={tmp_path / 'summary.md'}")
    assert result.exit_code == 1
    text = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert text.splitlines()[:5] == [
        "## bench: md: 1 of 2 tasks did not pass",
        "",
        "| tasks | passed | failed | errors | pass rate | time |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        text.splitlines()[4],
    ]
    assert text.splitlines()[4].startswith("| 2 | 1 | 1 | 0 | 50.0% | ")
    assert text.endswith(
        "| wrong | failed | expected: not found: "
        "'&lt;img src=x onerror=alert(1)&gt;\\|\\[a\\](javascript:x)\\*' |\n"
    )
    assert "<img" not in text
    assert "fine" not in text


def test_markdown_counts_the_tasks_beyond_the_first_fifty(bench_cli, tmp_path):
    rows = "".join(f"  - {{id: t{i}, response: 'no', evaluate: {{expected: yes}}}}\n" for i in range(60))
    suite = write_suite(tmp_path, f"name: many\ntarget: {{type: recorded}}\ntasks:\n{rows}")
    bench_cli("run", suite, "-q", "--report", f"markdown={tmp_path / 'summary.md'}")
    text = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert text.count("| failed | expected") == 50
    assert text.endswith("\nand 10 more (see the JSON report)\n")
