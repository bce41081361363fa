"""The ``recorded`` target: responses written down in advance, in the suite or a JSONL file."""

from __future__ import annotations

import json

from pydantic import ValidationError

from bench.document import MIB, UnreadableFile, read_text
from bench.target import Target, TargetConfig
from bench.vocabulary.errors import ConfigError, TargetError
from bench.vocabulary.models import Response, Task


class RecordedConfig(TargetConfig):
    """Settings of the recorded target."""

    file: str | None = None
    """JSON Lines of ``{"id": ..., "response": ...}``, relative to the suite's folder."""


class RecordedTarget(Target[RecordedConfig]):
    """Replays recorded responses; a task's own ``response:`` always wins over the file.

    The file is keyed by the task's id as the suite writes it: one of a suite's ``targets:``
    answers ``one[A]`` from its own file's ``one``, so two files can be compared side by side.
    """

    name = "recorded"
    Config = RecordedConfig
    replays = True

    async def open(self) -> None:
        self.responses: dict[str, Response] = {}
        config = self.config
        if config.file is None:
            return
        path = self.suite.folder / config.file
        try:
            text = read_text(path, max_bytes=4096 * MIB)
        except UnreadableFile as exc:
            raise ConfigError(f"cannot read recorded responses: {exc}", file=path) from None
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                task_id, value = str(row["id"]), row["response"]
                response = (
                    Response(output=value)
                    if isinstance(value, str)
                    else Response.model_validate(value).with_last_reply()  # a transcript's last reply
                )
            except (ValueError, KeyError, TypeError, ValidationError) as exc:
                message = f'expected {{"id": ..., "response": ...}}: {type(exc).__name__}: {exc}'
                raise ConfigError(message, file=path, line=number) from None
            self.responses[task_id] = response

    async def respond(self, task: Task) -> Response:
        task_id = task.id if self.label is None else task.id.removesuffix(f"[{self.label}]")
        try:
            return self.responses[task_id]
        except KeyError:
            raise TargetError(f"no recorded response for task '{task_id}'") from None
