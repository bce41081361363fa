"""promptfoo's ``_conversation`` and ``storeOutputAs`` run in order by the promptfoo-serial target
(their verdicts against promptfoo's own are in the conformance cases ``conversation-var`` and
``store-output-as``); what bench cannot keep (a resume, another executor, a repeat) is refused,
never run with part of the state."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError
from bench.testing import Reply, run_suite
from bench_formats.promptfoo.loader import PromptfooLoader

STORE = """\
prompts: ['{{ q }}']
providers: [echo]
tests:
  - vars: {q: Ada}
    options: {storeOutputAs: name}
  - vars: {q: 'Hello {{ name }}'}
"""
CHAT = """\
prompts:
  - |-
    [{% for turn in _conversation %}
      {"role": "user", "content": {{ turn.input | dump }}},
      {"role": "assistant", "content": {{ turn.output | dump }}},
    {% endfor %}
      {"role": "user", "content": {{ question | dump }}}]
providers:
  - id: openai:chat:gpt-4o-mini
    config: {apiBaseUrl: API}
tests:
  - vars: {question: Hi}
  - vars: {question: Again}
"""


def _config(folder: Path, text: str) -> Path:
    path = folder / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _refusal(folder: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(_config(folder, text))
    return caught.value.message


def test_a_store_output_as_config_runs_one_at_a_time_through_promptfoo_serial(tmp_path: Path) -> None:
    data = PromptfooLoader().load(_config(tmp_path, STORE)).data
    assert data["concurrency"] == 1
    assert data["target"] == {
        "type": "promptfoo-serial",
        "target": {"type": "echo"},
        "uses": "storeOutputAs",
    }
    plans = [task["metadata"]["promptfoo_serial"] for task in data["tasks"]]
    assert plans == [
        {"store_as": "name", "index": 0},
        {
            "template": "{{ q }}",
            "chat": False,
            "key": '["echo", "{{ q }}", 0, null]',
            "var_templates": {"q": "Hello {{ name }}"},
            "index": 1,
        },
    ]


def test_disable_conversation_var_renders_it_empty_as_promptfoo_does(tmp_path: Path) -> None:
    data = (
        PromptfooLoader()
        .load(
            _config(
                tmp_path,
                "prompts: ['[{{ _conversation }}] {{ q }}']\nproviders: [echo]\n"
                "tests:\n  - vars: {q: hi}\n    options: {disableConversationVar: true}\n",
            )
        )
        .data
    )
    assert "concurrency" not in data
    assert data["tasks"][0]["prompt"] == "[] hi"  # promptfoo: no _conversation var, rendered empty


def test_the_conversation_reaches_a_model_as_earlier_messages(bench_cli: Any, bench_fake_llm: Any) -> None:
    bench_fake_llm.add(Reply("Hello there"), times=1).add(Reply("Hello again"))
    _config(Path.cwd(), CHAT.replace("API", bench_fake_llm.url))
    result = bench_cli("run", "promptfooconfig.yaml", "-o", "out.json")
    assert result.exit_code == 0, result.output
    second = bench_fake_llm.requests[-1].body["messages"]
    assert second == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello there"},
        {"role": "user", "content": "Again"},
    ]
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    assert [t["response"] for t in tasks] == ["Hello there", "Hello again"]


def test_resume_of_a_store_output_as_config_is_refused_up_front(bench_cli: Any) -> None:
    _config(Path.cwd(), STORE)
    assert bench_cli("run", "promptfooconfig.yaml").exit_code == 0
    result = bench_cli("run", "promptfooconfig.yaml", "--resume", "latest")
    assert result.exit_code == 2, result.output
    assert (
        "--resume cannot finish this run: promptfoo's storeOutputAs come from the earlier tasks "
        "answered in this process, and bench does not store that state; run the suite again "
        "without --resume"
    ) in " ".join(result.output.split())


def test_another_executor_is_refused_up_front(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Refused up front, with the target's reason: the check holds without bench-ray installed."""
    monkeypatch.chdir(tmp_path)
    _config(tmp_path, STORE)
    with pytest.raises(ConfigError) as refused:
        run_suite(Path("promptfooconfig.yaml").resolve(), executor="ray")
    assert str(refused.value) == (
        "--executor ray cannot run this suite: promptfoo's storeOutputAs come from the earlier "
        "tasks answered in this process, and bench does not store that state; run it with the "
        "local executor"
    )


def test_a_repeat_is_an_error_never_run_without_the_state(bench_cli: Any) -> None:
    _config(Path.cwd(), STORE)
    result = bench_cli("run", "promptfooconfig.yaml", "--repeat", "2", "-o", "out.json")
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    repeats = [t for t in tasks if t.get("repeat")]
    assert repeats, result.output
    for task in repeats:
        assert task["status"] == "error"
        assert task["error"] == (
            f"task '{task['id']}' is answered out of promptfoo's order (a repeat): promptfoo's "
            "storeOutputAs come from the tasks before it, answered first; run the config without "
            "--repeat and without --concurrency"
        )


def test_evaluate_options_repeat_is_refused(tmp_path: Path) -> None:
    message = _refusal(tmp_path, STORE + "evaluateOptions: {repeat: 2}\n")
    assert message == (
        "evaluateOptions.repeat with storeOutputAs: bench keeps promptfoo's state only for one "
        "answer per task; run the config without repeat"
    )


def test_a_target_with_settings_is_refused(tmp_path: Path) -> None:
    path = _config(tmp_path, STORE)
    from bench.testing import LoadOptions

    with pytest.raises(ConfigError) as caught:
        PromptfooLoader(LoadOptions(target={"type": "litellm", "model": "openai/x"})).load(path)
    assert caught.value.message == (
        "--target with settings cannot run a config that uses storeOutputAs: name a provider of "
        "the config or a bare target type"
    )


FAILING = """\
prompts: ['{% for turn in _conversation %}[{{ turn.input }} -> {{ turn.output }}] {% endfor %}{{ q }}']
providers:
  - id: openai:chat:gpt-4o-mini
    config: {apiBaseUrl: API}
tests:
  - vars: {q: Broken}
  - vars: {q: Again}
"""


def test_a_failed_call_is_still_an_earlier_turn_with_an_empty_output(
    bench_cli: Any, bench_fake_llm: Any
) -> None:
    from bench.testing import Fault

    bench_fake_llm.add(Fault(400, message="bad request"), times=1).add(Reply("fine"))
    _config(Path.cwd(), FAILING.replace("API", bench_fake_llm.url))
    result = bench_cli("run", "promptfooconfig.yaml", "-o", "out.json")
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    assert [t["status"] for t in tasks] == ["error", "passed"], result.output
    assert bench_fake_llm.requests[-1].body["messages"] == [{"role": "user", "content": "[Broken -> ] Again"}]


def test_a_task_selection_runs_with_the_state_of_the_tasks_it_runs(bench_cli: Any) -> None:
    _config(
        Path.cwd(),
        "prompts: ['{% for turn in _conversation %}{{ turn.input }} | {% endfor %}{{ q }}']\n"
        "providers: [echo]\ntests:\n  - description: one\n    vars: {q: one}\n"
        "  - description: two\n    vars: {q: two}\n  - description: three\n    vars: {q: three}\n",
    )
    result = bench_cli("run", "promptfooconfig.yaml", "-k", "one or three", "-o", "out.json")
    assert result.exit_code == 0, result.output
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    assert [t["response"] for t in tasks] == ["one", "one | three"]


def test_two_runs_of_one_suite_in_one_process_keep_their_own_state(tmp_path: Path) -> None:
    """The state was one per suite path: a second run of the same suite alongside the first took
    the first run's place (its first task then came 'after a later task') and stored outputs."""
    from bench import Response, SuiteContext, Target, TargetConfig, Task
    from bench.llm import LLMClient

    class EchoTarget(Target[TargetConfig]):
        async def respond(self, task: Task) -> Response:
            return Response(output=task.text)

    from bench_formats.promptfoo.serial import PromptfooSerial, PromptfooSerialConfig
    from bench_formats.promptfoo.serial_plan import KEY

    def target(run: LLMClient) -> PromptfooSerial:
        suite = SuiteContext(
            "s", tmp_path / "promptfooconfig.yaml", llm=run, target_types=lambda _: EchoTarget
        )
        return PromptfooSerial(PromptfooSerialConfig(target={"type": "echo"}), suite)

    def task(index: int, template: str, q: str) -> Task:
        plan = {"index": index, "template": template, "key": "k", "store_as": "name"}
        return Task(id=f"t{index}", prompt="", metadata={KEY: plan, "vars": {"q": q}})

    async def answer(first: PromptfooSerial, second: PromptfooSerial) -> list[str | None]:
        said = [(await first.respond(task(0, "{{ q }}", "Ada"))).output]
        said.append((await second.respond(task(0, "{{ q }}", "Bob"))).output)
        said.append((await first.respond(task(1, "Hello {{ name }}", ""))).output)
        return said

    runs = [LLMClient() for _ in range(2)]
    try:
        assert asyncio.run(answer(target(runs[0]), target(runs[1]))) == ["Ada", "Bob", "Hello Ada"]
    finally:
        for run in runs:
            run.close()
