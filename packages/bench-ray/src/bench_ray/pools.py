"""Which workers run which rows: the default workers, and the pools of ``pool.TAG.*``.

A row goes to the first pool (in the order the options gave them) whose tag its ``needs`` name
(``PlanRow.needs``: ``gpu`` from a similarity judge, ``workspace`` for an agent in a ``repo:``),
else to the default workers. A group of workers no row goes to is not started.

A row's disk need (``disk=BYTES`` among its needs: its repository's size on disk, or declared)
goes only to workers that hold it (``disk=SIZE``, ``pool.TAG.disk=SIZE``; not said: any size): a
row too large for the pool of its tags, or for the default workers, goes to the first pool with
a ``disk`` that holds it; a row nothing holds is refused before a cluster starts (``unheld``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from bench.distributed import PlanRow, disk_of, format_size, without_disk
from bench_ray.options import Pool, RayOptions, Resources


def _holds(disk: int | None, size: int) -> bool:
    return disk is None or disk >= size


def route(
    needs: frozenset[str],
    pools: tuple[Pool, ...],
    required: frozenset[str] = frozenset(),
    disk: int | None = None,
) -> str | None:
    """The tag of the pool a row with ``needs`` goes to (first one whose tag the row declares in
    ``resources:``, the ``required`` tags, else the first one it needs, that holds its disk need);
    None: the default workers (which hold ``disk`` each). A row that only a pool with room holds
    goes to the first such pool; one that none holds, to the pool of its tags (``unheld`` says)."""
    size, tags = disk_of(needs), without_disk(needs)
    wanted = (tags & required) or tags
    tagged = [pool for pool in pools if pool.tag in wanted]
    fitting = next((pool.tag for pool in tagged if _holds(pool.disk, size)), None)
    if fitting is not None or tags & required:
        return fitting or next((pool.tag for pool in tagged), None)
    if _holds(disk, size):
        return None
    roomy = next((pool.tag for pool in pools if pool.disk is not None and pool.disk >= size), None)
    return roomy or next((pool.tag for pool in tagged), None)


def _too_large(
    runs: dict[frozenset[str], int], pools: tuple[Pool, ...], required: frozenset[str], disk: int | None
) -> str | None:
    """Why some runs cannot run: their disk need is more than the workers they go to hold."""
    held = {pool.tag: pool.disk for pool in pools}
    sizes: list[tuple[int, int]] = []
    for needs, count in runs.items():
        size = disk_of(needs)
        tag = route(needs, pools, required, disk)
        if size and not _holds(disk if tag is None else held[tag], size):
            sizes.append((size, count))
    if not sizes:
        return None
    count = sum(n for _, n in sizes)
    total = sum(size * n for size, n in sizes)
    holds = [f"the default workers {format_size(disk) if disk is not None else 'any size'}"]
    holds += [f"pool.{p.tag} {format_size(p.disk) if p.disk is not None else 'any size'}" for p in pools]
    return (
        f"--executor ray: {count} run{'s' * (count != 1)} need more disk for their repository than the "
        f"workers they can go to hold (the largest {format_size(max(s for s, _ in sizes))}, "
        f"{format_size(total)} in all; each worker holds: {', '.join(holds)}); give workers enough "
        "(--executor-option disk=SIZE for the default workers, pool.TAG.disk=SIZE for a pool's)"
    )


def unheld(
    runs: dict[frozenset[str], int],
    pools: tuple[Pool, ...],
    required: frozenset[str],
    disk: int | None = None,
) -> str | None:
    """Why some runs (``runs``: how many each ``needs`` has) cannot run: they declare tags in
    ``resources:`` that the pool they go to does not provide (a pool provides its own tag, the
    default workers none), or need more disk than it holds; None when every run has its place."""
    missing: dict[frozenset[str], int] = {}
    for needs, count in runs.items():
        declared = without_disk(needs) & required
        if declared and declared != {route(needs, pools, required, disk)}:
            missing[declared] = missing.get(declared, 0) + count
    if not missing:
        return _too_large(runs, pools, required, disk)
    offered = ", ".join(f"pool.{p.tag} ({p.workers} worker{'s' * (p.workers != 1)})" for p in pools)
    parts = []
    for declared, count in sorted(missing.items(), key=lambda item: sorted(item[0])):
        tags = " and ".join(f"'{tag}'" for tag in sorted(declared))
        parts.append(f"{count} run{'s' * (count != 1)} need {tags}")
    total = sum(missing.values())
    in_all = f" ({total} in all)" if len(parts) > 1 else ""
    return (
        f"--executor ray: {'; '.join(parts)}{in_all}, which no worker provides (the pools: "
        f"{offered or 'none'}; a pool provides its own tag, the default workers none); add a pool "
        "for each tag (--executor-option pool.TAG.workers=N, and pool.TAG.resource.NAME=AMOUNT "
        "for what its workers ask of the cluster)"
    )


@dataclass
class Group:
    """Workers that ask for the same resources, and which rows they run."""

    #: ``pool.TAG``, or None for the default workers (``--workers``).
    tag: str | None
    resources: Resources
    #: The workers' indexes among all of the run's workers.
    members: list[int]
    pools: tuple[Pool, ...] = ()
    #: The tags tasks declare in ``resources:`` (``Plan.required``): they route first.
    required: frozenset[str] = frozenset()
    #: What each default worker holds of disk (``disk=SIZE``; None: not said).
    disk: int | None = None
    _takes: dict[frozenset[str], bool] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        """How the run's options name this group."""
        return "--executor ray" if self.tag is None else f"--executor-option pool.{self.tag}"

    def takes(self, needs: frozenset[str]) -> bool:
        found = self._takes.get(needs)
        if found is None:
            found = self._takes[needs] = route(needs, self.pools, self.required, self.disk) == self.tag
        return found

    def rows(self, rows: Iterable[PlanRow]) -> Iterator[PlanRow]:
        """This group's rows of ``rows``, in their order."""
        return (row for row in rows if self.takes(row.needs))


def default_workers(
    options: RayOptions, cpus: float, used: set[frozenset[str]], required: frozenset[str] = frozenset()
) -> int:
    """How many default workers start without ``--workers``: as many as the cluster's ``cpus``
    hold once the pools some row goes to have theirs (a worker Ray cannot place never starts)."""
    routed = {route(needs, options.pools, required, options.disk) for needs in used}
    left = cpus - sum(p.workers * p.resources.num_cpus for p in options.pools if p.tag in routed)
    per_worker = options.default.num_cpus
    return max(1, int(left // per_worker if per_worker > 0 else left))


def groups(
    options: RayOptions,
    count: int,
    used: set[frozenset[str]],
    note: Callable[[str], None],
    required: frozenset[str] = frozenset(),
) -> list[Group]:
    """The groups of workers to start for rows with the ``used`` needs: ``count`` default workers
    when some row needs no pool, then each pool some row goes to (``note`` tells of the others)."""
    routed = {route(needs, options.pools, required, options.disk) for needs in used}
    found: list[Group] = []
    start = 0
    if None in routed:
        found.append(Group(None, options.default, list(range(count)), options.pools, required, options.disk))
        start = count
    for pool in options.pools:
        if pool.tag not in routed:
            why = (
                f"the tasks that need '{pool.tag}' go to an earlier pool"
                if any(pool.tag in needs for needs in used)
                else f"no task of this run needs '{pool.tag}'"
            )
            note(f"--executor-option pool.{pool.tag}: {why}; the pool starts no workers")
            continue
        members = list(range(start, start + pool.workers))
        found.append(Group(pool.tag, pool.resources, members, options.pools, required, options.disk))
        start += pool.workers
    return found


def _amount(name: str, value: float) -> str:
    if name in ("memory", "object_store_memory"):
        return f"{value / 2**30:.1f} GiB" if value >= 2**30 else f"{value / 2**20:.0f} MiB"
    return f"{value:g}"


def describe_cluster(totals: dict[str, float]) -> str:
    """``CPU 2, memory 3.1 GiB, object_store_memory 256 MiB, no GPU, sandbox 1``: what a cluster
    has (``ray.cluster_resources()``), without its per-node markers."""
    first = ["CPU", "memory", "object_store_memory", "GPU"]
    rest = sorted(n for n in totals if n not in first and not n.startswith(("node:", "accelerator_type:")))
    parts = [f"{name} {_amount(name, totals[name])}" for name in first[:3] if name in totals]
    parts.append(f"GPU {totals['GPU']:g}" if "GPU" in totals else "no GPU")
    parts += [f"{name} {_amount(name, totals[name])}" for name in rest]
    return ", ".join(parts)


def fits(resources: Resources, node: dict[str, float]) -> bool:
    """Whether one worker asking ``resources`` fits on a node with these total resources."""
    return all(node.get(name, 0.0) >= amount for name, amount in resources.asks().items())


def _asks(groups: list[Group]) -> dict[str, float]:
    """What all of ``groups``' workers ask for together (Ray's resource names)."""
    total: dict[str, float] = {}
    for group in groups:
        for name, amount in group.resources.asks().items():
            total[name] = total.get(name, 0.0) + len(group.members) * amount
    return total


def placement_error(
    group: Group,
    timeout: float,
    nodes: list[dict[str, float]],
    totals: dict[str, float],
    run: list[Group] | None = None,
) -> str:
    """Why ``group``'s workers did not start within ``timeout`` seconds, and what to do (``run``:
    all the run's groups, whose workers together may ask for more than the cluster has)."""
    n = len(group.members)
    workers = f"{n} worker{'s' if n != 1 else ''}"
    asked = group.resources.describe()
    cluster = describe_cluster(totals)
    if not any(fits(group.resources, node) for node in nodes):
        what = "drop the pool" if group.tag is not None else "ask for less"
        return (
            f"{group.label}: no node of the cluster has {asked} for its {workers} "
            f"(the cluster has {cluster}); add such a node or {what}"
        )
    asks = _asks(run or [group])
    short = [name for name, amount in asks.items() if amount > totals.get(name, 0.0)]
    if short:
        count = sum(len(g.members) for g in run or [group])
        wanted = ", ".join(f"{name} {_amount(name, asks[name])}" for name in short)
        return (
            f"{group.label}: its {workers} ({asked}) did not start: the run's {count} workers ask for "
            f"{wanted} in all (the cluster has {cluster}); start fewer workers (--workers, "
            "pool.TAG.workers) or add nodes"
        )
    return (
        f"{group.label}: its {workers} ({asked}) did not start within {timeout:g} s (the cluster has "
        f"{cluster}; other work may hold them); free them or raise --executor-option start_timeout"
    )


def not_started(found: list[Group], late: list[int], timeout: float) -> str:
    """The error for a group with a worker in ``late`` (Ray is initialised): one that no node can
    place, if any, since that is the cause for certain; else the first one late (on a loaded
    machine, workers that can start may still be starting)."""
    import ray

    nodes = [dict(node.get("Resources", {})) for node in ray.nodes() if node.get("Alive")]
    waiting = [g for g in found if set(g.members) & set(late)]
    unplaceable = [g for g in waiting if not any(fits(g.resources, node) for node in nodes)]
    group = (unplaceable or waiting)[0]
    return placement_error(group, timeout, nodes, dict(ray.cluster_resources()), found)
