"""The Markdown report carries the run's statistics, the flakiness split three ways included."""

from __future__ import annotations

from bench.report.reporters.markdown import MarkdownReporter
from bench.vocabulary.results import RunReport, Summary

STATISTICS = {
    "confidence": 0.95,
    "pass_rate": {"value": 0.5, "low": 0.2, "high": 0.8, "method": "wilson"},
    "repeats": 4,
    "pass_at_k": {"1": 0.5},
    "pass_hat_k": {"1": 0.5},
    "flaky": ["refund"],
    "variance": {
        "system": 0.01,
        "judge": 0.0,
        "system_share": 1.0,
        "hint": "most variation comes from the system",
        "simulated_user": {
            "variance": 0.0833,
            "system_and_judge": 0.0,
            "user_share": 1.0,
            "hint": "most variation comes from the simulated user",
        },
    },
}


def report(extra: dict) -> RunReport:
    return RunReport(
        suite="s",
        run_id="r1",
        summary=Summary(total=2, passed=1, failed=1),
        tasks=lambda: iter([]),
        extra=extra,
    )


def test_markdown_report_has_the_statistics_with_the_simulated_users_share():
    lines = MarkdownReporter().render(report({"statistics": STATISTICS})).splitlines()
    start = lines.index("### Statistics")
    section = lines[start + 2 :]
    # brackets escaped: they render as text, never as a link
    assert r"- pass rate 50.0% \[20.0%, 80.0%\] (wilson), 95% interval" in section
    assert "- flaky tasks (1): refund" in section
    assert (
        "- simulated user: 0.0833, system and judge 0.0000 (100% the user): "
        "most variation comes from the simulated user"
    ) in section


def test_markdown_report_without_statistics_has_no_statistics_section():
    assert "### Statistics" not in MarkdownReporter().render(report({}))


def test_junit_report_has_the_statistics_as_testsuite_properties(tmp_path):
    import xml.etree.ElementTree as ET

    from bench.report.reporters.junit import JunitReporter

    JunitReporter().write(report({"statistics": STATISTICS}), tmp_path / "r.xml")
    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.iterfind("properties/property")}
    assert props["statistics.pass_rate.value"] == "0.5"
    assert props["statistics.flaky"] == "refund"
    assert props["statistics.variance.simulated_user.user_share"] == "1.0"
    assert props["statistics.variance.simulated_user.hint"] == "most variation comes from the simulated user"


#: Markup, quotes, a CDATA end, control characters XML 1.0 forbids, a lone surrogate, a newline.
HOSTILE = "a<b&c\"d'e]]>f\x00g\x1bh\ud800i\ufffej\r\nk\tl"
#: What XML can hold of it: the forbidden characters become U+FFFD, the rest is kept.
KEPT = "a<b&c\"d'e]]>f\ufffdg\ufffdh\ufffdi\ufffdj\r\nk\tl"


def test_junit_statistics_with_hostile_names_are_well_formed_xml(tmp_path):
    """A suite name, a task id (a flaky task) and a metric name as hostile as they come give a
    file every XML parser reads, with the text kept as far as XML allows."""
    import xml.etree.ElementTree as ET

    from bench.report.reporters.junit import JunitReporter

    statistics = {
        **STATISTICS,
        "flaky": [HOSTILE, "refund"],
        "metrics": {HOSTILE: {"mean": 0.5}},
        "variance": {"hint": HOSTILE},
    }
    hostile = RunReport(
        suite=HOSTILE,
        run_id="r1",
        summary=Summary(total=2, passed=1, failed=1),
        tasks=lambda: iter([{"id": HOSTILE, "status": "failed", "evaluators": [], "error": HOSTILE}]),
        extra={"statistics": statistics},
    )
    JunitReporter().write(hostile, tmp_path / "r.xml")
    root = ET.parse(tmp_path / "r.xml").getroot()  # raises on a file that is not well-formed
    suite = root.find("testsuite")
    assert suite is not None
    assert root.get("name") == suite.get("name") == KEPT
    props = [(p.get("name"), p.get("value")) for p in suite.iterfind("properties/property")]
    assert ("statistics.flaky", f"{KEPT}, refund") in props
    assert (f"statistics.metrics.{KEPT}.mean", "0.5") in props
    assert ("statistics.variance.hint", KEPT) in props
    case = suite.find("testcase")
    assert case is not None
    assert (case.get("classname"), case.get("name")) == (KEPT, KEPT)
    assert b"]]>" not in (tmp_path / "r.xml").read_bytes()
