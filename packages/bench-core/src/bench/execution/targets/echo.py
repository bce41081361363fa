"""The ``echo`` target: the response is the task's prompt (for trying out evaluators)."""

from __future__ import annotations

from bench.target import Target, TargetConfig
from bench.vocabulary.models import Response, Task


class EchoTarget(Target[TargetConfig]):
    """Returns the prompt text unchanged."""

    name = "echo"

    async def respond(self, task: Task) -> Response:
        return Response(output=task.text)
