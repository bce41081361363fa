"""The built-in agent target against the fake server with scripted tool calls, on real repositories."""

from __future__ import annotations

from typing import Any

from bench.testing import Reply, git_repo, run_suite, write_suite

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"


def script(*turns: Reply) -> Any:
    """Answer the agent's n-th model call with the n-th turn (judges are not used here)."""

    def respond(body: dict[str, Any]) -> Reply:
        done = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return turns[min(done, len(turns) - 1)]

    return respond


def tool(name: str, **arguments: Any) -> Reply:
    return Reply(
        content=None, tool_calls=[{"name": name, "arguments": arguments}], finish_reason="tool_calls"
    )


def suite(tmp_path, evaluate: str, target: str = "") -> dict[str, Any]:
    git_repo(tmp_path / "repo", {"calc.py": BUGGY})
    path = write_suite(
        tmp_path,
        f"""
        repo: repo
        target: {{type: agent, model: openai/fake-agent{target}}}
        tasks:
          - id: fix
            prompt: "Fix add() in calc.py."
            evaluate: {evaluate}
        """,
    )
    return next(iter(run_suite(path, cache=False).report.tasks()))


def test_the_agent_reads_edits_runs_and_answers(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(
        tool("read_file", path="calc.py"),
        tool("write_file", path="calc.py", content=FIXED),
        tool("run_command", command="python -c 'import calc; assert calc.add(2, 3) == 5; print(\"ok\")'"),
        Reply("Fixed add(); the check prints ok."),
    )
    evaluate = """
              - {type: git-diff, max_files_changed: 1}
              - {type: file_content_match, path: calc.py, value: "return a + b"}
              - {type: trajectory, mode: exact, expected: [read_file, write_file, run_command]}
              - {type: efficiency, max_steps: 4}
              - {type: recovery_behavior}"""
    task = suite(tmp_path, evaluate)
    assert task["status"] == "passed", task
    assert task["response"] == "Fixed add(); the check prints ok."
    assert [c["name"] for c in task["tool_calls"]] == ["read_file", "write_file", "run_command"]
    assert task["usage"]["input_tokens"] == 40  # 4 model calls of 10 prompt tokens each
    assert task["workspace"]["files"] == [{"path": "calc.py", "status": "modified", "added": 1, "removed": 1}]
    bodies = [r.body for r in bench_fake_llm.requests]
    assert [t["function"]["name"] for t in bodies[0]["tools"]] == [
        "read_file",
        "write_file",
        "list_dir",
        "run_command",
    ]
    results = [m["content"] for m in bodies[-1]["messages"] if m["role"] == "tool"]
    assert results[0] == BUGGY
    assert results[1] == f"wrote {len(FIXED)} bytes to calc.py"
    assert results[2] == "exit code 0\nok"


def test_paths_leaving_the_workspace_are_refused_and_reported_to_the_model(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(
        tool("write_file", path="../escaped.txt", content="x"),
        tool("read_file", path="/etc/passwd"),
        tool("run_command", command="exit 3"),
        Reply("I could not do it."),
    )
    task = suite(tmp_path, "{type: scope_adherence}")
    assert not (tmp_path / "escaped.txt").exists()
    assert task["workspace"]["escapes"] == []
    assert task["passed"]  # nothing changed, nothing escaped
    results = [m["content"] for m in bench_fake_llm.requests[-1].body["messages"] if m["role"] == "tool"]
    assert results == [
        "error: path escapes the workspace: ../escaped.txt",
        "error: path escapes the workspace: /etc/passwd (absolute paths are refused)",
        "exit code 3",
    ]


def test_the_agent_stops_at_max_steps_and_says_so(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(tool("list_dir"))
    task = suite(tmp_path, "{type: efficiency, max_steps: 10}", target=", max_steps: 3")
    assert task["response"] == "(stopped: max_steps 3 reached)"
    assert len(bench_fake_llm.requests) == 3
    assert [c["name"] for c in task["tool_calls"]] == ["list_dir"] * 3


def test_a_command_that_hangs_is_stopped_at_command_timeout(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(tool("run_command", command="sleep 60"), Reply("gave up"))
    task = suite(tmp_path, "{type: recovery_behavior}", target=", command_timeout: 1")
    results = [m["content"] for m in bench_fake_llm.requests[-1].body["messages"] if m["role"] == "tool"]
    assert results[0].startswith("error: timed out after 1 s")
    assert task["evaluators"][0]["reason"] == "recovered from 0 of 1 failed calls"


def test_c13_an_answer_cut_at_the_token_limit_is_flagged_truncated(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(Reply("I fixed add() and the", finish_reason="length"))
    task = suite(tmp_path, "{type: contains, value: fixed}")
    assert task["response"] == "I fixed add() and the"
    assert task["truncated"] is True
    assert task["truncation"] == "finish_reason=length: the model stopped at its token limit"
