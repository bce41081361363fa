"""The ray executor's own settings (``--executor-option KEY=VALUE``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench import ConfigError

#: Chunks in flight per worker: one running, one queued behind it.
IN_FLIGHT = 2
DEFAULT_CHUNK = 512


@dataclass(frozen=True)
class RayOptions:
    """What each worker actor asks Ray for, and how many chunks it holds at once."""

    num_cpus: float = 1.0
    num_gpus: float = 0.0
    #: Custom resources (``resource.sandbox=1``): nodes that advertise them run the workers.
    resources: dict[str, float] = field(default_factory=dict)
    in_flight: int = IN_FLIGHT


def _number(key: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise ConfigError(f"--executor-option {key}={text}: write a number of at least 0")
    return value


def parse_options(options: dict[str, str]) -> RayOptions:
    """``--executor-option`` pairs as ``RayOptions``; an unknown key names the known ones."""
    values: dict[str, float] = {}
    resources: dict[str, float] = {}
    for key, text in options.items():
        if key.startswith("resource.") and len(key) > len("resource."):
            resources[key.removeprefix("resource.")] = _number(key, text)
        elif key in ("num_cpus", "num_gpus", "in_flight"):
            values[key] = _number(key, text)
        else:
            raise ConfigError(
                f"--executor-option {key}: the ray executor's options are num_cpus, num_gpus, "
                "in_flight and resource.NAME"
            )
    in_flight = int(values.pop("in_flight", IN_FLIGHT))
    if in_flight < 1:
        raise ConfigError("--executor-option in_flight: write a whole number of at least 1")
    return RayOptions(**values, resources=resources, in_flight=in_flight)
