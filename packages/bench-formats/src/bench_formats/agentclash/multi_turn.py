"""AgentClash's ``execution_mode: multi_turn``: a case's ``user_simulator`` as a bench conversation.

AgentClash's engine (``backend/internal/engine``, read at ``439e20b``) runs the phases in order:
``runHybridConversation`` skips a phase when ``shouldRunPhase`` says so (``on_assistant_mismatch``:
only after a mismatch; ``never``: not at all; every other trigger, ``manual`` included: always);
``evaluateTurnExpects`` calls a scripted turn's reply a mismatch when one of its ``expects``
(``contains``, ``exact_match``) fails; ``runLLMPhase`` lets the model play the user up to the
phase's ``max_turns`` (else the case's) until ``phaseUntilSatisfied``; ``runHumanPhase`` waits for
a person. Each becomes a phase of bench's ``conversation:`` (docs/conversations.md), and the case's
``max_turns`` (``runHybridConversation``'s cap on ``turnIndex``, one per user turn whatever its
actor) the conversation's ``max_turns``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from . import render

#: ``shouldRunPhase``: the triggers that skip a phase, and the one that depends on the last reply.
_NEVER, _ON_MISMATCH = "never", "on_assistant_mismatch"
TRIGGERS = (
    "always",
    "on_assistant_mismatch",
    "on_validator_fail",
    "on_judge_below",
    "on_agent_loop",
    "on_max_llm_turns",
    "manual",
    "never",
)
#: ``runHybridConversation``: the case's turn cap when ``max_turns`` is 0 or unset.
DEFAULT_MAX_TURNS = 50
#: ``runHumanPhase``: how long a person has when a human phase's ``timeout_ms`` is 0 or unset.
HUMAN_TIMEOUT_MS = 30 * 60 * 1000


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def problems(path: str, spec: Any) -> list[str]:
    """``validateUserSimulatorSpec``'s messages for one case's ``user_simulator`` at ``path``."""
    if not isinstance(spec, dict):
        return [f"{path} must be a mapping"]
    errs: list[str] = []
    if spec.get("schema_version") != 1:
        errs.append(f"{path}.schema_version must be 1")
    if _text(spec.get("kind")) != "hybrid":
        errs.append(f'{path}.kind must be "hybrid"')
    if isinstance(spec.get("max_turns"), int) and spec["max_turns"] < 0:
        errs.append(f"{path}.max_turns must be greater than or equal to 0")
    phases = _list(spec.get("phases"))
    if not phases:
        errs.append(f"{path}.phases must contain at least one phase")
    ids: set[str] = set()
    for i, phase in enumerate(phases):
        at = f"{path}.phases[{i}]"
        phase = phase if isinstance(phase, dict) else {}
        errs.extend(_phase_problems(at, phase, i == 0))
        key = _text(phase.get("id"))
        if key and key in ids:
            errs.append(f"{at}.id must be unique")
        ids.add(key)
    return errs


def _phase_problems(at: str, phase: dict[str, Any], first: bool) -> list[str]:
    """``validateUserSimulatorPhase``."""
    errs = [] if _text(phase.get("id")) else [f"{at}.id is required"]
    actor = _text(phase.get("actor"))
    if not actor:
        errs.append(f"{at}.actor is required")
    elif actor not in ("scripted", "llm", "human"):
        errs.append(f"{at}.actor must be one of scripted, llm, human")
    trigger = _text(phase.get("trigger")) or "always"
    if trigger not in TRIGGERS:
        errs.append(f"{at}.trigger must be a supported trigger expression")
    if first and trigger != "always":
        errs.append(f'{at}.trigger first phase trigger must be empty or "always"')
    if not first and trigger == "always":
        errs.append(f'{at}.trigger only the first phase may use "always"')
    if actor == "scripted":
        turns = _list(phase.get("turns"))
        if not turns:
            errs.append(f"{at}.turns must contain at least one turn for scripted actor")
        for t, turn in enumerate(turns):
            turn = turn if isinstance(turn, dict) else {}
            if not _text(turn.get("message")):
                errs.append(f"{at}.turns[{t}].message is required for scripted turns")
    elif actor == "llm":
        if not _text(phase.get("persona")):
            errs.append(f"{at}.persona is required for llm actor")
        for u, condition in enumerate(_list(phase.get("until"))):
            if not _text(condition):
                errs.append(f"{at}.until[{u}] must be a non-empty condition expression")
    elif actor == "human":
        timeout_ms = phase.get("timeout_ms")
        if timeout_ms is not None and (isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int)):
            errs.append(f"{at}.timeout_ms must be an integer (milliseconds)")
        elif isinstance(timeout_ms, int) and timeout_ms < 0:
            errs.append(f"{at}.timeout_ms must be greater than or equal to 0")
    if _text(phase.get("model")) and actor and actor != "llm":
        errs.append(f"{at}.model is only valid on phases with actor: llm")
    return errs


def conversation(
    spec: dict[str, Any],
    ctx: dict[str, Any],
    target: dict[str, Any] | None,
    where: str,
    payload: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The case's native ``conversation:``; a ValueError says what bench cannot run as AgentClash does.

    ``ctx`` fills the scripted messages' ``{{var}}`` (``renderScriptedTurnMessage``); ``target``
    (``--target``) gives a model-played user its model, as AgentClash gives it the deployment's;
    a model-played user is told the case's ``payload``, as ``buildSimulatorPrompt`` tells it."""
    cap = spec.get("max_turns") or DEFAULT_MAX_TURNS
    phases = []
    for phase in spec["phases"]:
        trigger = _text(phase.get("trigger")) or "always"
        if trigger == _NEVER:
            continue
        at = f'{where} phase "{_text(phase.get("id"))}"'
        actor = _text(phase.get("actor"))
        if actor == "scripted":
            native: dict[str, Any] = {"turns": [_turn(turn, ctx, at) for turn in phase["turns"]]}
        elif actor == "llm":
            native = {"user_simulator": _simulator(phase, cap, target, at, payload)}
        else:
            native = {"person": _person(phase)}
        if trigger == _ON_MISMATCH:
            native["when"] = "after_mismatch"
        phases.append(native)
    return {"phases": phases, "max_turns": cap}


def _person(phase: dict[str, Any]) -> dict[str, Any]:
    """``runHumanPhase``: the person's prompt is the persona; they have ``timeout_ms`` (0 or unset:
    30 minutes), then ``NormalizeHumanOnTimeout``'s policy: ``fail`` fails the case, any other
    value stops the conversation (``StopReasonHumanTurnTimeout``), which is then judged."""
    timeout_ms = phase.get("timeout_ms") or 0
    return {
        "prompt": _text(phase.get("persona")),
        "timeout_s": (timeout_ms if timeout_ms > 0 else HUMAN_TIMEOUT_MS) / 1000,
        "on_timeout": "fail" if phase.get("on_timeout") == "fail" else "stop",
    }


def _turn(turn: dict[str, Any], ctx: dict[str, Any], at: str) -> dict[str, Any]:
    native: dict[str, Any] = {"user": render.render(str(turn["message"]), ctx)}
    expect = [_expectation(e, at) for e in turn.get("expects") or []]
    if expect:
        native["expect"] = expect
    return native


def _expectation(expectation: Any, at: str) -> dict[str, str]:
    """``turnExpectationMet``: ``contains`` (case-sensitive) or ``exact_match`` (trimmed reply)."""
    expectation = expectation if isinstance(expectation, dict) else {}
    kind, value = _text(expectation.get("kind")), expectation.get("value")
    if kind in ("contains", "exact_match") and value is not None:
        text = value if isinstance(value, str) else render.render("{{v}}", {"v": value})
        return {"contains": text} if kind == "contains" else {"equals": text}
    raise ValueError(
        f'{at}: expects kind "{kind}"{"" if value is not None else " without a value"} is not '
        "supported: AgentClash's evaluateTurnExpects counts it as a mismatch on every reply; "
        "use contains or exact_match with a value"
    )


def _simulator(
    phase: dict[str, Any], cap: int, target: dict[str, Any] | None, at: str, payload: dict[str, Any] | None
) -> dict[str, Any]:
    """A model-played user: the phase's persona, ``max_turns`` (else the case's), ``until``, and the
    case's payload as ``buildSimulatorPrompt`` writes it (``json.Marshal``: keys sorted, compact)."""
    model = _text(phase.get("model")) or _text((target or {}).get("model"))
    if not model:
        raise ValueError(
            f"{at} (actor llm) has no model: AgentClash gives it the deployment's; give bench a "
            "model target (--target) or the phase a model"
        )
    native: dict[str, Any] = {
        "model": model,
        "persona": _text(phase.get("persona")),
        "max_turns": phase.get("max_turns") or cap,
    }
    if payload:
        encoded = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        native["instructions"] = f"Case context JSON:\n{encoded}"
    for key in ("api_base", "api_key_env"):  # the provider and credentials are the deployment's
        if (target or {}).get(key):
            native[key] = target[key]  # type: ignore[index]
    stop = _until([_text(c) for c in phase.get("until") or [] if _text(c)], at)
    if stop:
        native["stop"] = stop
    return native


def _until(conditions: list[str], at: str) -> dict[str, list[str]]:
    """``phaseUntilSatisfied``: the phase ends after a turn when every condition holds.

    ``max_turns`` holds only on the phase's last turn, where it ends anyway, so with it no
    condition ends the phase early; a condition AgentClash does not know (or an empty token) never
    holds, so the phase runs to its ``max_turns``."""
    stop: dict[str, list[str]] = {}
    if "max_turns" in conditions:
        return stop
    for condition in conditions:
        name, _, token = condition.partition(":")
        key = {"assistant_emitted": "assistant_says", "user_token": "user_says"}.get(name)
        if key is None or not token.strip():
            return {}
        stop.setdefault(key, []).append(token.strip())
    if sum(len(v) for v in stop.values()) > 1:
        raise ValueError(
            f"{at}: until {conditions} needs every condition to hold at once; bench's stop ends a "
            "phase when any holds: give one assistant_emitted: or user_token: condition"
        )
    return stop


def warnings(spec: dict[str, Any], warn: Callable[[str], None]) -> None:
    """What of a ``user_simulator`` bench does not apply."""
    if (spec.get("calibration") or {}).get("enabled"):
        warn("user_simulator.calibration is not applied: bench samples no run for human calibration")
    if ((spec.get("post_run") or {}).get("arena") or {}).get("enabled"):
        warn("user_simulator.post_run.arena is not applied: bench runs no pairwise arena after a run")
    for phase in _list(spec.get("phases")):
        policy = phase.get("on_timeout") if isinstance(phase, dict) else None
        if policy is None:
            continue
        at = f'user_simulator phase "{_text(phase.get("id"))}"'
        if _text(phase.get("actor")) != "human":
            warn(f"{at}: on_timeout is not applied: only a human phase has a timeout")
        elif policy not in ("stop", "fail"):
            warn(
                f'{at}: on_timeout {policy!r} acts as "stop", '
                'as NormalizeHumanOnTimeout makes any value but "fail"'
            )
