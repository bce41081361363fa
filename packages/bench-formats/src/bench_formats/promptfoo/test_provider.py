"""A test's own ``provider:`` as the bench target ``promptfoo-test-provider``.

As promptfoo 0.121.20 (``src/evaluator.ts``, ``callActiveProvider``): a test whose ``provider``
(or ``defaultTest.provider``) is a provider keeps its place in every provider × prompt column of
the config, as any test does, and each of its rows is answered by that provider instead of the
column's; the row is still the column's (its provider id and label are the column's). The loader
wraps each column's target in this one, with the tests' providers; a task whose metadata names one
(``promptfoo_test_provider``) is answered by it, any other by the column's target.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from bench import ConfigError, Response, SuiteContext, Target, TargetConfig, Task

#: The task metadata key naming the test's provider (a key of the target's ``providers``).
KEY = "promptfoo_test_provider"
TARGET = "promptfoo-test-provider"


class PromptfooTestProviderConfig(TargetConfig):
    """Settings of promptfoo-test-provider (what the promptfoo loader writes around a column's target)."""

    target: dict[str, Any]
    """The column's own target (``type`` and its settings): it answers the tasks naming no provider."""
    providers: dict[str, dict[str, Any]]
    """The tests' providers as targets, by the key the tasks' metadata names."""


class PromptfooTestProvider(Target[PromptfooTestProviderConfig]):
    """A provider × prompt column whose tests may name their own provider."""

    name = TARGET
    Config = PromptfooTestProviderConfig

    def __init__(self, config: PromptfooTestProviderConfig, suite: SuiteContext) -> None:
        super().__init__(config, suite)
        self.inner = _built(config.target, suite)
        self.own = {key: _built(spec, suite) for key, spec in config.providers.items()}

    def _all(self) -> list[Target[Any]]:
        return [self.inner, *self.own.values()]

    def llm_calls(self) -> list[tuple[str, int]]:
        return [call for target in self._all() for call in target.llm_calls()]

    def sequential(self) -> str | None:
        return next((why for target in self._all() if (why := target.sequential()) is not None), None)

    async def open(self) -> None:
        for target in self._all():
            target.label = self.label
            await target.open()

    async def close(self) -> None:
        for target in self._all():
            await target.close()

    async def respond(self, task: Task) -> Response:
        key = task.metadata.get(KEY)
        return await (self.inner if key is None else self.own[str(key)]).respond(task)


def _built(spec: dict[str, Any], suite: SuiteContext) -> Target[Any]:
    spec = dict(spec)
    cls = suite.target_type(str(spec.pop("type", "")))
    try:
        config = cls.Config.model_validate(spec)
    except ValidationError as exc:
        raise ConfigError(f"target: {exc}", file=suite.path) from None
    return cls(config, suite)


def wrapped(target: dict[str, Any], providers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A column's target spec wrapped so that the tasks naming a test's provider go to it."""
    return {"type": TARGET, "target": target, "providers": providers}
