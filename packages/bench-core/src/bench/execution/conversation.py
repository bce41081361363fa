"""Conversations: a target answering turn after turn, the transcript as its response.

Each user turn (the task's own input, a scripted turn, a simulated user's message) is appended to
the history and the target answers the whole history (``Task.messages``). Every message is
appended to a journal as it happens, so a run killed mid-conversation resumes at its last turn.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.evaluator import Sample
from bench.evidence import (
    CONVERSATION,
    Turn,
    response_turns,
    scripted_turn_numbers,
    transcript_text,
    transcript_turns,
)
from bench.execution.evaluation import evaluate
from bench.execution.journal.turns import ASKED, PERSON, TIMED_OUT, WAITING_FOR, instant, journal_path
from bench.execution.journal.turns import Journal as Journal  # the runner keeps them by task
from bench.llm.client import LLMClient
from bench.llm.simulated_user import next_message
from bench.suite.plan import BoundEvaluator
from bench.vocabulary.models import (
    ConversationPhase,
    Message,
    PersonTurn,
    Response,
    ScriptedTurn,
    Task,
    ToolCall,
    Usage,
    UserSimulator,
)
from bench.vocabulary.results import NOT_APPLICABLE, EvaluatorOutcome

#: What a conversation's kept metadata (and its result's ``conversation``) names the phases passed
#: over, and the conversation-wide ``max_turns`` that ended it.
SKIPPED = "skipped"
CAPPED = "capped"

Answer = Callable[[Task], Awaitable[Response]]


def kept_conversation(task: Task, response: Response, recorded: bool) -> dict[str, Any] | None:
    """What a result keeps of a conversation (a conversation task's, or a recorded transcript)."""
    if task.conversation is None and not (recorded and any(m.role == "user" for m in response.messages)):
        return None
    kept = response.metadata.get(CONVERSATION, {})
    return {
        "messages": [m.model_dump(exclude_none=True) for m in response.messages],
        "turns": kept.get("turns")
        or [{"turn": t.number, "by": "recorded"} for t in transcript_turns(response.messages)],
        **({"simulator": kept["simulator"]} if kept.get("simulator", {}).get("calls") else {}),
        **{key: kept[key] for key in (WAITING_FOR, TIMED_OUT, SKIPPED, CAPPED) if kept.get(key)},
    }


def kept_steps(response: Response, in_workspace: bool, conversation: bool) -> list[dict[str, Any]] | None:
    """What a result keeps of an agent's steps (its ``trajectory``), so that ``bench rescore``
    judges them again without running the agent: the response's messages when it called tools or
    ran in a workspace. A conversation keeps its messages in its transcript instead, and a plain
    answer's messages are its prompt and response, which the result holds already."""
    if conversation or not response.messages or not (response.tool_calls or in_workspace):
        return None
    return [m.model_dump(exclude_none=True) for m in response.messages]


def open_journal(run_folder: Path | None, key: str, digest: str) -> Journal:
    """The journal of task run ``key``'s conversation in ``run_folder`` (none kept without one)."""
    return Journal(None if run_folder is None else journal_path(run_folder, key), digest)


def waits(response: Response) -> bool:
    """Whether ``response`` is a conversation stopped at a person's turn (nothing to judge yet)."""
    return bool(response.metadata.get(CONVERSATION, {}).get(WAITING_FOR))


@dataclass
class _State:
    """A conversation in progress."""

    task: Task
    answer: Answer
    llm: LLMClient | None
    journal: Journal
    messages: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    simulator: dict[str, Any] = field(default_factory=lambda: {"calls": 0, "cached": 0})
    last: Response | None = None
    scripted: int = 0
    #: Whether the last reply fell short of its scripted turn's ``expect`` (a phase's ``when``).
    mismatch: bool = False
    #: The person's turn the conversation stopped at (``turn``, ``prompt``), when it did.
    waiting: dict[str, Any] | None = None
    #: The person's turn no one answered in time, where the conversation ended (``on_timeout: stop``).
    timed_out: dict[str, Any] | None = None
    #: The phases passed over (their ``when`` did not hold): ``phase``, ``when`` and the numbers of
    #: their scripted turns, whose checks do not apply.
    skipped: list[dict[str, Any]] = field(default_factory=list)
    #: Where the conversation-wide ``max_turns`` ended the conversation, when it did:
    #: ``max_turns``, ``turn`` (the last one taken) and the scripted turns it cut off.
    capped: dict[str, Any] | None = None

    def at_cap(self) -> bool:
        """Whether the conversation has taken its ``max_turns`` (``runHybridConversation``'s cap,
        counted as ``executeUserTurn`` counts turns: one per user message answered); the first
        time, the scripted turns not yet played are cut off (``capped``)."""
        cap = self.task.conversation.max_turns if self.task.conversation else None
        if cap is None or len(self.turns) < cap:
            return False
        if self.capped is None:
            total = len(self.task.conversation.scripted_turns()) if self.task.conversation else 0
            cut = list(range(self.scripted + 1, total + 1))
            self.capped = {"max_turns": cap, "turn": len(self.turns), "scripted": cut}
        return True

    def skip(self, number: int, phase: ConversationPhase) -> None:
        """Pass over phase ``number``: its scripted turns keep their numbers, so the turns after
        them keep theirs, and their checks are not applicable (``judge``)."""
        scripted = list(range(self.scripted + 1, self.scripted + 1 + len(phase.scripted())))
        self.scripted += len(scripted)
        self.skipped.append({"phase": number, "when": phase.when, "scripted": scripted})

    async def user_says(self, content: Any, by: str, scripted: int | None = None) -> Response:
        """Append a user message and the target's reply; the reply (its ``error`` when it failed)."""
        self.messages.append({"role": "user", "content": content})
        event = self.journal.replayed("reply")
        if event is not None:
            reply = Response.model_validate(event["response"])
        else:
            history = [Message.model_validate(m) for m in self.messages]
            reply = await self.answer(self.task.model_copy(update={"messages": history, "prompt": None}))
            if reply.error is None:
                self.journal.write({"kind": "reply", "response": reply.model_dump(mode="json")})
        self.last = reply
        row: dict[str, Any] = {"turn": len(self.turns) + 1, "by": by}
        if scripted is not None:
            row["scripted"] = scripted
        if reply.tool_calls:
            row["tool_calls"] = [c.model_dump() for c in reply.tool_calls]
        self.turns.append(row)
        _add_usage(self.usage, reply.usage)
        if reply.error is None:
            self.messages.extend(_reply_messages(reply))
        return reply

    def response(self, error: str | None = None) -> Response:
        """The transcript as the task's response: the last reply's text is its output."""
        last = self.last or Response()
        kept = {
            "turns": self.turns,
            "simulator": self.simulator,
            WAITING_FOR: self.waiting,
            TIMED_OUT: self.timed_out,
            SKIPPED: self.skipped,
            CAPPED: self.capped,
        }
        metadata = {**last.metadata, CONVERSATION: kept}
        return Response(
            output=None if error else last.output,
            error=error,
            messages=[Message.model_validate(m) for m in self.messages],
            tool_calls=[ToolCall.model_validate(c) for row in self.turns for c in row.get("tool_calls", [])],
            usage=self.usage,
            truncated=last.truncated,
            truncation=last.truncation,
            metadata=metadata,
        )


def _reply_messages(reply: Response) -> list[dict[str, Any]]:
    """What the target added to the history this turn: its assistant messages with their tool
    calls and the tool results between them (sent back next turn, as a chat API expects), else
    the plain reply."""
    said = [m.model_dump(exclude_none=True) for m in reply.messages]
    users = [i for i, m in enumerate(said) if m.get("role") == "user"]
    tail = said[users[-1] + 1 :] if users else said
    whole = bool(tail) and tail[-1]["role"] == "assistant"
    whole = whole and all(m.get("role") in ("assistant", "tool") for m in tail)
    if whole and any(m.get("tool_calls") or m["role"] == "tool" for m in tail):
        return tail
    return [{"role": "assistant", "content": reply.output or ""}]


def _add_usage(total: Usage, more: Usage) -> None:
    for name in (
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "cost_usd",
        "latency_ms",
        "attempts",
        "wait_ms",
    ):
        value = getattr(more, name)
        if value is not None:
            setattr(total, name, (getattr(total, name) or 0) + value)


async def converse(task: Task, answer: Answer, llm: LLMClient | None, journal: Journal) -> Response:
    """Hold ``task``'s conversation with the target (``answer``): the transcript as a response."""
    assert task.conversation is not None
    state = _State(task, answer, llm, journal)
    opening = task.chat() if task.prompt is not None or task.messages else []
    state.messages = list(opening)
    if opening and opening[-1].get("role") == "user":
        state.messages.pop()
        reply = await state.user_says(opening[-1].get("content"), "input")
        if reply.error is not None:
            return state.response(reply.error)
    for number, phase in enumerate(task.conversation.ordered(), 1):
        if phase.when == "after_mismatch" and not state.mismatch:
            state.skip(number, phase)
            continue
        if state.at_cap():
            break
        error = await _run_phase(state, phase)
        if error is not None:
            return state.response(error)
        if state.waiting is not None or state.timed_out is not None:
            return state.response()
        if state.capped is not None:
            break
    return state.response()


async def _run_phase(state: _State, phase: ConversationPhase) -> str | None:
    """One phase of the conversation; the target's error, if it failed."""
    if phase.person is not None:
        return await _person(state, phase.person)
    if phase.user_simulator is None:
        return await _scripted(state, phase.scripted())
    return await _simulated(state, phase.user_simulator)


async def _person(state: _State, person: PersonTurn) -> str | None:
    """A person's turn: their answer from the journal (``bench answer``, ``bench view``), or the
    conversation stops there, waiting for it (``state.waiting``). As AgentClash's
    ``runHumanPhase``, their message is a user turn with no expectations, and the mismatch of the
    reply before it stands for the next phase's ``when`` (``runHumanPhase`` drops its own)."""
    turn = len(state.turns) + 1
    if state.journal.path is None:
        asked = f" ({person.prompt})" if person.prompt else ""
        return (
            f"turn {turn} is a person's{asked}: a person's answer is kept in the run's folder, "
            "which this executor's workers do not share"
        )
    since = _asked_at(state.journal, turn)
    event = state.journal.replayed(PERSON)
    if event is None:
        return _no_answer(state, person, turn, since)
    reply = await state.user_says(event["content"], PERSON)
    if reply.error is not None:
        return f"turn {turn}: {reply.error}"
    return None


def _asked_at(journal: Journal, turn: int) -> float | None:
    """When the conversation began to wait for the person of ``turn`` (journalled the first time,
    so a resume keeps it); None for an answer journalled before bench kept that time."""
    if journal.upcoming() == PERSON:
        return None
    event = journal.replayed(ASKED)
    if event is None:
        event = {"kind": ASKED, "turn": turn, "at": time.time()}
        journal.write(event)
    return float(event["at"])


def _no_answer(state: _State, person: PersonTurn, turn: int, since: float | None) -> str | None:
    """No answer yet: wait on (``state.waiting``), or, past the person's ``timeout_s``, act as
    AgentClash's ``runHumanPhase`` on ``ErrHumanTurnTimeout``: ``fail`` fails the case, ``stop``
    ends the conversation there (``state.timed_out``) and it is judged as it is."""
    asked: dict[str, Any] = {"turn": turn, "prompt": person.prompt}
    if since is not None:
        asked["since"] = instant(since)
    if since is not None and person.timeout_s is not None:
        asked |= {"deadline": instant(since + person.timeout_s), "on_timeout": person.on_timeout}
        if time.time() >= since + person.timeout_s:
            if person.on_timeout == "fail":
                return (
                    f"turn {turn} is a person's and no one answered by {asked['deadline']} (on_timeout: fail)"
                )
            state.timed_out = asked
            return None
    state.waiting = asked
    return None


async def _scripted(state: _State, turns: list[ScriptedTurn]) -> str | None:
    for turn in turns:
        if state.at_cap():
            return None
        state.scripted += 1
        if state.journal.replayed("user") is None:  # the message is the suite's: only its place is kept
            state.journal.write({"kind": "user", "by": "scripted"})
        reply = await state.user_says(turn.user, "scripted", state.scripted)
        if reply.error is not None:
            return f"turn {len(state.turns)}: {reply.error}"
        state.mismatch = not all(expected.met(reply.text) for expected in turn.expect)
        if state.mismatch:
            state.turns[-1]["mismatch"] = True
    return None


async def _simulated(state: _State, simulator: UserSimulator) -> str | None:
    for _ in range(simulator.max_turns):
        if state.at_cap():
            return None
        event = state.journal.replayed("user")
        if event is not None:
            text, ended = event["content"], event["ended"]
        else:
            said = await next_message(state.llm, simulator, state.messages, state.task.repeat)
            text, ended = said.text, said.ended
            state.simulator["calls"] += 1
            state.simulator["cached"] += said.cached
            state.journal.write({"kind": "user", "by": "simulator", "content": text, "ended": ended})
        if ended:
            return None
        reply = await state.user_says(text, "simulator")
        if reply.error is not None:
            return f"turn {len(state.turns)}: {reply.error}"
        state.mismatch = False
        if _stops(simulator, text, reply):
            return None
    return None


def _stops(simulator: UserSimulator, said: str, reply: Response) -> bool:
    """Whether a stop condition holds after the user said ``said`` and the target replied."""
    stop = simulator.stop
    answer = reply.text.casefold()
    called = {call.name for call in reply.tool_calls}
    return (
        any(phrase.casefold() in answer for phrase in stop.assistant_says)
        or any(name in called for name in stop.assistant_calls)
        or any(phrase.casefold() in said.casefold() for phrase in stop.user_says)
    )


def judge(evaluator: BoundEvaluator, sample: Sample, timeout: float) -> Awaitable[EvaluatorOutcome]:
    """``evaluator``'s verdict on what it judges of a conversation: its scripted turn's reply, each
    reply, the whole transcript, or (the default, as for any task) the last reply."""
    if evaluator.turn is None and evaluator.over == "last_turn":
        return evaluate(evaluator, sample, timeout)  # no coroutine of its own around this one
    return _judge_turns(evaluator, sample, timeout)


async def _judge_turns(evaluator: BoundEvaluator, sample: Sample, timeout: float) -> EvaluatorOutcome:
    turns = [t for t in response_turns(sample.response) if t.reply is not None]
    if evaluator.turn is not None:
        numbers = scripted_turn_numbers(sample.response)
        number = numbers.get(evaluator.turn, evaluator.turn if not numbers else None)
        chosen = [t for t in turns if t.number == number]
        if not chosen and (why := _not_played(sample.response, evaluator.turn)) is not None:
            return _not_applicable(evaluator, *why)
        if not chosen:
            error = f"scripted turn {evaluator.turn} was not answered in this transcript"
            return EvaluatorOutcome(name=evaluator.name, type=evaluator.type, passed=False, error=error)
        return _at_turn(await evaluate(evaluator, _turn_sample(sample, chosen[0]), timeout), chosen[0])
    if evaluator.over == "transcript":
        text = transcript_text(sample.response.messages)
        return await evaluate(evaluator, dataclasses.replace(sample, output=text), timeout)
    if not turns:
        error = "the response holds no answered turn to judge"
        return EvaluatorOutcome(name=evaluator.name, type=evaluator.type, passed=False, error=error)
    outcomes = [_at_turn(await evaluate(evaluator, _turn_sample(sample, t), timeout), t) for t in turns]
    return _each_turn(outcomes)


def _not_played(response: Response, scripted: int) -> tuple[str, dict[str, Any]] | None:
    """Why scripted turn ``scripted`` was rightly never played (its phase was passed over, or the
    conversation's ``max_turns`` ended it first), with the evidence; None if it should have been."""
    kept = response.metadata.get(CONVERSATION, {})
    for row in kept.get(SKIPPED) or []:
        if scripted in row.get("scripted", []):
            why = {"phase": row["phase"], "when": row["when"]}
            return f"phase {why['phase']} was skipped (when: {why['when']})", why
    capped = kept.get(CAPPED)
    if capped and scripted in capped.get("scripted", []):
        return f"the conversation stopped at its max_turns ({capped['max_turns']})", {
            "max_turns": capped["max_turns"]
        }
    return None


def _not_applicable(evaluator: BoundEvaluator, why: str, evidence: dict[str, Any]) -> EvaluatorOutcome:
    """The outcome of a check of a turn rightly never played: neither a pass nor an error."""
    return EvaluatorOutcome(
        name=evaluator.name,
        type=evaluator.type,
        passed=False,
        reason=f"not applicable: {why}",
        weight=evaluator.weight,
        details={NOT_APPLICABLE: evidence},
    )


def _turn_sample(sample: Sample, turn: Turn) -> Sample:
    """The sample as it was after ``turn``: its reply is the output, the transcript ends there."""
    assert turn.reply is not None
    response = sample.response.model_copy(
        update={
            "output": turn.text,
            "tool_calls": turn.tool_calls,
            "messages": sample.response.messages[: turn.reply + 1],
        }
    )
    return dataclasses.replace(sample, response=response, output=turn.text)


def _at_turn(outcome: EvaluatorOutcome, turn: Turn) -> EvaluatorOutcome:
    """The outcome with the turn it judged named (evidence: turn number, message index)."""
    details = {**outcome.details, "turn": turn.number, "message": turn.reply}
    return outcome.model_copy(update={"details": details})


def _each_turn(outcomes: list[EvaluatorOutcome]) -> EvaluatorOutcome:
    """One outcome of a check applied to every turn: it passes when every turn passes."""
    first = outcomes[0]
    rows = [
        {
            "turn": o.details["turn"],
            "passed": o.passed,
            "score": o.score,
            "reason": o.reason,
            "error": o.error,
        }
        for o in outcomes
    ]
    errors = [o for o in outcomes if o.error is not None]
    failed = [o for o in outcomes if not o.passed]
    scores = [o.score for o in outcomes]
    score = None if any(s is None for s in scores) else sum(s or 0.0 for s in scores) / len(scores)
    if errors:
        reason = ""
        error = f"turn {errors[0].details['turn']}: {errors[0].error}"
    elif failed:
        reason, error = f"turn {failed[0].details['turn']}: {failed[0].reason}", None
    else:
        reason, error = f"all {len(outcomes)} turns passed", None
    details: dict[str, Any] = {"turns": rows}
    if failed:
        details["turn"] = failed[0].details["turn"]
    return EvaluatorOutcome(
        name=first.name,
        type=first.type,
        passed=not failed and not errors,
        score=score,
        reason=reason,
        error=error,
        weight=first.weight,
        details=details,
    )
