"""docs/judges.md's examples run: the compared runs, and the agentclash_judge suite."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.testing import judge_verdict, run_suite, write_suite

PAGE = (Path(__file__).resolve().parents[3] / "docs" / "judges.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```yaml\n(.*?)```", PAGE, re.DOTALL)


def _block(first_line: str) -> str:
    return next(b for b in BLOCKS if b.startswith(first_line))


def test_the_compare_example_ranks_the_candidate_first(bench_cli, bench_fake_llm, tmp_path):
    def prefers_paris(body):
        text = "\n".join(m["content"] for m in body["messages"] if m["role"] == "user")
        first = text.split("Response B:", 1)[0]
        return judge_verdict(winner="A" if "Paris" in first else "B")(body)

    bench_fake_llm.add(prefers_paris, match="France")
    bench_fake_llm.add(judge_verdict(winner="A"))  # position-biased on the other tasks: ties
    runs = []
    for name in ("baseline", "candidate"):
        path = write_suite(tmp_path, _block(f"# {name}.yaml"), f"{name}.yaml")
        runs.append(str(tmp_path / "runs" / run_suite(path, runs_dir=tmp_path / "runs").report.run_id))
    spec = re.search(r"--judge '(.*?)'", PAGE).group(1)
    result = bench_cli(
        "compare", *runs, "--suite", str(tmp_path / "candidate.yaml"), "--judge", spec, "--json"
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    best, _other = report["standings"]
    assert best["name"] == Path(runs[1]).name
    assert (best["wins"], best["losses"], best["ties"]) == (1, 0, 2)
    assert "What is the capital of France?" in json.dumps(bench_fake_llm.requests[0].body)
    # The page the docs write with --output FILE.html holds the same comparison.
    (html_spec, page_name) = re.search(r"--judge '(.*?)' --output (\S+\.html)", PAGE).groups()
    assert html_spec == spec
    shown = bench_cli(
        "compare", *runs, "--suite", str(tmp_path / "candidate.yaml"), "--judge", spec, "--output", page_name
    )
    assert shown.exit_code == 0, shown.output
    page = (tmp_path / page_name).read_text(encoding="utf-8")
    (block,) = re.findall(r'<script type="application/json" id="bench-data">(.*?)</script>', page, re.DOTALL)
    assert json.loads(block) == report


def test_the_agentclash_methods_example_runs(bench_fake_llm, tmp_path):
    example = _block("name: agentclash-methods")
    bench_fake_llm.add(judge_verdict(answer="NO", reason="not sure"), model="judge-b")
    bench_fake_llm.add(judge_verdict(answer="YES", reason="names Paris"), model="judge-a", match="Assertion:")
    bench_fake_llm.add(judge_verdict(score=5, reasoning="matches the reference", unable_to_judge=False))
    (task,) = run_suite(write_suite(tmp_path, example)).report.tasks()
    names, quality = task["evaluators"]
    # majority_vote over 1 YES and 1 NO is a tie, so NO: the assertion fails, and the disagreement is flagged
    assert (names["passed"], names["details"]["disagreement"]) == (False, True)
    assert (quality["passed"], quality["score"]) == (True, 1.0)
