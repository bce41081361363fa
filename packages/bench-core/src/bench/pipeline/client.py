"""A run's LLM client: built from the suite and the options, checked before the first call, its
slow imports started early and done before the first task; and the plan whose targets call
models through it."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable
from typing import Any

from bench.llm.cache.local import default_cache_path
from bench.llm.cache.shared import shared_cache_url
from bench.llm.client import LLMClient
from bench.llm.limits.coordination import Coordinator
from bench.llm.providers.credentials import describe_missing, missing_credentials
from bench.llm.providers.direct import preload as preload_http
from bench.llm.providers.litellm_import import import_in_background
from bench.llm.providers.prices import model_cost
from bench.llm.settings import LLMSettings, sized_for_run
from bench.pipeline.estimate import check_prices
from bench.pipeline.offline import on_loopback_only, refuse_remote_targets
from bench.pipeline.options import RunOptions
from bench.suite.plan import Plan, all_targets
from bench.target import Target
from bench.vocabulary.errors import ConfigError


def make_client(
    plan: Plan,
    options: RunOptions,
    *,
    coordinator: Coordinator | None = None,
    worker_id: str | None = None,
    on_import: Callable[[], None] | None = None,
) -> LLMClient:
    """The run's LLM client, from the suite's settings and the command line (a worker's shares
    the run's limits and budgets through ``coordinator``)."""
    settings, _ = call_settings(plan, options)
    settings = settings if options.cache else settings.model_copy(update={"cache": False})
    if options.batch:
        settings = settings.model_copy(update={"batch": True})
    cache_path = options.cache_path or default_cache_path()
    return LLMClient(
        settings,
        pricing=plan.pricing,
        runtime_limits=plan.runtime_limits,
        judge_limits=plan.judge_limits,
        cache_path=cache_path,
        shared_cache=shared_cache_url(options.shared_cache),
        coordinator=coordinator,
        worker_id=worker_id,
        on_import=on_import,
    )


def call_settings(plan: Plan, options: RunOptions) -> tuple[LLMSettings, str | None]:
    """The suite's ``llm:`` settings sized for the run's tasks in flight, and the note that says
    which limit wins when the suite sets both (``sized_for_run``)."""
    source = "-j" if options.concurrency else "the suite's concurrency"
    return sized_for_run(plan.llm, options.concurrency or plan.concurrency, source)


def with_client(plan: Plan, llm: LLMClient) -> Plan:
    """``plan`` with targets that call models through ``llm``: each is built again from its
    settings, ``llm`` in its ``SuiteContext`` (a target gets its client when it is built)."""

    def built(target: Target[Any]) -> Target[Any]:
        again = type(target)(target.config, dataclasses.replace(target.suite, llm=llm))
        again.label = target.label
        return again

    return dataclasses.replace(
        plan,
        target=None if plan.target is None else built(plan.target),
        targets={label: built(target) for label, target in plan.targets.items()},
    )


@dataclasses.dataclass
class StartUp:
    """The client's slow imports, started while the run opens (``start``), done before its first
    task (``finish``): their seconds belong to start-up, not to a task's timeout (N05)."""

    #: litellm is imported now (in the background), not at the first call.
    import_now: bool
    #: Reads litellm's price map and imports the HTTP client.
    reading: threading.Thread | None

    @classmethod
    def start(cls, plan: Plan, llm: LLMClient, *, offline: bool = False) -> StartUp:
        """Start the imports the plan's calls will need, and refuse a run that cannot make its
        calls: a dollar budget with an unpriced model, an endpoint's key missing; ``offline``: a
        target that needs a remote model (the checks that need one are skipped, keys or not)."""
        endpoints = plan.endpoints
        if offline:
            refuse_remote_targets(plan)
            endpoints = on_loopback_only(endpoints)
        # Judges' models included: a judge-only suite's first judge call would import it otherwise.
        import_now = llm.needs_litellm([e.model for e in endpoints]) and llm.may_call()
        if import_now:
            import_in_background()  # overlaps the checks and the store's opening
        check_prices(plan, llm.prices)
        reading: threading.Thread | None = None
        if endpoints:
            # litellm's price map takes ~40 ms to read and aiohttp ~0.1 s to import: both now,
            # beside the start-up, not in the first answer while every other call waits behind it.
            direct = llm.may_call() and any(llm.direct(e.model) for e in endpoints)
            reading = threading.Thread(target=_read_ahead, args=(direct,), name="bench-prices", daemon=True)
            reading.start()
        missing = missing_credentials(endpoints)
        if missing:  # one error before any task, never one per task
            raise ConfigError(describe_missing(missing) + _offline_hint(plan, missing))
        return cls(import_now, reading)

    async def finish(self, plan: Plan, llm: LLMClient) -> None:
        """Wait for the imports to end; litellm's too when a target's model needs it."""
        targets = all_targets(plan)
        target_models = [m for target in targets for m, _ in target.llm_calls()] if plan.needs_target else []
        if self.import_now or (llm.needs_litellm(target_models) and llm.may_call()):
            await llm.warm_up()
        if self.reading is not None:
            await asyncio.to_thread(self.reading.join)  # likewise the HTTP client's import (N05)


#: What the refusal of a missing key adds when checks need it: the run that needs no key.
OFFLINE_HINT = "; or run with --offline: the checks that need a remote model are skipped, the rest decide"


def _offline_hint(plan: Plan, missing: dict[str, list[str]]) -> str:
    """``OFFLINE_HINT`` when a check needs a missing key (a target that needs one is refused offline)."""
    targets = {m for t in all_targets(plan) for m, _ in t.llm_calls()} if plan.needs_target else set()
    return OFFLINE_HINT if any(m not in targets for models in missing.values() for m in models) else ""


def _read_ahead(direct: bool) -> None:
    model_cost()
    if direct:
        preload_http()
