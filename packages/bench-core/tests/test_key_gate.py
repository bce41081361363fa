"""A key's first calls (RELIABILITY C14): a refusal cuts them, and the gate never stays shut."""

from __future__ import annotations

import asyncio

import pytest

from bench.llm.key_gate import KeyGate, Refused


def test_c14_a_followers_refusal_after_the_leaders_answer_leaves_no_call_waiting_forever():
    """The lost wake-up behind a C14 run that sat in a wait after the 401: the leader's 401 cut
    the tracked calls and its answer opened the gate; a follower whose own 401 had already come
    (too late to be cut) refused again and shut the gate with no answer left to open it, so the
    cut calls waited for it for ever."""

    async def scenario() -> str:
        gate = KeyGate()
        gate.open()  # a probe goes beside the first calls
        answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        cut = asyncio.ensure_future(gate.send(answered, 5.0, leader=False))
        await asyncio.sleep(0)  # the follower's call is in flight, tracked
        gate.refuse()  # the leader's 401
        gate.settle()  # the leader's call ended
        gate.refuse()  # a follower's own 401, received before the cut reached it
        with pytest.raises(Refused):  # the leader's cut reached the tracked call
            await cut
        await asyncio.wait_for(gate.wait(), 1.0)  # what a cut call does next
        return "went on"

    assert asyncio.run(scenario()) == "went on"


def test_c14_a_refusal_before_the_leaders_answer_holds_new_calls_back():
    async def scenario() -> bool:
        gate = KeyGate()
        gate.open()
        gate.refuse()
        return gate.is_open

    assert asyncio.run(scenario()) is False
