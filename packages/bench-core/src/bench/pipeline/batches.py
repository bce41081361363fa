"""A batch run's side of the pipeline: ``batch: true`` checked when the suite loads, and the
client's calls sent through the providers' batch APIs, kept in the run's folder (docs/batch.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bench.vocabulary.errors import ConfigError

if TYPE_CHECKING:  # the batch machinery loads only for a suite that sets a model to batch
    from bench.executor import Executor
    from bench.llm.client import LLMClient
    from bench.llm.settings import LLMSettings
    from bench.pipeline.options import RunOptions


def check_forced(settings: LLMSettings) -> None:
    """Refuse ``batch: true`` on a model whose provider has no batch API, naming the model."""
    if not any(own.batch for own in settings.models.values()):
        return
    from bench.llm.batch.collector import refusal
    from bench.llm.batch.protocols import protocol_of

    refused = [name for name, own in settings.models.items() if own.batch and protocol_of(name) is None]
    if refused:
        raise ConfigError(refusal(refused[0]))


def check_executor(
    options: RunOptions, executor: Callable[[], type[Executor]], settings: LLMSettings | None = None
) -> None:
    """Refuse batches on an executor that cannot run them (its driver does not own the
    batches' submission: ``Executor.batches``), naming it; ``executor`` gives its class."""
    batched = options.batch or (
        settings is not None and (settings.batch or any(own.batch for own in settings.models.values()))
    )
    if batched and not executor().batches:
        raise ConfigError(
            f"--batch runs on executors whose driver owns the batches' submission (local, ray): "
            f"--executor {options.executor} does not; run with one of those, or without --batch"
        )


def use_batches(llm: LLMClient, folder: Path, options: RunOptions) -> None:
    """Send the calls of models set to batch through their batch APIs, kept in ``folder`` (a
    resumed batch run stays one)."""
    from bench.llm.batch.ledger import LEDGER

    if options.resume and (folder / LEDGER).exists() and not llm.settings.batch:
        llm.settings = llm.settings.model_copy(update={"batch": True})
    settings = llm.settings
    if settings.batch or any(own.batch for own in settings.models.values()):
        from bench.llm.batch.collector import Batcher

        llm.batcher = Batcher.at(
            folder,
            llm.calls.transport,
            llm.prices,
            detach=options.detach,
            retry_live=options.batch_retry_live,
            poll_s=settings.batch_poll_s,
            settle_s=settings.batch_settle_s,
        )
