"""bench calibrate: judges against human labels, end to end against the fake server."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import termios
import time

import pytest

from bench.testing.verdicts import judge_verdict

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
# The humans pass the first three; the judge is scripted to pass alpha, bravo and delta.
HUMAN = {"alpha": True, "bravo": True, "charlie": True, "delta": False, "echo": False, "foxtrot": False}
JUDGE = {"alpha": True, "bravo": True, "charlie": False, "delta": True, "echo": False, "foxtrot": False}

SUITE = """
name: calib
evaluators:
  helpful:
    type: llm_judge
    criteria: The answer is helpful.
    model: openai/judge
tasks:
""" + "".join(
    f"  - id: {w}\n    prompt: say {w}\n    response: the word is {w}\n    evaluate: [helpful]\n"
    for w in WORDS
)


def _script(bench_fake_llm, verdicts):
    for word, passed in verdicts.items():
        bench_fake_llm.add(
            judge_verdict(passed=passed, reason=f"judge on {word}"), match=f"the word is {word}"
        )


def _labels(tmp_path, rows, name="labels.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_calibrate_reports_kappa_confusion_and_disagreements(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, JUDGE)
    bench_suite_file(SUITE)
    _labels(tmp_path, [{"task": w, "passed": p, "note": f"human on {w}"} for w, p in HUMAN.items()])
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "--output", "cal.json")
    assert result.exit_code == 0, result.output
    # By hand: 2 both pass, 1 judge-only pass (delta), 1 human-only pass (charlie), 2 both fail.
    # p_o = 4/6; p_e = (3/6)(3/6) + (3/6)(3/6) = 1/2; kappa = (2/3 - 1/2) / (1/2) = 1/3.
    data = json.loads((tmp_path / "cal.json").read_text())
    (judge,) = data["judges"]
    assert judge["judge"] == "helpful"
    assert judge["kappa"]["value"] == pytest.approx(1 / 3)
    assert judge["kappa"]["low"] <= 1 / 3 <= judge["kappa"]["high"]
    assert judge["confusion"] == {"both_pass": 2, "judge_only_pass": 1, "human_only_pass": 1, "both_fail": 2}
    assert judge["pass_precision"]["value"] == pytest.approx(2 / 3)
    assert judge["pass_recall"]["value"] == pytest.approx(2 / 3)
    assert judge["disagreements"] == [
        {"task": "charlie", "human": True, "judge": False, "human_note": "human on charlie",
         "judge_reason": "judge on charlie"},
        {"task": "delta", "human": False, "judge": True, "human_note": "human on delta",
         "judge_reason": "judge on delta"},
    ]  # fmt: skip
    assert "judge helpful: 6 labelled tasks, kappa 0.33 [" in result.stdout
    assert "  disagree on charlie: human pass, judge fail\n    human: human on charlie\n" in result.stdout
    calls = bench_fake_llm.count()
    assert calls == 6
    again = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl")
    assert again.exit_code == 0
    assert bench_fake_llm.count() == calls  # the LLM cache answered


def test_several_outputs_of_calibrate_are_each_written(bench_cli, bench_fake_llm, bench_suite_file, tmp_path):
    _script(bench_fake_llm, JUDGE)
    bench_suite_file(SUITE)
    _labels(tmp_path, [{"task": w, "passed": p} for w, p in HUMAN.items()])
    result = bench_cli(
        "calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "cal.html", "-o", "cal.json"
    )
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "cal.json").read_text())["judges"][0]["judge"] == "helpful"
    assert (tmp_path / "cal.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_calibrate_with_several_raters_reports_their_agreement(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, HUMAN)
    bench_suite_file(SUITE)
    rows = [{"task": w, "passed": p, "rater": "ann"} for w, p in HUMAN.items()]
    rows += [{"task": w, "passed": p, "rater": "bob"} for w, p in JUDGE.items()]
    _labels(tmp_path, rows)
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "cal.json")
    assert result.exit_code == 0, result.output
    (judge,) = json.loads((tmp_path / "cal.json").read_text())["judges"]
    # Krippendorff's nominal alpha of ann against bob, by hand: 12 values, 6 pass and 6 fail;
    # D_o = 4 disagreeing ordered pairs / 12 = 1/3; D_e = 2*6*6 / (12*11) = 6/11; alpha = 1 - 11/18.
    assert judge["inter_rater_alpha"] == pytest.approx(1 - 11 / 18)
    assert "raters' own agreement (Krippendorff's alpha, the ceiling): 0.39" in result.stdout


def test_calibrate_reads_csv_and_takes_responses_from_a_run(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, {"alpha": True, "bravo": False})
    bench_suite_file(SUITE)
    run = tmp_path / ".bench" / "runs" / "20260101-000000-abcd"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text("{}")
    # The run answered bravo with alpha's words: the judge (scripted on the words) passes both.
    rows = [
        {"id": "alpha", "response": "the word is alpha"},
        {"id": "bravo", "response": "the word is alpha"},
    ]
    (run / "results.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
    (tmp_path / "labels.csv").write_text("id,passed,note\nalpha,pass,\nbravo,fail,too short\n")
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.csv", "--run", "latest", "-o", "c.json")
    assert result.exit_code == 0, result.output
    (judge,) = json.loads((tmp_path / "c.json").read_text())["judges"]
    assert judge["labelled"] == 2
    assert judge["kappa"]["value"] == 0.0  # p_o = 1/2, p_e = (1/2)(1) + (1/2)(0) = 1/2
    assert judge["disagreements"] == [
        {
            "task": "bravo",
            "human": False,
            "judge": True,
            "human_note": "too short",
            "judge_reason": "judge on alpha",
        }
    ]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "labels.jsonl",
            '{"task": "alpha", "passed": true}\n{"task": "zulu", "passed": true}\n{"task": "yankee", "score": 1}\n',
            "error: labels.jsonl: labels name tasks that suite 'calib' does not have: zulu, yankee\n",
        ),
        (
            "labels.jsonl",
            '{"task": "alpha", "passed": true}\n{"task": "bravo", "note": "hmm"}\n',
            "error: labels.jsonl:2: label for task 'bravo' has neither passed nor score\n",
        ),
        (
            "labels.jsonl",
            '{"task": "alpha", "passed": true}\n\n{"task": "bravo", \n',
            "error: labels.jsonl:3: not a JSON line: Expecting property name enclosed in double quotes: "
            "line 1 column 19 (char 18)\n",
        ),
        (
            "labels.csv",
            "task,passed\nalpha,true\nbravo,true,extra\n",
            "error: labels.csv:3: expected 2 columns (task, passed)\n",
        ),
        (
            "labels.csv",
            "task,passed\nalpha,maybe\n",
            "error: labels.csv:2: passed must be true or false, not 'maybe'\n",
        ),
    ],
)
def test_calibrate_refuses_bad_labels(bench_cli, bench_suite_file, tmp_path, name, text, message):
    bench_suite_file(SUITE)
    (tmp_path / name).write_text(text)
    result = bench_cli("calibrate", "suite.yaml", "--labels", name)
    assert result.exit_code == 2
    assert result.stderr == message


def test_calibrate_refuses_a_suite_without_a_judge(bench_cli, bench_suite_file, tmp_path):
    bench_suite_file(
        "name: plain\ntasks:\n  - id: a\n    prompt: p\n    response: r\n    evaluate: [{type: contains, value: r}]\n"
    )
    (tmp_path / "labels.jsonl").write_text('{"task": "a", "passed": true}\n')
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl")
    assert result.exit_code == 2
    assert result.stderr == "error: suite.yaml: suite 'plain' has no judge evaluator to calibrate\n"


def _gated(bench_suite_file, tmp_path, where="judge", min_kappa=0.6):
    bar = f"calibration: {{labels: labels.jsonl, min_kappa: {min_kappa}}}"
    text = (
        SUITE.replace("    model: openai/judge\n", f"    model: openai/judge\n    {bar}\n")
        if where == "judge"
        else SUITE
    )
    if where == "suite":
        text = text.replace("name: calib\n", f"name: calib\n{bar}\n")
    bench_suite_file(text)
    _labels(tmp_path, [{"task": w, "passed": p} for w, p in HUMAN.items()])


def test_require_calibration_refuses_a_weak_judge_before_running(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, JUDGE)  # kappa 1/3 against the humans
    _gated(bench_suite_file, tmp_path)
    result = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert result.exit_code == 2
    assert result.stdout == (
        "calibration: judge 'helpful': kappa 0.33 [-0.50, 1.00], min_kappa 0.6 (labels.jsonl) - below the bar\n"
    )
    assert result.stderr == (
        "error: --require-calibration: below the bar: "
        "judge 'helpful': kappa 0.33 [-0.50, 1.00], min_kappa 0.6 (labels.jsonl)\n"
    )
    assert not (tmp_path / ".bench" / "runs").exists()  # no task ran
    assert bench_fake_llm.count() == 6  # the calibration's judge calls only


def test_require_calibration_accepts_a_strong_judge_and_caches(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, HUMAN)  # agrees on every label: kappa 1
    _gated(bench_suite_file, tmp_path, where="suite")
    result = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert result.stdout.startswith(
        "calibration: judge 'helpful': kappa 1.00 [1.00, 1.00], min_kappa 0.6 (labels.jsonl)\n"
    )
    assert result.exit_code == 1, result.output  # ran: three tasks fail their judge
    assert (tmp_path / ".bench" / "cache" / "calibration.json").is_file()
    # The result is read back from the cache: an entry edited by hand is what the next run reports.
    cache = tmp_path / ".bench" / "cache" / "calibration.json"
    entries = json.loads(cache.read_text())
    (key,) = entries
    cache.write_text(json.dumps({key: {**entries[key], "value": 0.5, "low": 0.25}}))
    again = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert again.exit_code == 2
    assert again.stderr == (
        "error: --require-calibration: below the bar: "
        "judge 'helpful': kappa 0.50 [0.25, 1.00], min_kappa 0.6 (labels.jsonl)\n"
    )
    # A changed labels file is another key: computed afresh.
    _labels(tmp_path, [{"task": w, "passed": p, "note": "again"} for w, p in HUMAN.items()])
    third = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert third.stdout.startswith("calibration: judge 'helpful': kappa 1.00 [1.00, 1.00]")


def test_without_require_calibration_a_weak_judge_is_reported_and_runs(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, JUDGE)
    _gated(bench_suite_file, tmp_path)
    result = bench_cli("run", "suite.yaml", "-q")
    assert result.stdout.startswith("calibration: judge 'helpful': kappa 0.33 [")
    assert result.exit_code == 1
    assert (tmp_path / ".bench" / "runs").is_dir()


def test_calibration_on_a_judge_only(bench_cli, bench_suite_file):
    bench_suite_file(
        "name: plain\ntasks:\n  - id: a\n    prompt: p\n    response: r\n"
        "    evaluate: [{type: contains, value: r, calibration: {labels: l.jsonl}}]\n"
    )
    result = bench_cli("validate", "suite.yaml")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: suite.yaml:6:43: tasks[0].evaluate[0].calibration: only a judge can be calibrated, not contains\n"
    )


def _stored_run(tmp_path, run_id="20260101-000000-abcd"):
    run = tmp_path / ".bench" / "runs" / run_id
    run.mkdir(parents=True)
    (run / "manifest.json").write_text("{}")
    rows = [
        {"id": w, "status": "passed", "response": f"the word is {w}",
         "evaluators": [{"name": "helpful", "passed": True, "reason": f"judge on {w}"}]}
        for w in WORDS[:4]
    ]  # fmt: skip
    (run / "results.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))


def test_label_walks_a_run_from_stdin_and_resumes(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bench.cli import app

    monkeypatch.chdir(tmp_path)
    _stored_run(tmp_path)
    runner = CliRunner()
    first = runner.invoke(app, ["label", "latest", "--rater", "ann"], input="p\nn\ntoo terse\nf\ns\nq\n")
    assert first.exit_code == 0, first.output
    assert (
        "== task alpha (passed)\nresponse:\nthe word is alpha\n  helpful: pass judge on alpha\n"
        in first.stdout
    )
    assert first.stdout.endswith("2 labels by ann from run 20260101-000000-abcd written to labels.jsonl\n")
    lines = [json.loads(x) for x in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert lines == [
        {"task": "alpha", "passed": True, "rater": "ann", "response": "the word is alpha"},
        {
            "task": "bravo",
            "passed": False,
            "rater": "ann",
            "note": "too terse",
            "response": "the word is bravo",
        },
    ]
    # Resumed: alpha and bravo are done; charlie (skipped before) comes first; x is not a key.
    second = runner.invoke(app, ["label", "latest", "--rater", "ann"], input="x\n9\n0\n")
    assert second.exit_code == 0, second.output
    assert "== task alpha" not in second.stdout
    assert "unknown key 'x'" in second.stdout
    lines = [json.loads(x) for x in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert lines[2:] == [
        {"task": "charlie", "score": 1.0, "rater": "ann", "response": "the word is charlie"},
        {"task": "delta", "score": 0.0, "rater": "ann", "response": "the word is delta"},
    ]
    # Another rater starts from the beginning.
    third = runner.invoke(app, ["label", "latest", "--rater", "bob", "--out", "bob.jsonl"], input="p\n")
    assert "== task alpha" in third.stdout
    assert third.stdout.endswith("1 labels by bob from run 20260101-000000-abcd written to bob.jsonl\n")


class _Terminal:
    """``bench label`` with its stdin on a pseudo-terminal, as a rater at a keyboard."""

    def __init__(self, tmp_path):
        self.master, self.slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench", "label", "latest", "--rater", "ann"],
            cwd=tmp_path,
            stdin=self.slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.seen = b""

    def wait_for(self, text: str, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while text.encode() not in self.seen:
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, f"no {text!r} within {timeout} s; seen: {self.seen.decode()!r}"
            self.seen += os.read(self.proc.stdout.fileno(), 4096)

    def press(self, key: str, timeout: float = 20) -> None:
        """One key, no Enter, once bench reads keys one by one (the terminal in raw mode): a key
        typed before that would be discarded by the switch to raw mode."""
        deadline = time.monotonic() + timeout
        while termios.tcgetattr(self.slave)[3] & termios.ICANON:
            assert time.monotonic() < deadline, f"bench never read a single key (before {key!r})"
            time.sleep(0.01)
        os.write(self.master, key.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()
        os.close(self.master)
        os.close(self.slave)


def test_label_reads_single_keys_on_a_terminal(tmp_path):
    _stored_run(tmp_path)
    terminal = _Terminal(tmp_path)
    try:
        terminal.wait_for("== task alpha")
        terminal.press("p")
        terminal.wait_for("== task bravo")
        terminal.press("n")
        terminal.wait_for("note (one line):")
        os.write(terminal.master, b"too terse\n")  # a note is a line
        terminal.press("f")
        terminal.wait_for("== task charlie")
        terminal.press("q")
        terminal.wait_for("2 labels by ann")
        assert terminal.proc.wait(timeout=20) == 0
    finally:
        terminal.close()
    lines = [json.loads(x) for x in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert [(x["task"], x["passed"], x.get("note")) for x in lines] == [
        ("alpha", True, None),
        ("bravo", False, "too terse"),
    ]


def test_label_unknown_run(bench_cli):
    result = bench_cli("label", "nope")
    assert result.exit_code == 2
    assert result.stderr == "error: no run 'nope' in .bench/runs (runs found: none)\n"


def test_calibrate_refuses_an_output_it_cannot_write_before_judging(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    bench_suite_file(SUITE)
    _script(bench_fake_llm, JUDGE)
    _labels(tmp_path, [{"task": "alpha", "passed": True}])
    (tmp_path / "folder").mkdir()
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "folder")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --output folder: refusing to replace a directory; write the report to a regular file\n"
    )
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "no/c.json")
    assert result.stderr == "error: cannot write no/c.json: folder no does not exist\n"
    assert bench_fake_llm.count() == 0


def test_label_prints_a_runs_text_without_control_characters_d03(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bench.cli import app

    monkeypatch.chdir(tmp_path)
    run = tmp_path / ".bench" / "runs" / "20260101-000000-abcd"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text("{}")
    row = {
        "id": "t\x1b[2J1",
        "status": "failed",
        "prompt": "say\x07 it",
        "response": "line one\n\x1b]8;;http://x\x07PASSED\x1b]8;;\x07\tend",
        "evaluators": [{"name": "judge\x1b[31m", "passed": False, "reason": "bad\x00 answer"}],
    }
    (run / "results.jsonl").write_text(json.dumps(row) + "\n")
    result = CliRunner().invoke(app, ["label", "latest", "--rater", "ann"], input="q\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        "== task t[2J1 (failed)\nprompt:\nsay it\nresponse:\nline one\n]8;;http://xPASSED]8;;\tend\n"
        "  judge[31m: fail bad answer\n"
    )


def test_label_walks_first_repeats_and_ids_holding_an_at_sign(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bench.cli import app

    monkeypatch.chdir(tmp_path)
    run = tmp_path / ".bench" / "runs" / "20260101-000000-abcd"
    run.mkdir(parents=True)
    (run / "manifest.json").write_text("{}")
    rows = [
        {"id": "user@example", "status": "passed", "response": "first"},
        {"id": "user@example", "repeat": 1, "status": "passed", "response": "second"},
    ]
    (run / "results.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))
    result = CliRunner().invoke(app, ["label", "latest", "--rater", "ann"], input="p\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("== task") == 1
    labels = [json.loads(x) for x in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert labels == [{"task": "user@example", "passed": True, "rater": "ann", "response": "first"}]


def test_label_latest_without_runs(bench_cli):
    result = bench_cli("label", "latest")
    assert result.exit_code == 2
    assert result.stderr == "error: bench label latest: no run in .bench/runs\n"


def test_label_reads_a_run_in_progress_without_its_lock_or_repairing_it(tmp_path, monkeypatch):
    """bench label and calibrate --run only read: a run another process holds (its lock taken, a
    torn last line being written) is read as bench show reads it, and left exactly as it was."""
    from filelock import FileLock
    from typer.testing import CliRunner

    from bench.cli import app

    monkeypatch.chdir(tmp_path)
    _stored_run(tmp_path)
    run = tmp_path / ".bench" / "runs" / "20260101-000000-abcd"
    with open(run / "results.jsonl", "a") as results:
        results.write('{"id":"echo","status":"pass')  # a task still being written
    before = (run / "results.jsonl").read_bytes()
    with FileLock(str(run / "lock"), timeout=0):
        result = CliRunner().invoke(app, ["label", "latest", "--rater", "ann"], input="p\nq\n")
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("1 labels by ann from run 20260101-000000-abcd written to labels.jsonl\n")
    assert (run / "results.jsonl").read_bytes() == before
    assert sorted(p.name for p in run.iterdir()) == ["lock", "manifest.json", "results.jsonl"]


def test_latest_is_the_run_started_last_for_label_as_for_show(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bench.cli import app

    monkeypatch.chdir(tmp_path)
    _stored_run(tmp_path, "20260101-000000-bbbb")
    _stored_run(tmp_path, "20260101-000000-aaaa")  # same second, started later: newer
    runs = tmp_path / ".bench" / "runs"
    (runs / "20260101-000000-bbbb" / "manifest.json").write_text('{"started_at": "2026-01-01T00:00:00"}')
    (runs / "20260101-000000-aaaa" / "manifest.json").write_text('{"started_at": "2026-01-01T00:00:01"}')
    result = CliRunner().invoke(app, ["label", "latest", "--rater", "ann"], input="q\n")
    assert result.stdout.endswith("0 labels by ann from run 20260101-000000-aaaa written to labels.jsonl\n")


def test_calibrate_with_a_run_that_lacks_a_labelled_task(bench_cli, bench_suite_file, tmp_path):
    bench_suite_file(SUITE)
    _stored_run(tmp_path)  # alpha..delta only
    _labels(tmp_path, [{"task": "echo", "passed": True}])
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "--run", "latest")
    assert result.exit_code == 2
    assert result.stderr == "error: the run has no response for labelled task 'echo'\n"


def test_require_calibration_without_any_bar(bench_cli, bench_suite_file):
    bench_suite_file(SUITE)
    result = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert result.exit_code == 2
    assert result.stderr == "error: --require-calibration: no judge of this suite has a calibration bar\n"


def test_a_live_target_suite_is_calibrated_on_the_responses_kept_in_the_labels(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, HUMAN)
    live = SUITE.replace("name: calib\n", "name: calib\ntarget: {type: litellm, model: openai/answerer}\n")
    live = live.replace(
        "    model: openai/judge\n", "    model: openai/judge\n    calibration: {labels: labels.jsonl}\n"
    )
    bench_suite_file("".join(line for line in live.splitlines(True) if "response:" not in line))
    rows = [{"task": w, "passed": p} for w, p in HUMAN.items()]
    _labels(tmp_path, rows)
    refused = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert refused.exit_code == 2
    assert refused.stderr == (
        "error: suite.yaml: task 'alpha' has no response to judge: record one in the suite, keep it "
        "in the labels (bench label writes it), or give --run RUN_ID\n"
    )
    _labels(tmp_path, [{**row, "response": f"the word is {row['task']}"} for row in rows])
    result = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert result.stdout.startswith(
        "calibration: judge 'helpful': kappa 1.00 [1.00, 1.00], min_kappa 0.6 (labels.jsonl)\n"
    )
    assert (tmp_path / ".bench" / "runs").is_dir()  # the gate passed and the suite ran


def test_a_calibration_cache_entry_that_is_not_whole_is_measured_again(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, HUMAN)
    _gated(bench_suite_file, tmp_path)
    assert bench_cli("run", "suite.yaml", "--require-calibration", "-q").exit_code == 1
    cache = tmp_path / ".bench" / "cache" / "calibration.json"
    (key,) = json.loads(cache.read_text())
    cache.write_text(json.dumps({key: {"value": 0.1}}))  # edited by hand: no interval, no method
    again = bench_cli("run", "suite.yaml", "--require-calibration", "-q")
    assert again.exit_code == 1, again.output  # measured again (from the LLM cache), not an internal error
    assert again.stdout.startswith("calibration: judge 'helpful': kappa 1.00 [1.00, 1.00]")
    assert json.loads(cache.read_text())[key]["low"] == 1.0
    assert not list(cache.parent.glob(".calibration.json.*.tmp"))


def test_bench_run_require_calibration_refuses_a_weak_judge_with_the_cli_message(
    bench_fake_llm, bench_suite_file, tmp_path, monkeypatch
):
    import bench

    monkeypatch.chdir(tmp_path)
    _script(bench_fake_llm, JUDGE)  # kappa 1/3 against the humans
    _gated(bench_suite_file, tmp_path)
    with pytest.raises(bench.ConfigError) as caught:
        bench.run(tmp_path / "suite.yaml", require_calibration=True)
    # What `bench run --require-calibration` prints after "error: " (exit 2 there).
    assert str(caught.value) == (
        "--require-calibration: below the bar: "
        "judge 'helpful': kappa 0.33 [-0.50, 1.00], min_kappa 0.6 (labels.jsonl)"
    )
    assert caught.value.exit_code == 2
    assert not (tmp_path / ".bench" / "runs").exists()  # no task ran
    assert bench_fake_llm.count() == 6  # the calibration's judge calls only


def test_bench_arun_require_calibration_accepts_a_strong_judge(
    bench_fake_llm, bench_suite_file, tmp_path, monkeypatch
):
    import asyncio

    import bench

    monkeypatch.chdir(tmp_path)
    _script(bench_fake_llm, HUMAN)  # agrees on every label: kappa 1
    _gated(bench_suite_file, tmp_path, where="suite")
    result = asyncio.run(bench.arun(tmp_path / "suite.yaml", require_calibration=True))
    assert (result.summary.total, result.summary.passed) == (6, 3)


def test_bench_run_require_calibration_without_a_bar_is_refused(bench_suite_file, tmp_path, monkeypatch):
    import bench

    monkeypatch.chdir(tmp_path)
    bench_suite_file(SUITE)
    with pytest.raises(bench.ConfigError) as caught:
        bench.run(tmp_path / "suite.yaml", require_calibration=True)
    assert str(caught.value) == "--require-calibration: no judge of this suite has a calibration bar"


HOSTILE = "</script><script>alert(1)</script> <img src=x onerror=alert(1)> \u2028 & done"


def _page_data(page: str) -> dict:
    import re

    (block,) = re.findall(r'<script type="application/json" id="bench-data">(.*?)</script>', page, re.S)
    return json.loads(block)


def _policy_admits_only_the_page_script(page: str) -> None:
    import base64
    import hashlib
    import re

    (script,) = re.findall(r"<script>(.*?)</script>", page, re.S)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    assert f"script-src 'sha256-{digest}'" in page
    assert "default-src 'none'" in page
    assert "http://" not in page
    assert "https://" not in page


def test_h07_calibrate_writes_an_html_page_with_hostile_reasons_inert(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    for word, passed in JUDGE.items():
        bench_fake_llm.add(
            judge_verdict(passed=passed, reason=f"judge on {word} {HOSTILE}"), match=f"the word is {word}"
        )
    bench_suite_file(SUITE)
    _labels(tmp_path, [{"task": w, "passed": p, "note": f"human on {w} {HOSTILE}"} for w, p in HUMAN.items()])
    as_json = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "cal.json")
    assert as_json.exit_code == 0, as_json.output
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "cal.html")
    assert result.exit_code == 0, result.output
    assert result.stdout == as_json.stdout
    page = (tmp_path / "cal.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<title>bench calibrate: calib</title>" in page
    assert "<img" not in page
    assert "alert(1)</script>" not in page
    assert "\u2028" not in page
    # The page holds what -o cal.json holds: kappa 1/3 with its interval, the confusion matrix, the
    # disagreements with both sides' reasons.
    data = _page_data(page)
    assert data == json.loads((tmp_path / "cal.json").read_text())
    (judge,) = data["judges"]
    assert judge["kappa"]["value"] == pytest.approx(1 / 3)
    assert judge["disagreements"][0]["human_note"] == f"human on charlie {HOSTILE}"
    assert judge["disagreements"][0]["judge_reason"] == f"judge on charlie {HOSTILE}"
    _policy_admits_only_the_page_script(page)
    assert "calibration.js" not in page
    assert "renderJudge" in page


def test_calibrate_html_refuses_a_folder_that_does_not_exist(bench_cli, bench_suite_file, tmp_path):
    bench_suite_file(SUITE)
    _labels(tmp_path, [{"task": "alpha", "passed": True}])
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "nowhere/cal.html")
    assert result.exit_code == 2
    assert result.stderr == "error: cannot write nowhere/cal.html: folder nowhere does not exist\n"


def test_the_run_records_each_judges_calibration_in_its_json_and_html_reports(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, JUDGE)  # kappa 1/3 against the humans
    _gated(bench_suite_file, tmp_path)
    result = bench_cli("run", "suite.yaml", "-q", "-o", "run.json", "--report", "html=run.html")
    assert result.exit_code == 1, result.output  # ran: without --require-calibration a weak judge runs
    (entry,) = json.loads((tmp_path / "run.json").read_text())["calibration"]
    assert entry["judge"] == "helpful"
    assert entry["kappa"]["value"] == pytest.approx(1 / 3)
    assert (entry["min_kappa"], entry["labels"], entry["passes"]) == (0.6, "labels.jsonl", False)
    import re

    page = (tmp_path / "run.html").read_text(encoding="utf-8")
    (block,) = re.findall(r'<script type="application/json" id="bench-run">(.*?)</script>', page, re.S)
    assert json.loads(block)["calibration"] == [entry]


def test_bench_run_records_calibration_without_requiring_it(
    bench_fake_llm, bench_suite_file, tmp_path, monkeypatch
):
    import bench

    monkeypatch.chdir(tmp_path)
    _script(bench_fake_llm, JUDGE)
    _gated(bench_suite_file, tmp_path)
    result = bench.run(tmp_path / "suite.yaml")
    (entry,) = result.report.extra["calibration"]
    assert (entry["judge"], entry["passes"]) == ("helpful", False)
    assert result.summary.total == 6


def test_a_run_without_calibration_bars_records_none(bench_cli, bench_fake_llm, bench_suite_file, tmp_path):
    _script(bench_fake_llm, JUDGE)
    bench_suite_file(SUITE)
    result = bench_cli("run", "suite.yaml", "-q", "-o", "run.json")
    assert result.exit_code == 1, result.output
    assert "calibration" not in json.loads((tmp_path / "run.json").read_text())


def test_labels_written_from_the_viewer_are_what_calibrate_reads(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    import re
    import threading
    import urllib.request

    from bench.report.viewer.labels import Labelling
    from bench.report.viewer.server import ViewServer

    _script(bench_fake_llm, JUDGE)
    bench_suite_file(SUITE)
    _stored_run(tmp_path)  # alpha..delta
    server = ViewServer(
        tmp_path / ".bench" / "runs", "127.0.0.1", 0, Labelling(tmp_path / "labels.jsonl", "ann")
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with urllib.request.urlopen(server.url + "run/latest", timeout=10) as page:
            token = re.search(r'name="bench-label-token" content="([^"]+)"', page.read().decode()).group(1)
        for word in WORDS[:4]:
            request = urllib.request.Request(
                server.url + "api/runs/20260101-000000-abcd/labels",
                data=json.dumps({"task": word, "passed": HUMAN[word]}).encode(),
                headers={"Content-Type": "application/json", "X-Bench-Token": token},
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                assert response.status == 200
    finally:
        server.shutdown()
        server.server_close()
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "--output", "cal.json")
    assert result.exit_code == 0, result.output
    # By hand: humans pass alpha, bravo, charlie and fail delta; the judge passes alpha, bravo, delta.
    # p_o = 2/4; p_e = (3/4)(3/4) + (1/4)(1/4) = 5/8; kappa = (1/2 - 5/8) / (3/8) = -1/3.
    (judge,) = json.loads((tmp_path / "cal.json").read_text())["judges"]
    assert judge["kappa"]["value"] == pytest.approx(-1 / 3)
    assert judge["confusion"] == {"both_pass": 2, "judge_only_pass": 1, "human_only_pass": 1, "both_fail": 0}


# People's scores on a five-level scale, and the judge's (0.9 and 0.3 sit nearest 1 and 0.25).
GRADED_HUMAN = {"alpha": 1.0, "bravo": 0.75, "charlie": 0.5, "delta": 0.25, "echo": 0.0, "foxtrot": 0.25}
GRADED_JUDGE = {"alpha": 1.0, "bravo": 0.9, "charlie": 0.3, "delta": 0.5, "echo": 0.0, "foxtrot": 0.0}


def test_calibrate_with_graded_scores_reports_weighted_kappa_and_alpha(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    for word, score in GRADED_JUDGE.items():
        verdict = judge_verdict(passed=score >= 0.5, score=score, reason=f"judge on {word}")
        bench_fake_llm.add(verdict, match=f"the word is {word}")
    bench_suite_file(SUITE)
    _labels(tmp_path, [{"task": w, "score": s} for w, s in GRADED_HUMAN.items()])
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "cal.json")
    assert result.exit_code == 0, result.output
    (judge,) = json.loads((tmp_path / "cal.json").read_text())["judges"]
    graded = judge["graded"]
    assert (graded["scale"], graded["tasks"]) == ([0.0, 0.25, 0.5, 0.75, 1.0], 6)
    # By hand, on the levels 0..4: humans 4,3,2,1,0,1; judge 4,4,1,2,0,0 (0.9 -> 4, 0.3 -> 1).
    # Weighted kappa = 1 - sum |h - j|^p over pairs / (sum over every human x judge value / 6):
    # linear: 4 / (62 / 6) -> 1 - 24/62; quadratic: 4 / (166 / 6) -> 1 - 24/166.
    assert graded["kappa_linear"]["value"] == pytest.approx(1 - 24 / 62)
    assert graded["kappa_quadratic"]["value"] == pytest.approx(1 - 24 / 166)
    # Krippendorff's alpha over the 12 pooled values (n_0..n_4 = 3, 3, 2, 1, 3), D_o / D_e with
    # D_o = 2 * sum delta(h, j) / 12 and D_e = sum n_c n_k delta(c, k) / (12 * 11).
    # interval, delta = (c - k)^2: D_o = 8/12, D_e = (2*12*68 - 2*22^2) / 132 = 664/132.
    assert graded["alpha_interval"]["value"] == pytest.approx(1 - (8 / 12) / (664 / 132))
    # ordinal, delta = (n_c + ... + n_k - (n_c + n_k) / 2)^2: the pairs' deltas 4, 6.25, 6.25 and
    # 9 give D_o = 51/12; over every pair of levels, D_e = 3276/132.
    assert graded["alpha_ordinal"]["value"] == pytest.approx(1 - (51 / 12) / (3276 / 132))
    for block in ("kappa_linear", "kappa_quadratic", "alpha_ordinal", "alpha_interval"):
        interval = graded[block]
        assert interval["method"] == "bootstrap"
        assert interval["low"] <= interval["value"] <= interval["high"], block

    def shown(block: dict[str, float]) -> str:
        return f"{block['value']:.2f} [{block['low']:.2f}, {block['high']:.2f}]"

    assert (
        "  on the humans' scale (0, 0.25, 0.5, 0.75, 1), 6 tasks:\n"
        f"    weighted kappa linear {shown(graded['kappa_linear'])}, "
        f"quadratic {shown(graded['kappa_quadratic'])}\n"
        f"    Krippendorff's alpha ordinal {shown(graded['alpha_ordinal'])}, "
        f"interval {shown(graded['alpha_interval'])}\n"
    ) in result.stdout
    assert "    weighted kappa linear 0.61 [" in result.stdout
    assert "    Krippendorff's alpha ordinal 0.83 [" in result.stdout


def test_calibrate_with_pass_fail_labels_reports_no_graded_agreement(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, JUDGE)
    bench_suite_file(SUITE)
    # Two levels of score are pass and fail again: kappa already says it.
    _labels(tmp_path, [{"task": w, "score": float(p)} for w, p in HUMAN.items()])
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "cal.json")
    assert result.exit_code == 0, result.output
    (judge,) = json.loads((tmp_path / "cal.json").read_text())["judges"]
    assert "spearman" in judge
    assert "graded" not in judge
    assert "weighted kappa" not in result.stdout


def test_the_humans_scale_keeps_the_levels_nobody_used():
    from bench.judging.calibrate import human_scale

    # Nobody gave 0.5, yet 0.25 and 0.75 are two steps apart on a five-level scale.
    assert human_scale([0.0, 0.25, 0.75, 1.0, 0.25]) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert human_scale([0.0, 5 / 9, 1.0]) == [k / 9 for k in range(10)]  # bench label's digit keys
    assert human_scale([0.123, 0.5, 1.0]) == [0.123, 0.5, 1.0]  # no step of 0.01 or coarser
    assert human_scale([0.0, 1.0, 1.0]) == []  # two levels are pass and fail: not graded


@pytest.mark.parametrize(
    ("rater", "said"),
    [
        ("ann", "rater 'ann' labelled task '{}' 2 times"),
        (None, "task '{}' was labelled, with no rater, 2 times"),
    ],
)
def test_n39_a_rater_who_labelled_a_task_twice_has_one_vote_the_last(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path, rater, said
):
    _script(bench_fake_llm, JUDGE)
    bench_suite_file(SUITE)
    rows = [{"task": w, "passed": p, "note": f"human on {w}"} for w, p in HUMAN.items()]
    # Each changed their mind: charlie first failed, delta first passed. Counted as two votes,
    # each became a tie (a fail): agreement on charlie, where the last labels disagree.
    rows = [{"task": "charlie", "passed": False}, {"task": "delta", "passed": True}, *rows]
    if rater is not None:
        rows = [{**row, "rater": rater} for row in rows]
    _labels(tmp_path, rows)
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "cal.json")
    assert result.exit_code == 0, result.output
    assert result.stderr == "".join(
        f"warning: labels.jsonl: {said.format(task)}; only the last label counts\n"
        for task in ("charlie", "delta")
    )
    (judge,) = json.loads((tmp_path / "cal.json").read_text())["judges"]
    assert judge["labelled"] == 6
    assert judge["confusion"] == {"both_pass": 2, "judge_only_pass": 1, "human_only_pass": 1, "both_fail": 2}
    assert [d["task"] for d in judge["disagreements"]] == ["charlie", "delta"]
    assert judge["disagreements"][0]["human_note"] == "human on charlie"


def test_calibrate_keeps_one_vote_for_each_of_several_raters(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    _script(bench_fake_llm, JUDGE)
    bench_suite_file(SUITE)
    rows = [{"task": w, "passed": p, "rater": "ann"} for w, p in HUMAN.items()]
    rows += [
        {"task": "charlie", "passed": True, "rater": "bob"},
        {"task": "charlie", "passed": False, "rater": "cy"},
    ]
    _labels(tmp_path, rows)
    result = bench_cli("calibrate", "suite.yaml", "--labels", "labels.jsonl", "-o", "cal.json")
    assert (result.exit_code, result.stderr) == (0, "")
    (judge,) = json.loads((tmp_path / "cal.json").read_text())["judges"]
    assert judge["confusion"]["human_only_pass"] == 1  # charlie: two passes of three


# -- labels files as other tools write them (N44) ------------------------------------------------------

ROWS = [{"task": w, "passed": p} for w, p in HUMAN.items()]


def _jsonl(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("labels.jsonl", _jsonl(ROWS).encode("utf-16")),  # with its byte order mark
        ("labels.jsonl", _jsonl(ROWS).encode("utf-32")),
        ("labels.jsonl", b"\xef\xbb\xbf" + _jsonl(ROWS).encode()),
        # Excel's "CSV UTF-8": a byte order mark before the header, CRLF line ends.
        (
            "labels.csv",
            b"\xef\xbb\xbftask,passed\r\n" + "".join(f"{w},{p}\r\n" for w, p in HUMAN.items()).encode(),
        ),
        ("labels.csv", ("task,passed\n" + "".join(f"{w},{p}\n" for w, p in HUMAN.items())).encode("utf-16")),
    ],
    ids=["utf-16", "utf-32", "utf-8-bom", "excel-csv", "utf-16-csv"],
)
def test_n44_labels_with_a_byte_order_mark_are_read(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path, name, data
):
    _script(bench_fake_llm, JUDGE)
    bench_suite_file(SUITE)
    (tmp_path / name).write_bytes(data)
    result = bench_cli("calibrate", "suite.yaml", "--labels", name, "-o", "cal.json")
    assert result.exit_code == 0, result.output
    (judge,) = json.loads((tmp_path / "cal.json").read_text())["judges"]
    assert judge["confusion"] == {"both_pass": 2, "judge_only_pass": 1, "human_only_pass": 1, "both_fail": 2}


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        (
            "labels.jsonl",
            _jsonl(ROWS[:1]).encode()
            + '{"task": "bravo", "passed": true, "note": "très bien"}\n'.encode("latin-1"),
            "error: labels.jsonl:2: not UTF-8 text (byte 0xe8): save the labels as UTF-8\n",
        ),
        (
            "labels.csv",
            "task,passed,note\nalpha,true,\nbravo,false,trop écrit\n".encode("cp1252"),
            "error: labels.csv:3: not UTF-8 text (byte 0xe9): save the labels as UTF-8\n",
        ),
        (
            "labels.jsonl",
            _jsonl(ROWS).encode("utf-16-le"),  # no byte order mark
            "error: labels.jsonl:1: a NUL character: UTF-16 text without its byte order mark? "
            "save the labels as UTF-8\n",
        ),
        (
            "labels.jsonl",
            _jsonl(ROWS[:1]).encode()
            + b'{"task": "bravo", "passed": true, "note": '
            + b"[" * 100_000
            + b"\n",
            "error: labels.jsonl:2: not a JSON line: nested too deeply\n",
        ),
        (
            "labels.jsonl",
            b"\xff\xfe" + _jsonl(ROWS).encode("utf-16-le")[:-1],
            "error: labels.jsonl: not UTF-16 text, though it begins as such (truncated data)\n",
        ),
    ],
    ids=["latin-1", "windows-1252-csv", "utf-16-without-bom", "nested-too-deeply", "utf-16-cut"],
)
def test_n44_labels_bench_cannot_read_are_refused_with_the_line(
    bench_cli, bench_suite_file, tmp_path, name, data, message
):
    bench_suite_file(SUITE)
    (tmp_path / name).write_bytes(data)
    result = bench_cli("calibrate", "suite.yaml", "--labels", name)
    assert (result.exit_code, result.stderr) == (2, message)


@pytest.mark.parametrize("command", [["label", "latest"], ["view", "--label", "--port", "0"]])
def test_n44_labels_are_never_written_as_json_lines_into_a_csv_file(bench_cli, tmp_path, command):
    _stored_run(tmp_path)
    result = bench_cli(*command, "--out", "labels.CSV")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --out labels.CSV: labels are written as JSON Lines, and a file ending in .csv is read as CSV: "
        "give it a .jsonl name\n"
    )
    assert not (tmp_path / "labels.CSV").exists()


def test_n44_bench_label_adds_to_a_file_whose_last_line_has_no_newline(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bench.cli import app
    from bench.scoring.labels import read_labels

    monkeypatch.chdir(tmp_path)
    _stored_run(tmp_path)
    (tmp_path / "labels.jsonl").write_text('{"task": "alpha", "passed": true, "rater": "ann"}')
    result = CliRunner().invoke(app, ["label", "latest", "--rater", "ann"], input="f\n")
    assert result.exit_code == 0, result.output
    assert [(la.task, la.passed) for la in read_labels(tmp_path / "labels.jsonl")] == [
        ("alpha", True),
        ("bravo", False),
    ]


def test_n44_bench_label_will_not_add_utf8_lines_to_a_utf16_file(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from bench.cli import app

    monkeypatch.chdir(tmp_path)
    _stored_run(tmp_path)
    before = _jsonl([{"task": "alpha", "passed": True, "rater": "ann"}]).encode("utf-16")
    (tmp_path / "labels.jsonl").write_bytes(before)
    result = CliRunner().invoke(app, ["label", "latest", "--rater", "ann"], input="f\n")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: labels.jsonl: the file is UTF-16 or UTF-32 text and bench adds UTF-8 lines: save it as UTF-8\n"
    )
    assert (tmp_path / "labels.jsonl").read_bytes() == before


def test_a_note_holding_a_line_separator_is_read_back_whole(tmp_path):
    from bench.judging.labelling import walk
    from bench.scoring.labels import read_labels

    out = tmp_path / "labels.jsonl"
    note = "pasted from a page:\u2028second line\x85third"
    rows = {"alpha": {"id": "alpha", "response": "the word is alpha"}}
    assert walk(rows, out, "ann", iter(["n", note, "p"]), lambda _: None) == 1
    (label,) = read_labels(out)
    assert label.note == note
