"""bench-ray's plugin module: registers the ``ray`` executor (Ray itself is imported by a run)."""

from __future__ import annotations

from bench import RegisterExecutor, hookimpl
from bench_ray.executor import RayExecutor


@hookimpl
def bench_register_executors(register: RegisterExecutor) -> None:
    register(RayExecutor)
