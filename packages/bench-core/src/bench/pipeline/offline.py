"""An offline run: the network guard around it, a target that needs a remote model refused, and
the remote models whose checks are skipped (docs/offline.md)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any

from bench.llm.providers import credentials
from bench.llm.providers.offline import needs, on_loopback, remote_models
from bench.suite.plan import Plan, all_targets
from bench.vocabulary.errors import ConfigError
from bench.workspace import network_guard


def offline_guard(offline: bool) -> contextlib.AbstractContextManager[None]:
    """The offline guard (bench.workspace.network_guard) for an offline run; nothing otherwise."""
    return network_guard.offline() if offline else contextlib.nullcontext()


def refuse_remote_targets(plan: Plan) -> None:
    """Refuse an offline run whose tasks call a target that needs a model not on loopback."""
    if not plan.needs_target:
        return  # every task has its response: no target is called
    for target in all_targets(plan):
        remote = remote_models(credentials.endpoints(target))
        if remote:
            name = target.label or type(target).name
            raise ConfigError(
                f"{needs(f'target {name!r}', remote)}, which is not served on loopback: give a "
                "target that calls no remote model (--target echo, a recorded one) or a model "
                "on a local server (api_base: http://127.0.0.1:PORT/v1)"
            )


def skipped_models(plan: Plan) -> list[str]:
    """The remote models an offline run of ``plan`` skips the checks of."""
    return remote_models(plan.endpoints)


def on_loopback_only(endpoints: Iterable[Any]) -> set[Any]:
    """The endpoints (``model``, ``api_base``) an offline run may reach: those on loopback."""
    return {e for e in endpoints if on_loopback(e.model, e.api_base)}
