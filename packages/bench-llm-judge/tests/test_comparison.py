"""``bench compare RUN_A RUN_B --judge``: pairwise and n-wise judging against the fake server."""

from __future__ import annotations

import json

import pytest

from bench.testing import judge_verdict, run_suite


def _run(tmp_path, name: str, responses: dict[str, str]) -> str:
    tasks = "".join(
        f"  - id: {task}\n    prompt: Name the capital of {task}.\n    response: {json.dumps(text)}\n"
        f"    evaluate: {{type: contains, value: x}}\n"
        for task, text in responses.items()
    )
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\ntarget: {{type: echo}}\ntasks:\n{tasks}", encoding="utf-8")
    outcome = run_suite(path, runs_dir=tmp_path / "runs")
    return str(tmp_path / "runs" / outcome.report.run_id)


def _user_text(body) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "user")


def _prefers(word: str):
    """A judge that prefers whichever response contains ``word``, wherever it is shown."""

    def respond(body):
        text = _user_text(body)
        first = text.split("Response B:", 1)[0]
        return judge_verdict(winner="A" if word in first else "B", reason=f"has {word}")(body)

    return respond


def _compare(bench_cli, *args):
    result = bench_cli("compare", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture
def two_runs(tmp_path):
    good = _run(tmp_path, "good", {"france": "Paris", "italy": "Rome", "spain": "Madrid"})
    bad = _run(tmp_path, "bad", {"france": "Lyon", "italy": "Milan", "spain": "Sevilla"})
    return good, bad


def test_a_judge_that_always_prefers_the_first_position_yields_ties_not_wins(
    bench_cli, bench_fake_llm, two_runs
):
    bench_fake_llm.add(judge_verdict(winner="A", reason="the first one"))
    report = _compare(bench_cli, *two_runs, "--judge", "{type: pairwise, model: openai/fake}")
    assert bench_fake_llm.count() == 6  # 3 tasks x both orders
    assert [t["pairs"][0]["winner"] for t in report["tasks"]] == ["tie", "tie", "tie"]
    for standing in report["standings"]:
        assert (standing["wins"], standing["losses"], standing["ties"]) == (0, 0, 3)
        assert standing["strength"] == pytest.approx(0.5)
        assert standing["win_rate"]["value"] == pytest.approx(0.5)
        assert standing["rank"] == 1


def test_the_better_run_wins_whatever_its_position(bench_cli, bench_fake_llm, two_runs):
    good, bad = two_runs
    bench_fake_llm.add(_prefers("Paris"), match="Paris")
    bench_fake_llm.add(_prefers("Rome"), match="Rome")
    bench_fake_llm.add(_prefers("Sevilla"), match="Sevilla")
    report = _compare(bench_cli, bad, good, "--judge", "{type: pairwise, model: openai/fake}")
    # Each task was shown in both orders, and the orders were mapped back to the runs.
    assert report["tasks"][0]["orders"] == [
        [report["targets"][0], report["targets"][1]],
        report["targets"][::-1],
    ]
    first, second = report["standings"]
    assert first["name"] == good.rsplit("/", 1)[-1]
    assert (first["wins"], first["losses"], first["ties"]) == (2, 1, 0)
    # Bradley-Terry with 2 wins to 1: strengths 2:1; Wilson interval of 2/3 at 95%.
    assert first["strength"] / second["strength"] == pytest.approx(2.0, rel=1e-4)
    assert first["win_rate"]["value"] == pytest.approx(2 / 3)
    assert first["win_rate"]["low"] == pytest.approx(0.2077, abs=1e-4)
    assert first["win_rate"]["high"] == pytest.approx(0.9385, abs=1e-4)


def test_the_console_shows_the_standings_and_the_prompts_with_suite(
    bench_cli, bench_fake_llm, two_runs, tmp_path
):
    bench_fake_llm.add(judge_verdict(winner="tie"))
    result = bench_cli("compare", *two_runs, "--judge", "{type: pairwise, model: openai/fake}")
    assert result.exit_code == 0, result.output
    assert "3 tasks judged by pairwise" in result.output
    assert "50.0%" in result.output
    assert "12.5%" in result.output
    assert "its prompt is not stored" in _user_text(bench_fake_llm.requests[0].body)
    sent = _user_text(bench_fake_llm.requests[0].body)
    assert sent.count("<response-") == 2  # the responses are fenced as data


def test_n_wise_rotates_cyclically_with_position_debiasing(bench_cli, bench_fake_llm, tmp_path):
    runs = [_run(tmp_path, f"r{k}", {"france": f"answer {k}"}) for k in range(3)]

    def first_is_best(body):  # a judge that ranks by position: A first, C last
        ranking = [{"agent_label": label, "rank": k + 1, "reasoning": ""} for k, label in enumerate("ABC")]
        return judge_verdict(ranking=ranking)(body)

    bench_fake_llm.add(first_is_best)
    spec = "{type: n_wise, prompt: Which is most accurate?, model: openai/fake, samples: 3, position_debiasing: true}"
    report = _compare(bench_cli, *runs, "--judge", spec)
    (task,) = report["tasks"]
    names = report["targets"]
    assert task["orders"] == [names, names[1:] + names[:1], names[2:] + names[:2]]
    # Every run sat in every position once: equal Borda scores (AgentClash's n_wise score).
    assert [s["borda"] for s in report["standings"]] == [pytest.approx(0.5)] * 3
    assert "Which is most accurate?" in _user_text(bench_fake_llm.requests[0].body)
    assert "not on what it claims" not in bench_fake_llm.requests[0].body["messages"][0]["content"]
    assert (
        "not what it claims about its own quality"
        in bench_fake_llm.requests[0].body["messages"][0]["content"]
    )


def test_n_wise_without_enough_samples_falls_back_to_one_order_with_a_warning(
    bench_cli, bench_fake_llm, tmp_path
):
    runs = [_run(tmp_path, f"r{k}", {"france": f"answer {k}"}) for k in range(3)]
    ranking = [{"agent_label": label, "rank": k + 1} for k, label in enumerate("ABC")]
    bench_fake_llm.add(judge_verdict(ranking=ranking))
    spec = "{type: n_wise, prompt: Rank them., model: openai/fake, samples: 2, position_debiasing: true}"
    report = _compare(bench_cli, *runs, "--judge", spec)
    assert report["warnings"] == [
        "position_debiasing requires samples >= N_agents (got samples=2, N=3); falling back to fixed ordering"
    ]
    assert report["tasks"][0]["orders"] == [report["targets"]] * 2
    assert [s["borda"] for s in report["standings"]] == [1.0, 0.5, 0.0]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{type: contains, value: x}", "contains judges one response at a time; a comparison needs a judge"),
        ("[pairwise]", "--judge: expected a mapping such as '{type: pairwise, model: ...}'"),
        ("{type: n_wise, model: openai/fake}", "prompt: is required for n_wise mode"),
        ("{type: n_wise, prompt: x, model: openai/fake, samples: 11}", "samples: must be at most 10"),
    ],
)
def test_bad_judges_are_refused_with_a_message(bench_cli, two_runs, spec, message):
    result = bench_cli("compare", *two_runs, "--judge", spec)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_more_than_two_runs_need_a_judge(bench_cli, two_runs):
    result = bench_cli("compare", *two_runs, two_runs[0])
    assert result.exit_code == 2
    assert "more than two runs can only be compared with --judge" in result.output


def test_a_pairwise_judge_in_a_suite_says_how_to_use_it(bench_suite_file, bench_fake_llm):
    path = bench_suite_file(
        "tasks:\n  - id: t\n    response: Paris\n    evaluate: {type: pairwise, model: openai/fake}\n"
    )
    (task,) = run_suite(path).report.tasks()
    assert task["status"] == "error"
    assert "pairwise compares the responses of several runs to one task: use bench compare" in (
        task["evaluators"][0]["reason"] or task["evaluators"][0].get("error", "")
    )


def test_output_reports_can_be_compared_too(bench_cli, bench_fake_llm, tmp_path):
    for name, answer in (("a", "Paris"), ("b", "Lyon")):
        (tmp_path / f"{name}.yaml").write_text(
            f"name: {name}\ntarget: {{type: echo}}\ntasks:\n"
            f"  - {{id: france, prompt: p, response: {answer}, evaluate: {{type: contains, value: x}}}}\n",
            encoding="utf-8",
        )
        bench_cli("run", str(tmp_path / f"{name}.yaml"), "-o", str(tmp_path / f"{name}.json"))
    bench_fake_llm.add(_prefers("Paris"))
    report = _compare(
        bench_cli,
        str(tmp_path / "b.json"),
        str(tmp_path / "a.json"),
        "--judge",
        "{type: pairwise, model: openai/fake}",
    )
    assert [(s["wins"], s["losses"]) for s in report["standings"]] == [(1, 0), (0, 1)]
    assert report["standings"][0]["strength"] == pytest.approx(1.0)


def test_two_targets_of_one_run_are_judged_against_each_other(bench_cli, bench_fake_llm, tmp_path):
    """`RUN:LABEL` names one target of a run of several; with --suite the judge sees each prompt."""
    (tmp_path / "two.yaml").write_text(
        "name: two\ntargets:\n  - {type: echo}\n  - {type: command, label: upper, command: [tr, a-z, A-Z]}\n"
        "tasks:\n  - {id: greet, prompt: say hello, evaluate: {type: contains, value: x}}\n"
        "  - {id: name, prompt: name paris, evaluate: {type: contains, value: x}}\n",
        encoding="utf-8",
    )
    bench_cli("run", "two.yaml", "-o", "two.json")

    def shown_first(body) -> str:  # response A alone: the prompt above it holds the words too
        return _user_text(body).split("Response A:", 1)[1].split("Response B:", 1)[0]

    def prefers(word: str):
        return lambda body: judge_verdict(winner="A" if word in shown_first(body) else "B")(body)

    bench_fake_llm.add(prefers("NAME PARIS"), match="name paris")  # upper wins the second task
    bench_fake_llm.add(prefers("say hello"), match="say hello")  # echo wins the first
    report = _compare(
        bench_cli, "two.json:echo", "two.json:upper", "--judge", "{type: pairwise, model: openai/fake}",
        "--suite", "two.yaml",
    )  # fmt: skip
    assert [t["task"] for t in report["tasks"]] == ["greet", "name"]
    assert [t["pairs"][0]["winner"] for t in report["tasks"]] == [report["targets"][0], report["targets"][1]]
    assert [(s["wins"], s["losses"]) for s in report["standings"]] == [(1, 1), (1, 1)]
    assert "name paris" in _user_text(bench_fake_llm.requests[-1].body)


def test_compare_writes_the_ranking_as_an_html_page(bench_cli, bench_fake_llm, two_runs, tmp_path):
    import re

    good, bad = two_runs
    bench_fake_llm.add(_prefers("Paris"), match="Paris")
    bench_fake_llm.add(_prefers("Rome"), match="Rome")
    bench_fake_llm.add(_prefers("Sevilla"), match="Sevilla")
    spec = "{type: pairwise, model: openai/fake}"
    report = _compare(bench_cli, bad, good, "--judge", spec)
    result = bench_cli("compare", bad, good, "--judge", spec, "-o", "cmp.html")
    assert result.exit_code == 0, result.output
    assert "3 tasks judged by pairwise" in result.stdout  # the console summary as without -o
    page = (tmp_path / "cmp.html").read_text(encoding="utf-8")
    names = report["targets"]
    assert f"<title>bench compare: {names[0]} vs {names[1]}</title>" in page
    (block,) = re.findall(r'<script type="application/json" id="bench-data">(.*?)</script>', page, re.S)
    assert json.loads(block) == report  # standings with Wilson intervals, Bradley-Terry, verdicts
    assert page.count("<script>") == 1
    assert "default-src 'none'" in page
    assert "Bradley-Terry strength" in page  # the page script that shows it is inlined
