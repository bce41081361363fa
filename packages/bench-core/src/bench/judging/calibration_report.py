"""What ``bench calibrate`` prints: per judge, its agreement with the humans and where they differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _interval(value: dict[str, Any]) -> str:
    return f"{value['value']:.2f} [{value['low']:.2f}, {value['high']:.2f}]"


def kappa_text(summary: dict[str, Any]) -> str:
    """``kappa 0.40 [0.12, 0.66]``, or ``no labelled task judged``."""
    if "kappa" not in summary:
        return "no labelled task judged"
    return f"kappa {_interval(summary['kappa'])}"


def graded_lines(graded: dict[str, Any]) -> list[str]:
    """The judge's scores against the people's on their scale: weighted kappa and alpha."""
    levels = graded["scale"]
    scale = (
        ", ".join(f"{level:.3g}" for level in levels)
        if len(levels) <= 11
        else f"{len(levels)} levels, {levels[0]:.3g} to {levels[-1]:.3g}"
    )
    return [
        f"  on the humans' scale ({scale}), {graded['tasks']} tasks:",
        f"    weighted kappa linear {_interval(graded['kappa_linear'])}, "
        f"quadratic {_interval(graded['kappa_quadratic'])}",
        f"    Krippendorff's alpha ordinal {_interval(graded['alpha_ordinal'])}, "
        f"interval {_interval(graded['alpha_interval'])}",
    ]


def render(summaries: list[dict[str, Any]]) -> str:
    """The console text of ``bench calibrate`` (untrusted text kept on one line each)."""
    lines: list[str] = []
    for s in summaries:
        lines.append(f"judge {s['judge']}: {s['labelled']} labelled tasks, {kappa_text(s)}")
        if "kappa" in s:
            c = s["confusion"]
            lines.append(
                f"  confusion (human x judge): pass/pass {c['both_pass']}, fail/pass {c['judge_only_pass']}, "
                f"pass/fail {c['human_only_pass']}, fail/fail {c['both_fail']}"
            )
            lines.append(
                f"  precision of pass {_interval(s['pass_precision'])}, "
                f"recall of pass {_interval(s['pass_recall'])}"
            )
            if "threshold" in s:
                lines.append(f"  best score threshold {_interval(s['threshold'])}")
            if "spearman" in s:
                lines.append(f"  spearman {_interval(s['spearman'])}")
            if "graded" in s:
                lines.extend(graded_lines(s["graded"]))
        if "inter_rater_alpha" in s:
            lines.append(
                f"  raters' own agreement (Krippendorff's alpha, the ceiling): {s['inter_rater_alpha']:.2f}"
            )
        for d in s["disagreements"]:
            human, judge = ("pass" if d["human"] else "fail"), ("pass" if d["judge"] else "fail")
            lines.append(f"  disagree on {d['task']}: human {human}, judge {judge}")
            if d["human_note"]:
                lines.append(f"    human: {_one_line(d['human_note'])}")
            lines.append(f"    judge: {_one_line(d['judge_reason'])}")
        for task, error in s.get("errors", {}).items():
            lines.append(f"  error on {task}: {_one_line(error)}")
    return "\n".join(lines)


def write_html(path: Path, document: dict[str, Any]) -> None:
    """``bench calibrate -o FILE.html``: the document ``-o FILE.json`` holds, as a self-contained page."""
    from bench.report.page import write_page

    write_page(path, f"bench calibrate: {document['suite']}", document, "calibration.js")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
