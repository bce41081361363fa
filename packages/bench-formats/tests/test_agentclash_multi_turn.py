"""AgentClash ``execution_mode: multi_turn`` packs, run against the fake server as AgentClash's
engine runs them (``backend/internal/engine``, read at ``439e20b``).

The reference pack is AgentClash's ``examples/challenge-packs/multi-turn-refund-recovery.yaml``,
copied unchanged into tests/data/agentclash.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench import ConfigError
from bench.testing import FakeLLMServer, LoadOptions, Reply
from bench_formats.agentclash import multi_turn
from bench_formats.agentclash.loader import AgentClashLoader

REFERENCE = Path(__file__).parent / "data" / "agentclash" / "multi-turn-refund-recovery.yaml"
TARGET = "{type: litellm, model: openai/fake}"
PLAYING_USER = "You are playing the USER"


@pytest.fixture(autouse=True)
def _judge_key(monkeypatch: pytest.MonkeyPatch, bench_fake_llm: FakeLLMServer) -> None:
    """The reference pack's judge names an Anthropic model: a key, and a base that stays local."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_API_BASE", bench_fake_llm.url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", bench_fake_llm.url)


def _play(server: FakeLLMServer, agent: Any, user: Any = None) -> None:
    """``agent(last user text)`` answers as the target; ``user(transcript)`` as the simulated user."""

    def answer(body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        if str(messages[0].get("content", "")).startswith(PLAYING_USER):
            return Reply(user(messages))
        return Reply(agent(messages[-1]["content"]))

    server.default = answer


def _run(bench_cli: Any, pack: Path, tmp_path: Path) -> dict[str, Any]:
    result = bench_cli("run", pack, "--target", TARGET, "-q", "-o", "out.json")
    assert (tmp_path / "out.json").exists(), result.output
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    return task


def _said(task: dict[str, Any]) -> list[tuple[str, str]]:
    """The transcript after its system message (the challenge's instructions)."""
    system, *said = task["conversation"]["messages"]
    assert system["role"] == "system"
    assert system["content"].startswith("You are a support agent")
    return [(m["role"], m["content"]) for m in said]


def _pack(tmp_path: Path, edit: Any) -> Path:
    """The reference pack with its case's user_simulator edited, judged by its validator alone."""
    data = yaml.safe_load(REFERENCE.read_text())
    spec = data["version"]["evaluation_spec"]
    del spec["llm_judges"], spec["behavioral"]
    spec["scorecard"] = {"dimensions": ["correctness"]}
    edit(data["input_sets"][0]["cases"][0]["user_simulator"])
    path = tmp_path / "pack.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_reference_pack_loads_as_a_conversation_of_phases():
    """Each phase becomes a bench phase: ``shouldRunPhase`` (on_assistant_mismatch -> after a
    mismatch; manual -> always), ``evaluateTurnExpects`` (expects -> expect), ``runLLMPhase``
    (persona, max_turns, ``phaseUntilSatisfied``'s assistant_emitted), ``runHumanPhase`` (a person)."""
    loader = AgentClashLoader(LoadOptions(target={"type": "litellm", "model": "openai/fake"}))
    [task] = loader.load(REFERENCE).data["tasks"]
    assert task["input"] == [
        {
            "role": "system",
            "content": "You are a support agent helping a customer refund order ORD-9912.\n"
            "Acknowledge the issue, verify the order, and explain refund status clearly.\n"
            "When the customer pushes back, stay polite and specific.",
        }
    ]
    assert task["conversation"] == {
        "phases": [
            {
                "turns": [
                    {
                        "user": "I need a refund for order ORD-9912 right now.",
                        "expect": [{"contains": "refund"}],
                    }
                ]
            },
            {
                "turns": [{"user": "You quoted the wrong policy. I want a full refund today."}],
                "when": "after_mismatch",
            },
            {
                "user_simulator": {
                    "model": "openai/fake",
                    "persona": "Frustrated customer who will accept a clear timeline if empathetic",
                    "max_turns": 3,
                    "instructions": 'Case context JSON:\n{"order_id":"ORD-9912"}',
                    "stop": {"assistant_says": ["timeline"]},
                },
                "when": "after_mismatch",
            },
            {"person": {"prompt": "", "timeout_s": 900.0, "on_timeout": "stop"}},
        ],
        "max_turns": 12,
    }
    assert loader.warnings[-3:] == [
        "user_simulator.calibration is not applied: bench samples no run for human calibration",
        "user_simulator.post_run.arena is not applied: bench runs no pairwise arena after a run",
        'llm_judges "recovery_after_mismatch": context_from transcript.from_mismatch is not applied: '
        "bench's agentclash_judge reads the final output",
    ]


def test_reference_pack_reply_that_meets_expects_skips_the_mismatch_phases(
    bench_cli, bench_fake_llm, tmp_path
):
    """``shouldRunPhase``: with no mismatch, the on_assistant_mismatch phases are skipped; the manual
    human phase runs (``manual`` returns true) and the case stops there waiting for a person
    (``runHumanPhase`` records ``turn.awaiting_human`` and waits on its human-turn gate), the
    transcript so far kept: its task is ``waiting``, neither an error nor a verdict."""
    _play(bench_fake_llm, lambda said: "Your refund is on its way.")
    task = _run(bench_cli, REFERENCE, tmp_path)
    assert _said(task) == [
        ("user", "I need a refund for order ORD-9912 right now."),
        ("assistant", "Your refund is on its way."),
    ]
    assert (task["status"], task.get("error"), task["evaluators"]) == ("waiting", None, [])
    assert {k: task["conversation"]["waiting"][k] for k in ("turn", "prompt", "on_timeout")} == {
        "turn": 2,
        "prompt": "",
        "on_timeout": "stop",
    }
    assert bench_fake_llm.count() == 1


def test_reference_pack_mismatch_runs_pushback_and_its_reply_resets_the_trigger(
    bench_cli, bench_fake_llm, tmp_path
):
    """``evaluateTurnExpects``: a reply without "refund" (case-sensitive ``strings.Contains``) is a
    mismatch, so the pushback phase runs; its turn has no expects, so ``executeUserTurn`` sets
    lastMismatch false and the llm_escalation phase (on_assistant_mismatch) does not run."""
    _play(bench_fake_llm, lambda said: "Please hold. REFUND pending.")
    task = _run(bench_cli, REFERENCE, tmp_path)
    assert _said(task) == [
        ("user", "I need a refund for order ORD-9912 right now."),
        ("assistant", "Please hold. REFUND pending."),
        ("user", "You quoted the wrong policy. I want a full refund today."),
        ("assistant", "Please hold. REFUND pending."),
    ]
    assert task["conversation"]["turns"][0]["mismatch"] is True
    assert "mismatch" not in task["conversation"]["turns"][1]
    assert (task["status"], task["conversation"]["waiting"]["turn"]) == ("waiting", 3)
    assert "simulator" not in task["conversation"]


def test_human_phase_answered_goes_on_as_a_user_turn_without_expects(
    bench_cli, bench_fake_llm, tmp_path, monkeypatch
):
    """``runHumanPhase``: the person's message (``WaitForHumanTurn``) is sent by ``executeUserTurn``
    as the human actor's turn with no expects (so no mismatch), and the case goes on; its
    ``promptHint`` is the phase's persona (``bench answer`` shows it)."""
    from bench.testing import answer_waiting

    def edit(spec: dict[str, Any]) -> None:
        spec["phases"][-1]["persona"] = "  Take over as the customer  "

    _play(bench_fake_llm, lambda said: "Your refund is on its way." if "ORD" in said else "Noted.")
    pack = _pack(tmp_path, edit)
    first = _run(bench_cli, pack, tmp_path)
    assert first["conversation"]["waiting"]["prompt"] == "Take over as the customer"
    run_id = json.loads((tmp_path / "out.json").read_text())["run_id"]
    answer_waiting(tmp_path / ".bench" / "runs", run_id, first["id"], "Is it refunded?")
    result = bench_cli("run", pack, "--target", TARGET, "-q", "-o", "out.json", "--resume", run_id)
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert result.exit_code == 0, result.output
    assert _said(task)[2:] == [("user", "Is it refunded?"), ("assistant", "Noted.")]
    assert [t["by"] for t in task["conversation"]["turns"]] == ["scripted", "person"]
    assert "mismatch" not in task["conversation"]["turns"][1]
    assert bench_fake_llm.count() == 2  # the first turn replayed from the journal


def test_a_human_turn_leaves_the_mismatch_before_it_for_the_next_phase(
    bench_cli, bench_fake_llm, tmp_path, monkeypatch
):
    """``runHumanPhase`` drops the mismatch ``executeUserTurn`` returns for the person's turn, so
    ``lastMismatch`` stays the last scripted or llm turn's: after a mismatch, a person's turn, then
    an on_assistant_mismatch phase runs (``shouldRunPhase``)."""
    from bench.testing import answer_waiting

    def edit(spec: dict[str, Any]) -> None:
        del spec["phases"][1:3]  # open (a mismatch), then the human phase
        spec["phases"].append(
            {
                "id": "after",
                "actor": "scripted",
                "trigger": "on_assistant_mismatch",
                "turns": [{"message": "Well?"}],
            }
        )

    _play(bench_fake_llm, lambda said: "Noted.")  # never "refund": the open turn is a mismatch
    pack = _pack(tmp_path, edit)
    first = _run(bench_cli, pack, tmp_path)
    run_id = json.loads((tmp_path / "out.json").read_text())["run_id"]
    answer_waiting(tmp_path / ".bench" / "runs", run_id, first["id"], "Hello?")
    bench_cli("run", pack, "--target", TARGET, "-q", "-o", "out.json", "--resume", run_id)
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert [t["by"] for t in task["conversation"]["turns"]] == ["scripted", "person", "scripted"]
    assert _said(task)[-2:] == [("user", "Well?"), ("assistant", "Noted.")]


def test_llm_phase_plays_the_user_until_assistant_emitted(bench_cli, bench_fake_llm, tmp_path):
    """``runLLMPhase``: after a mismatch the model plays the user with the phase's persona, one turn
    at a time, until ``phaseUntilSatisfied`` (``assistant_emitted:timeline``, case-insensitive)."""

    def edit(spec: dict[str, Any]) -> None:
        del spec["phases"][1]  # the pushback: the llm phase follows the mismatch directly
        spec["phases"][-1]["trigger"] = "never"  # the human phase: shouldRunPhase says no

    agent_says = iter(["Hello.", "Let me look.", "The TIMELINE: five days.", "unreached"])
    users = iter(["Where is my money?", "I am waiting.", "unreached"])
    _play(bench_fake_llm, lambda said: next(agent_says), lambda messages: next(users))
    task = _run(bench_cli, _pack(tmp_path, edit), tmp_path)
    assert _said(task) == [
        ("user", "I need a refund for order ORD-9912 right now."),
        ("assistant", "Hello."),
        ("user", "Where is my money?"),
        ("assistant", "Let me look."),
        ("user", "I am waiting."),
        ("assistant", "The TIMELINE: five days."),
    ]
    assert [t["by"] for t in task["conversation"]["turns"]] == ["scripted", "simulator", "simulator"]
    assert task["conversation"]["simulator"] == {"calls": 2, "cached": 0}
    system = next(r for r in bench_fake_llm.requests if PLAYING_USER in str(r.body["messages"][0]))
    assert "Frustrated customer who will accept a clear timeline" in system.body["messages"][0]["content"]
    assert task.get("error") is None


def test_case_max_turns_caps_the_whole_conversation_as_run_hybrid_conversation_does(
    bench_cli, bench_fake_llm, tmp_path
):
    """``runHybridConversation``: ``max_turns`` caps the case's user turns across phases
    (``state.turnIndex``, one per ``executeUserTurn``, scripted, llm and human alike):
    ``runLLMPhase`` loops while ``state.turnIndex < maxTurns``, short of its own max_turns, and
    ``runHumanPhase`` at the cap stops the case (``StopReasonMaxTurns``) without waiting."""

    def edit(spec: dict[str, Any]) -> None:
        del spec["phases"][1]  # the pushback: the llm phase (max_turns 3) follows the mismatch
        spec["max_turns"] = 2

    agent_says = iter(["Hello.", "Let me look.", "unreached"])
    users = iter(["Where is my money?", "unreached"])
    _play(bench_fake_llm, lambda said: next(agent_says), lambda messages: next(users))
    pack = _pack(tmp_path, edit)
    loader = AgentClashLoader(LoadOptions(target={"type": "litellm", "model": "openai/fake"}))
    [loaded] = loader.load(pack).data["tasks"]
    assert loaded["conversation"]["max_turns"] == 2
    assert loaded["conversation"]["phases"][1]["user_simulator"]["max_turns"] == 3
    task = _run(bench_cli, pack, tmp_path)
    assert _said(task) == [
        ("user", "I need a refund for order ORD-9912 right now."),
        ("assistant", "Hello."),
        ("user", "Where is my money?"),
        ("assistant", "Let me look."),
    ]
    assert [t["by"] for t in task["conversation"]["turns"]] == ["scripted", "simulator"]
    assert task["conversation"]["capped"] == {"max_turns": 2, "turn": 2, "scripted": []}
    assert task["status"] != "waiting"
    assert "waiting" not in task["conversation"]


def test_case_max_turns_unset_or_zero_caps_at_fifty():
    """``runHybridConversation``: ``max_turns`` 0 or unset is 50."""
    spec: dict[str, Any] = {"phases": [{"id": "a", "actor": "scripted", "turns": [{"message": "hi"}]}]}
    assert multi_turn.conversation(spec, {}, None, "case")["max_turns"] == 50
    assert multi_turn.conversation(spec | {"max_turns": 0}, {}, None, "case")["max_turns"] == 50


def test_multi_turn_pack_without_a_model_for_its_llm_phase_is_refused():
    with pytest.raises(ConfigError) as caught:
        AgentClashLoader().load(REFERENCE)
    assert caught.value.message == (
        'case "wrong-order-pushback" phase "llm_escalation" (actor llm) has no model: AgentClash gives '
        "it the deployment's; give bench a model target (--target) or the phase a model"
    )


def test_user_simulator_errors_are_validate_bundle_messages(tmp_path):
    """``validateUserSimulatorSpec`` / ``validateUserSimulatorPhase``."""

    def edit(spec: dict[str, Any]) -> None:
        spec["kind"] = "scripted"
        spec["phases"][0]["trigger"] = "manual"
        spec["phases"][2]["persona"] = ""
        spec["phases"][3]["actor"] = "robot"

    with pytest.raises(ConfigError) as caught:
        AgentClashLoader().load(_pack(tmp_path, edit))
    path = "input_sets[0].cases[0].user_simulator"
    assert caught.value.message == "invalid challenge pack: " + "; ".join(
        [
            f'{path}.kind must be "hybrid"',
            f'{path}.phases[0].trigger first phase trigger must be empty or "always"',
            f"{path}.phases[2].persona is required for llm actor",
            f"{path}.phases[3].actor must be one of scripted, llm, human",
        ]
    )


def test_user_simulator_outside_multi_turn_is_refused(tmp_path):
    data = yaml.safe_load(REFERENCE.read_text())
    data["version"]["execution_mode"] = "prompt_eval"
    del data["version"]["sandbox"], data["version"]["tool_policy"]
    path = tmp_path / "pack.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError) as caught:
        AgentClashLoader().load(path)
    assert caught.value.message == (
        "invalid challenge pack: input_sets[0].cases[0].user_simulator is only allowed when "
        "version.execution_mode is multi_turn"
    )


def _phases(*phases: dict[str, Any], max_turns: int = 0) -> list[dict[str, Any]]:
    spec = {"schema_version": 1, "kind": "hybrid", "max_turns": max_turns, "phases": list(phases)}
    return multi_turn.conversation(spec, {"who": "Ann"}, {"model": "openai/fake"}, "case")["phases"]


def test_exact_match_expects_the_trimmed_reply_and_templates_fill_from_the_case():
    """``turnExpectationMet``: exact_match compares ``strings.TrimSpace(reply)``; a non-string
    value is written as ``fmt.Sprint`` writes it; ``renderScriptedTurnMessage`` fills ``{{var}}``."""
    turn = {"message": "hi {{who}} {{nobody}}", "expects": [{"key": "k", "kind": "exact_match", "value": 42}]}
    [phase] = _phases({"id": "a", "actor": "scripted", "turns": [turn]})
    assert phase == {"turns": [{"user": "hi Ann {{nobody}}", "expect": [{"equals": "42"}]}]}


def test_an_expects_kind_agentclash_never_meets_is_refused():
    turn = {"message": "hi", "expects": [{"key": "k", "kind": "regex", "value": "x"}]}
    with pytest.raises(ValueError, match="is not supported") as caught:
        _phases({"id": "a", "actor": "scripted", "turns": [turn]})
    assert str(caught.value) == (
        'case phase "a": expects kind "regex" is not supported: AgentClash\'s evaluateTurnExpects counts '
        "it as a mismatch on every reply; use contains or exact_match with a value"
    )


def test_until_conditions_as_phase_until_satisfied_reads_them():
    """``untilConditionMet``: ``max_turns`` holds only at the phase's end; an unknown condition never
    holds, so with it the phase runs to its max_turns; ``user_token:`` reads the user's message."""
    llm = {"id": "b", "actor": "llm", "trigger": "manual", "persona": "p", "max_turns": 2}
    first = {"id": "a", "actor": "scripted", "turns": [{"message": "hi"}]}
    never = {"id": "c", "actor": "human", "trigger": "never"}
    phases = _phases(first, {**llm, "until": ["user_token:bye"]}, never)
    assert phases[1]["user_simulator"]["stop"] == {"user_says": ["bye"]}
    assert "when" not in phases[1]
    assert len(phases) == 2  # trigger never: shouldRunPhase says no
    phases = _phases(first, {**llm, "until": ["assistant_emitted:done", "sentiment:calm"]})
    assert "stop" not in phases[1]["user_simulator"]


def test_llm_phase_user_is_told_the_case_payload_as_build_simulator_prompt_does(
    bench_cli, bench_fake_llm, tmp_path
):
    """``buildSimulatorPrompt`` gives the simulated user the case's payload (``casePayloadMap``) as
    "Case context JSON" (``json.Marshal``: keys sorted, no spaces): here the order it is about."""

    def edit(spec: dict[str, Any]) -> None:
        del spec["phases"][1]
        spec["phases"][-1]["trigger"] = "never"

    agent_says = iter(["Hello.", "The timeline: five days."])
    _play(bench_fake_llm, lambda said: next(agent_says), lambda messages: "Where is my money?")
    _run(bench_cli, _pack(tmp_path, edit), tmp_path)
    system = next(r for r in bench_fake_llm.requests if PLAYING_USER in str(r.body["messages"][0]))
    assert 'Case context JSON:\n{"order_id":"ORD-9912"}' in system.body["messages"][0]["content"]


def test_until_with_max_turns_never_ends_the_phase_before_its_max_turns():
    """``phaseUntilSatisfied`` needs every condition; ``max_turns`` holds only once the phase has
    taken its ``max_turns`` (``untilConditionMet``), where ``runLLMPhase``'s loop ends anyway: with
    it, no other condition ends the phase early, however many there are."""
    llm = {"id": "b", "actor": "llm", "trigger": "manual", "persona": "p", "max_turns": 2}
    first = {"id": "a", "actor": "scripted", "turns": [{"message": "hi"}]}
    for until in (["max_turns", "user_token:bye"], ["assistant_emitted:done", "user_token:bye", "max_turns"]):
        phases = _phases(first, {**llm, "until": until})
        assert "stop" not in phases[1]["user_simulator"], until


def test_until_conditions_that_must_all_hold_are_refused():
    llm = {"id": "b", "actor": "llm", "trigger": "manual", "persona": "p", "max_turns": 2}
    llm["until"] = ["assistant_emitted:done", "user_token:bye"]
    with pytest.raises(ValueError, match="needs every condition") as caught:
        _phases({"id": "a", "actor": "scripted", "turns": [{"message": "hi"}]}, llm)
    assert str(caught.value) == (
        "case phase \"b\": until ['assistant_emitted:done', 'user_token:bye'] needs every condition to "
        "hold at once; bench's stop ends a phase when any holds: give one assistant_emitted: or "
        "user_token: condition"
    )


def _human(**fields: Any) -> dict[str, Any]:
    """A human phase with ``fields`` as the loader makes it."""
    [phase] = _phases({"id": "h", "actor": "human", **fields})
    return phase["person"]


def test_human_phase_timeout_ms_and_on_timeout_as_run_human_phase_reads_them():
    """``runHumanPhase``: ``timeout_ms`` 0 or unset is 30 minutes; ``NormalizeHumanOnTimeout`` keeps
    ``fail`` and makes any other value ``stop``."""
    assert _human() == {"prompt": "", "timeout_s": 1800.0, "on_timeout": "stop"}
    assert _human(timeout_ms=0, on_timeout="fail") == {
        "prompt": "",
        "timeout_s": 1800.0,
        "on_timeout": "fail",
    }
    assert _human(timeout_ms=1500, on_timeout="abandon")["timeout_s"] == 1.5
    assert _human(on_timeout="abandon")["on_timeout"] == "stop"


def test_human_phase_on_timeout_bench_reads_otherwise_is_a_warning(tmp_path):
    def edit(spec: dict[str, Any]) -> None:
        spec["phases"][0]["on_timeout"] = "fail"
        spec["phases"][-1]["on_timeout"] = "abandon"

    loader = AgentClashLoader(LoadOptions(target={"type": "litellm", "model": "openai/fake"}))
    loader.load(_pack(tmp_path, edit))
    assert [w for w in loader.warnings if "on_timeout" in w] == [
        'user_simulator phase "open": on_timeout is not applied: only a human phase has a timeout',
        'user_simulator phase "human_takeover": on_timeout \'abandon\' acts as "stop", as '
        'NormalizeHumanOnTimeout makes any value but "fail"',
    ]


def test_human_phase_timeout_ms_negative_or_not_a_number_is_refused(tmp_path):
    """``validateUserSimulatorPhase``: a human phase's ``timeout_ms`` must be >= 0 (and an int64)."""

    def edit(spec: dict[str, Any]) -> None:
        spec["phases"][-1]["timeout_ms"] = -1
        spec["phases"].append({"id": "again", "actor": "human", "trigger": "manual", "timeout_ms": "soon"})

    with pytest.raises(ConfigError) as caught:
        AgentClashLoader().load(_pack(tmp_path, edit))
    path = "input_sets[0].cases[0].user_simulator"
    assert caught.value.message == "invalid challenge pack: " + "; ".join(
        [
            f"{path}.phases[3].timeout_ms must be greater than or equal to 0",
            f"{path}.phases[4].timeout_ms must be an integer (milliseconds)",
        ]
    )


@pytest.mark.parametrize("policy", ["stop", "fail"])
def test_human_phase_past_its_timeout_ms_applies_on_timeout_on_resume(
    bench_cli, bench_fake_llm, tmp_path, policy
):
    """``WaitForHumanTurn`` returns ``ErrHumanTurnTimeout`` after ``timeout_ms``; ``runHumanPhase``
    then stops the conversation, which is scored (``stop``), or fails the case (``fail``)."""
    import time

    def edit(spec: dict[str, Any]) -> None:
        spec["phases"][-1] |= {"timeout_ms": 50, "on_timeout": policy}

    _play(bench_fake_llm, lambda said: "Your refund is on its way.")
    pack = _pack(tmp_path, edit)
    first = _run(bench_cli, pack, tmp_path)
    assert first["status"] == "waiting"
    run_id = json.loads((tmp_path / "out.json").read_text())["run_id"]
    time.sleep(0.1)
    bench_cli("run", pack, "--target", TARGET, "-q", "-o", "out.json", "--resume", run_id)
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    if policy == "stop":
        assert (task["status"], task["conversation"]["timed_out"]["turn"]) == ("passed", 2)
    else:
        deadline = first["conversation"]["waiting"]["deadline"]
        assert (task["status"], task["error"]) == (
            "error",
            f"turn 2 is a person's and no one answered by {deadline} (on_timeout: fail)",
        )
