"""examples/calibration and docs/calibration.md run offline against the fake server."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from bench.testing.verdicts import judge_verdict

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "calibration"


def test_example_calibrates_and_gates(bench_cli, bench_fake_llm, tmp_path):
    for name in ("suite.yaml", "labels.jsonl"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    # The judge fails the two answers that are plainly wrong and passes the rest; the people (by
    # majority, a tie failing) also fail export-data: 5 of 6 agree.
    bench_fake_llm.default = judge_verdict(passed=True, reason="fine")
    for words in ("Plans cannot be cancelled", "Email us your password"):
        bench_fake_llm.add(judge_verdict(passed=False, reason="wrong"), match=words)
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "c.json")
    assert result.exit_code == 0, result.output
    (judge,) = json.loads((tmp_path / "c.json").read_text())["judges"]
    # By hand: humans pass 3 of 6, the judge 4 of 6; p_o = 5/6, p_e = (3/6)(4/6) + (3/6)(2/6) = 1/2.
    assert judge["kappa"]["value"] == (5 / 6 - 1 / 2) / (1 / 2)
    assert judge["disagreements"] == [
        {
            "task": "export-data",
            "human": False,
            "human_note": "says yes but not how; correct, if short",
            "judge": True,
            "judge_reason": "fine",
        }
    ]
    # ana and ben disagree on one task of six: alpha = 1 - (2/12) / (2*7*5 / (12*11)).
    assert judge["inter_rater_alpha"] == 1 - (2 / 12) / (2 * 7 * 5 / (12 * 11))
    gated = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert gated.stdout.startswith("calibration: judge 'correct': kappa 0.67 [")
    assert gated.exit_code == 1  # it ran: the judge fails two answers


def test_docs_calibration_example_runs(bench_cli, bench_fake_llm, tmp_path):
    text = (ROOT / "docs" / "calibration.md").read_text()
    suite = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)[0]
    labels = re.findall(r"```jsonl\n(.*?)```", text, re.DOTALL)[0]
    (tmp_path / "suite.yaml").write_text(suite)
    (tmp_path / "labels.jsonl").write_text(labels)
    command = re.findall(r"^\$ bench (calibrate .*)$", text, re.MULTILINE)[0].split()
    bench_fake_llm.default = judge_verdict(passed=True, reason="fine")
    bench_fake_llm.add(judge_verdict(passed=False, reason="asks for a password"), match="password")
    result = bench_cli(*command)
    assert result.exit_code == 0, result.output
    (judge,) = json.loads((tmp_path / "calibration.json").read_text())["judges"]
    assert judge["confusion"] == {"both_pass": 2, "judge_only_pass": 1, "human_only_pass": 0, "both_fail": 1}
    assert "  disagree on c: human fail, judge pass\n    human: plans can be cancelled under Billing\n" in (
        result.stdout
    )


def _docs_suite(tmp_path, bench_fake_llm):
    text = (ROOT / "docs" / "calibration.md").read_text()
    (tmp_path / "suite.yaml").write_text(re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)[0])
    (tmp_path / "labels.jsonl").write_text(re.findall(r"```jsonl\n(.*?)```", text, re.DOTALL)[0])
    bench_fake_llm.default = judge_verdict(passed=True, reason="fine")
    bench_fake_llm.add(judge_verdict(passed=False, reason="asks for a password"), match="password")
    return text


def test_docs_calibration_html_example_writes_the_page(bench_cli, bench_fake_llm, tmp_path):
    text = _docs_suite(tmp_path, bench_fake_llm)
    (command,) = re.findall(r"^\$ bench (calibrate .*\.html)$", text, re.MULTILINE)
    result = bench_cli(*command.split())
    assert result.exit_code == 0, result.output
    page = (tmp_path / command.split()[-1]).read_text(encoding="utf-8")
    (block,) = re.findall(r'<script type="application/json" id="bench-data">(.*?)</script>', page, re.DOTALL)
    (judge,) = json.loads(block)["judges"]
    assert judge["confusion"] == {"both_pass": 2, "judge_only_pass": 1, "human_only_pass": 0, "both_fail": 1}
    assert judge["disagreements"][0]["human_note"] == "plans can be cancelled under Billing"


def test_docs_calibration_python_example_refuses_the_weak_judge(
    bench_fake_llm, tmp_path, monkeypatch, capsys
):
    text = _docs_suite(tmp_path, bench_fake_llm)
    suite = (tmp_path / "suite.yaml").read_text()
    (tmp_path / "suite.yaml").write_text(
        suite.replace(
            "    model: openai/gpt-4o-mini\n",
            "    model: openai/gpt-4o-mini\n    calibration: {labels: labels.jsonl, min_kappa: 0.6}\n",
        )
    )
    monkeypatch.chdir(tmp_path)
    (code,) = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    exec(compile(code, "docs/calibration.md", "exec"), {})
    # By hand: p_o = 3/4, p_e = (2/4)(3/4) + (2/4)(1/4) = 1/2, kappa = 1/2: below 0.6.
    assert capsys.readouterr().out.startswith(
        "--require-calibration: below the bar: judge 'correct': kappa 0.50 ["
    )


def test_docs_graded_example_prints_what_the_page_shows(bench_cli, bench_fake_llm, tmp_path):
    text = (ROOT / "docs" / "calibration.md").read_text()
    section = text[text.index("### Graded scores") :]
    (tmp_path / "suite.yaml").write_text(re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)[0])
    (tmp_path / "graded.jsonl").write_text(re.findall(r"```jsonl\n(.*?)```", section, re.DOTALL)[0])
    command, shown = re.findall(r"```console\n(.*?)```", section, re.DOTALL)[0].split("\n", 1)
    # The judge the page describes: a and b 1, c 0.5, d 0.
    for words, score in (
        ("Settings", 1.0),
        ("30 days", 1.0),
        ("cannot be cancelled", 0.5),
        ("password", 0.0),
    ):
        verdict = judge_verdict(passed=score >= 0.5, score=score, reason="a plausible policy answer")
        bench_fake_llm.add(verdict, match=words)
    result = bench_cli(*command.removeprefix("$ bench ").split())
    assert result.exit_code == 0, result.output
    assert result.stdout == shown
