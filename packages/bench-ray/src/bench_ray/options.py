"""The ray executor's own settings (``--executor-option KEY=VALUE``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench import ConfigError
from bench.distributed import parse_size

#: Chunks in flight per worker: one running, one queued behind it.
IN_FLIGHT = 2
DEFAULT_CHUNK = 512
#: Seconds the workers have to be placed on the cluster and answer their first ``ready()``.
START_TIMEOUT_S = 60.0
_RUN_KEYS = ("in_flight", "start_timeout")
_POOL_KEYS = (
    "pool.TAG.workers, pool.TAG.num_cpus, pool.TAG.num_gpus, pool.TAG.disk and pool.TAG.resource.NAME"
)


@dataclass(frozen=True)
class Resources:
    """What one worker actor asks Ray for."""

    num_cpus: float = 1.0
    num_gpus: float = 0.0
    #: Custom resources (``resource.sandbox=1``): nodes that advertise them run the workers.
    resources: dict[str, float] = field(default_factory=dict)

    def describe(self) -> str:
        """``num_gpus=1, resource.sandbox=1``: what it asks beyond one CPU."""
        asked = [] if self.num_cpus == 1 else [f"num_cpus={self.num_cpus:g}"]
        asked += [f"num_gpus={self.num_gpus:g}"] if self.num_gpus else []
        asked += [f"resource.{name}={amount:g}" for name, amount in self.resources.items()]
        return ", ".join(asked) or f"num_cpus={self.num_cpus:g}"

    def asks(self) -> dict[str, float]:
        """What one worker asks for, under Ray's resource names (``CPU``, ``GPU``, custom ones)."""
        asked = {"CPU": self.num_cpus, "GPU": self.num_gpus, **self.resources}
        return {name: amount for name, amount in asked.items() if amount}


@dataclass(frozen=True)
class Pool:
    """``pool.TAG.*``: ``workers`` extra workers with their own resources, for the rows that need
    ``TAG`` (``PlanRow.needs``)."""

    tag: str
    workers: int
    resources: Resources = field(default_factory=Resources)
    #: Bytes of disk each worker has for a task's workspace (``pool.TAG.disk=SIZE``); None: not
    #: said (any repository fits).
    disk: int | None = None


@dataclass(frozen=True)
class RayOptions:
    """What each default worker actor asks Ray for, the pools, and how many chunks a worker holds."""

    #: The default workers' resources (``--workers``; ``num_cpus``, ``num_gpus``, ``resource.NAME``).
    default: Resources = field(default_factory=Resources)
    in_flight: int = IN_FLIGHT
    #: In the order the options gave them: a row that needs several tags goes to the first.
    pools: tuple[Pool, ...] = ()
    start_timeout: float = START_TIMEOUT_S
    #: Bytes of disk each default worker has for a task's workspace (``disk=SIZE``); None: not said.
    disk: int | None = None


def _number(key: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise ConfigError(f"--executor-option {key}={text}: write a number of at least 0")
    return value


def _disk(key: str, settings: dict[str, str]) -> int | None:
    """``disk=SIZE`` of ``settings`` in bytes, taken out of them (``key``: how errors name it)."""
    if "disk" not in settings:
        return None
    text = settings.pop("disk")
    size = parse_size(text)
    if size is None:
        raise ConfigError(f"--executor-option {key}={text}: write a size (disk=20GiB, disk=500MB)")
    return size


def _resources(prefix: str, settings: dict[str, str]) -> Resources:
    """``num_cpus``, ``num_gpus`` and ``resource.NAME`` of ``settings`` as ``Resources``, taken out
    of ``settings`` (``prefix`` goes before a key in error messages)."""
    values: dict[str, float] = {}
    resources: dict[str, float] = {}
    for key in list(settings):
        if key.startswith("resource.") and len(key) > len("resource."):
            resources[key.removeprefix("resource.")] = _number(prefix + key, settings.pop(key))
        elif key in ("num_cpus", "num_gpus"):
            values[key] = _number(prefix + key, settings.pop(key))
    return Resources(**values, resources=resources)


def _pools(given: dict[str, dict[str, str]]) -> tuple[Pool, ...]:
    pools = []
    for tag, settings in given.items():
        prefix = f"pool.{tag}"
        if "workers" not in settings:
            raise ConfigError(
                f"--executor-option {prefix}: give {prefix}.workers=N (how many workers the pool starts)"
            )
        text = settings.pop("workers")
        if not text.isdigit() or int(text) < 1:
            raise ConfigError(
                f"--executor-option {prefix}.workers={text}: write a whole number of at least 1"
            )
        disk = _disk(f"{prefix}.disk", settings)
        resources = _resources(f"{prefix}.", settings)
        for key in settings:  # what _resources left
            raise ConfigError(f"--executor-option {prefix}.{key}: a pool's options are {_POOL_KEYS}")
        pools.append(Pool(tag, int(text), resources, disk))
    return tuple(pools)


def parse_options(options: dict[str, str]) -> RayOptions:
    """``--executor-option`` pairs as ``RayOptions``; an unknown key names the known ones."""
    settings = dict(options)
    pools: dict[str, dict[str, str]] = {}  # tag -> its settings, in the order first given
    for key in [k for k in settings if k.startswith("pool.")]:
        tag, _, setting = key.removeprefix("pool.").partition(".")
        if not tag or not setting:
            raise ConfigError(f"--executor-option {key}: a pool's options are {_POOL_KEYS}")
        pools.setdefault(tag, {})[setting] = settings.pop(key)
    disk = _disk("disk", settings)
    default = _resources("", settings)
    values = {
        key: _number(key, settings.pop(key)) for key in ("in_flight", "start_timeout") if key in settings
    }
    for key in settings:  # what is left is unknown
        raise ConfigError(
            f"--executor-option {key}: the ray executor's options are num_cpus, num_gpus, disk, "
            f"in_flight, start_timeout, resource.NAME and {_POOL_KEYS}"
        )
    in_flight = int(values.get("in_flight", IN_FLIGHT))
    if in_flight < 1:
        raise ConfigError("--executor-option in_flight: write a whole number of at least 1")
    start_timeout = values.get("start_timeout", START_TIMEOUT_S)
    if not start_timeout > 0:
        raise ConfigError("--executor-option start_timeout: write a number of seconds above 0")
    return RayOptions(default, in_flight, _pools(pools), start_timeout, disk)
