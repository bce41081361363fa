"""`--report html=FILE`: one self-contained page whose embedded data cannot end its script block.

The page itself is checked in a real browser in tests/browser/ (nox -s browser).
"""

from __future__ import annotations

import json
import re
import shlex
from importlib import resources
from pathlib import Path

from bench.report.reporters.html import escape_json
from bench.testing import write_suite

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = "</script><script>alert(1)</script> <img src=x onerror=alert(1)> \u2028\u2029 & done"


def _blocks(page: str) -> tuple[dict, list[dict]]:
    """The run and the task records, parsed back from the page's JSON blocks."""
    run = re.search(r'<script type="application/json" id="bench-run">(.*?)</script>', page, re.S)
    tasks = re.search(r'<script type="application/json" id="bench-tasks">(.*?)</script>', page, re.S)
    assert run
    assert tasks
    return json.loads(run[1]), json.loads(tasks[1])


def test_escape_json_escapes_what_could_end_a_script_block():
    text = json.dumps({"r": HOSTILE}, ensure_ascii=False)
    assert escape_json(text) == (
        '{"r": "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e '
        '\\u003cimg src=x onerror=alert(1)\\u003e \\u2028\\u2029 \\u0026 done"}'
    )
    assert json.loads(escape_json(text)) == {"r": HOSTILE}


def test_h07_the_report_embeds_a_hostile_response_as_inert_json(bench_cli, tmp_path):
    suite = write_suite(
        tmp_path,
        f"""
        name: "<b>suite</b>"
        target: {{type: recorded}}
        tasks:
          - {{id: fine, response: "Paris", evaluate: {{expected: Paris}}}}
          - {{id: hostile, response: {json.dumps(HOSTILE)}, evaluate: {{expected: polite}}}}
        """,
    )
    result = bench_cli("run", suite, "-q", "--report", f"html={tmp_path / 'report.html'}")
    assert result.exit_code == 1, result.output
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "alert(1)</script>" not in page
    assert "<img" not in page
    assert "\u2028" not in page
    assert "<title>bench: &lt;b&gt;suite&lt;/b&gt;</title>" in page
    run, tasks = _blocks(page)
    assert (run["suite"], run["summary"]["total"], run["summary"]["failed"]) == ("<b>suite</b>", 2, 1)
    assert [t["id"] for t in tasks] == ["fine", "hostile"]
    assert tasks[1]["response"] == HOSTILE
    # Only the page's own script runs: the policy names it by hash, and nothing loads from outside.
    assert page.count("<script>") == 1
    assert "default-src 'none'" in page
    assert "http://" not in page
    assert "https://" not in page


def test_the_page_script_never_parses_data_as_html():
    assets = resources.files("bench.report") / "assets"
    names = sorted(entry.name for entry in assets.iterdir() if entry.name.endswith(".js"))
    assert {"common.js", "report.js", "viewer.js"} <= set(names)
    for name in names:
        script = (assets / name).read_text(encoding="utf-8")
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in script, name


def test_the_example_in_docs_reports_md_writes_the_report(bench_cli, tmp_path):
    doc = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    (command,) = [line for line in doc.splitlines() if line.startswith("bench run ")]
    args = shlex.split(command)[1:]
    args[1] = str(ROOT / args[1])
    result = bench_cli(*args)
    assert result.exit_code == 1, result.output  # the quickstart fails one task on purpose
    run, tasks = _blocks((tmp_path / "report.html").read_text(encoding="utf-8"))
    assert run["summary"] == {"total": 6, "passed": 5, "failed": 1, "errors": 0, "interrupted": 0}
    assert [t["id"] for t in tasks if t["status"] != "passed"] == ["wrong-answer"]


def test_empty_result_fields_are_left_out_but_text_that_looks_like_them_stays():
    from bench.report.reporters.html import _compact

    line = '{"id":"a","response":"x,\\"error\\":null","error":null,"vars":{"k":1,"z":null},"details":{}}'
    assert _compact(line) == '{"id":"a","response":"x,\\"error\\":null","vars":{"k":1,"z":null}}'
