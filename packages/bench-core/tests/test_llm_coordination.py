"""LeaseBook: the arithmetic of shared limits, breaker and budgets, with numbers worked by hand."""

from __future__ import annotations

import asyncio
import pickle

from bench.llm.accounting import Totals
from bench.llm.limits.coordination import FORGET_AFTER_S, Deltas, LeaseBook, ModelLease, ProviderDelta
from bench.llm.limits.throttle import Limits
from bench.llm.settings import JudgeLimits, LLMSettings, ModelLimits, RuntimeLimits


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _demand(provider: str, n: int, **counts: object) -> Deltas:
    return Deltas(providers={provider: ProviderDelta(demand=n, **counts)})  # type: ignore[arg-type]


def test_concurrency_is_shared_by_demand_and_each_worker_gets_at_least_one():
    book = LeaseBook(LLMSettings(concurrency=8))
    assert book.sync("a", _demand("p", 6)).providers == {"p": 8}  # alone: all of it
    # b's fair share is 8 x 2 / (6 + 2) = 2, but a holds all 8 until it syncs: at least 1.
    assert book.sync("b", _demand("p", 2)).providers == {"p": 1}
    assert book.sync("a", _demand("p", 6)).providers == {"p": 6}  # 8 x 6 / 8 (b holds 1)
    assert book.sync("b", _demand("p", 2)).providers == {"p": 2}  # 8 x 2 / 8 (a holds 6)
    lease = book.sync("c", _demand("p", 0))  # no demand weighs 1, and nothing is left: 1
    assert (lease.providers, lease.workers) == ({"p": 1}, 3)
    assert book.sync("a", _demand("p", 6)).providers == {"p": 5}  # 8 x 6 / 9 = 5.3; 8 - 2 - 1 left


def test_a_cut_lease_still_counts_its_calls_in_flight():
    book = LeaseBook(LLMSettings(concurrency=8))
    book.sync("a", _demand("p", 8, in_use=8))
    book.sync("b", _demand("p", 8))
    assert book.sync("a", _demand("p", 8, in_use=8)).providers == {"p": 4}  # 8 x 8 / 16
    # a's lease is 4 now, but its 8 calls are still in flight: b gets what they leave.
    assert book.sync("b", _demand("p", 8)).providers == {"p": 1}
    book.sync("a", _demand("p", 8, in_use=4))
    assert book.sync("b", _demand("p", 8)).providers == {"p": 4}


def test_expected_workers_share_before_they_first_sync():
    book = LeaseBook(LLMSettings(concurrency=8), workers=4)
    lease = book.sync("a", _demand("p", 0))
    assert lease.providers == {"p": 2}  # 8 x 1 / (1 + 3 not yet heard from)
    assert lease.workers == 4


def test_the_global_limit_halves_once_per_episode_and_grows_after_successes():
    clock = Clock()
    book = LeaseBook(LLMSettings(concurrency=16), clock=clock)
    assert book.sync("a", _demand("p", 1, rate_limited=3, successes=20)).limits == {"p": 8}
    clock.now += 4.9  # the same episode (5 s): no second cut
    assert book.sync("b", _demand("p", 1, rate_limited=1)).limits == {"p": 8}
    # Reports count since each worker began: a's 7 new successes, then b's 17.
    assert book.sync("a", _demand("p", 1, rate_limited=3, successes=27)).limits == {"p": 8}
    assert book.sync("b", _demand("p", 1, rate_limited=1, successes=17)).limits == {"p": 11}  # 24: +3
    clock.now += 0.2  # 5.1 s after the first cut: a new episode
    assert book.sync("a", _demand("p", 1, rate_limited=4, successes=27)).limits == {"p": 5}
    assert book.sync("a", _demand("p", 1, rate_limited=4, successes=27 + 8 * 20)).limits == {
        "p": 16
    }  # never above llm.concurrency


def test_breaker_counts_consecutive_failures_over_all_workers():
    book = LeaseBook(LLMSettings(max_consecutive_failures=3))
    assert book.sync("a", _demand("p", 0, failures=2, consecutive=2)).open == {}
    # b had a success, then one failure: the count starts again from b's own.
    assert book.sync("b", _demand("p", 0, failures=2, consecutive=1, resets=1)).open == {}
    assert book.consecutive == {"p": 1}
    lease = book.sync("a", _demand("p", 0, failures=4, consecutive=4))  # 2 more since its last
    assert lease.open == {"p": "3 consecutive failed calls to p (over all workers)"}
    assert book.sync("b", Deltas()).open == lease.open  # b learns it at its next sync


def test_a_breaker_opened_by_one_worker_is_open_for_all():
    book = LeaseBook()
    book.sync("a", _demand("p", 0, failures=1, consecutive=1, opened="401 from openai/x"))
    assert book.sync("b", Deltas()).open == {"p": "401 from openai/x"}


def test_spend_is_summed_and_a_budget_reached_stops_everyone():
    book = LeaseBook(runtime_limits=RuntimeLimits(max_cost_usd=1.0))
    first = book.sync("a", Deltas(spend=Totals(calls=6, cost_usd=0.6, input_tokens=60)))
    assert (first.budget, first.totals.cost_usd, first.totals.calls) == (None, 0.6, 6)
    second = book.sync("b", Deltas(spend=Totals(calls=5, cost_usd=0.5, input_tokens=50)))
    assert second.budget == "runtime_limits.max_cost_usd"
    assert (second.totals.calls, second.totals.input_tokens) == (11, 110)
    again = book.sync("a", Deltas(spend=Totals(calls=6, cost_usd=0.6, input_tokens=60)))
    assert (again.budget, again.totals.calls) == ("runtime_limits.max_cost_usd", 11)


def test_a_report_sent_again_after_a_lost_answer_is_counted_once():
    # The book took a's report but a never saw the answer (its sync timed out): a's next report
    # repeats those counts with new ones, and only the new ones are added.
    book = LeaseBook()
    book.sync("a", Deltas(providers={"p": ProviderDelta(successes=5, failures=1)}, spend=Totals(calls=6)))
    lease = book.sync(
        "a", Deltas(providers={"p": ProviderDelta(successes=9, failures=1)}, spend=Totals(calls=10))
    )
    assert (lease.totals.calls, book.consecutive) == (10, {"p": 1})


def test_a_restarted_coordinator_learns_each_workers_whole_spend_at_its_next_sync():
    runtime = RuntimeLimits(max_cost_usd=1.0)
    book = LeaseBook(runtime_limits=runtime)
    book.sync("a", Deltas(spend=Totals(calls=6, cost_usd=0.6)))
    restarted = LeaseBook(runtime_limits=runtime)  # Ray restarted the actor: an empty book
    restarted.sync("a", Deltas(spend=Totals(calls=7, cost_usd=0.7)))
    lease = restarted.sync("b", Deltas(spend=Totals(calls=4, cost_usd=0.4)))
    assert (lease.totals.calls, lease.budget) == (11, "runtime_limits.max_cost_usd")


def test_judge_budgets_count_judge_spend_only():
    book = LeaseBook(judge_limits=JudgeLimits(max_tokens=100))
    assert book.sync("a", Deltas(spend=Totals(input_tokens=500))).budget is None
    assert book.sync("b", Deltas(spend=Totals(judge_tokens=100))).budget == "judge_limits.max_tokens"


def test_the_stop_flag_reaches_every_worker():
    book = LeaseBook()
    book.sync("a", Deltas())
    book.stop("the driver stopped the run")
    book.stop("a second reason does not replace the first")
    assert book.sync("a", Deltas()).stop == "the driver stopped the run"
    assert book.sync("b", Deltas()).stop == "the driver stopped the run"


def test_a_worker_not_heard_from_is_forgotten():
    clock = Clock()
    book = LeaseBook(LLMSettings(concurrency=8), clock=clock)
    book.sync("a", _demand("p", 8))
    book.sync("b", _demand("p", 8))
    book.sync("a", _demand("p", 8))
    assert book.sync("b", _demand("p", 8)).providers == {"p": 4}
    clock.now += FORGET_AFTER_S
    lease = book.sync("b", _demand("p", 8))
    assert (lease.providers, lease.workers) == ({"p": 8}, 1)


def test_model_rates_are_shared_by_demand():
    settings = LLMSettings(models={"m": ModelLimits(rpm=600, tpm=90_000, concurrency=4)})
    book = LeaseBook(settings)
    book.sync("a", Deltas(models={"m": 3}))
    lease = book.sync("b", Deltas(models={"m": 1}))
    assert lease.models == {"m": ModelLease(rpm=150.0, tpm=22_500.0, concurrency=1)}  # a quarter
    assert book.sync("a", Deltas(models={"m": 3})).models == {
        "m": ModelLease(rpm=450.0, tpm=67_500.0, concurrency=3)
    }


def test_deltas_and_leases_survive_pickling():
    """A Ray actor sends both across processes."""
    book = LeaseBook(LLMSettings(models={"m": ModelLimits(rpm=60)}))
    deltas = Deltas(providers={"p": ProviderDelta(successes=1, demand=2)}, spend=Totals(calls=1))
    assert pickle.loads(pickle.dumps(deltas)) == deltas
    lease = book.sync("a", deltas)
    assert pickle.loads(pickle.dumps(lease)) == lease


def test_a_tpm_lease_counts_each_token_against_the_full_rate():
    """A quarter of 600 tpm: a call estimated at 100 tokens takes 400 of the limiter's 600."""

    async def scenario() -> tuple[bool, bool, int]:
        limits = Limits(LLMSettings(models={"m": ModelLimits(tpm=600, concurrency=4)}))
        await limits.lease_model("m", rpm=None, tpm=150.0, concurrency=1)
        async with limits.model("m", 100):
            pass
        tpm = limits.tpm["m"]
        return tpm.has_capacity(200), tpm.has_capacity(201), limits.model_slots["m"].limit

    assert asyncio.run(scenario()) == (True, False, 1)
