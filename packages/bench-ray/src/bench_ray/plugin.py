"""bench-ray's plugin module: registers the ``ray`` executor (Ray itself is imported by a run)."""

from __future__ import annotations

from bench import RegisterExecutor, hookimpl

# Registered by name and import path: a class is imported when a suite first uses it,
# so bench's start-up does not import every class of the plugin.
EXECUTORS = {
    "ray": "bench_ray.executor:RayExecutor",
}


@hookimpl
def bench_register_executors(register: RegisterExecutor) -> None:
    for name, path in EXECUTORS.items():
        register(name, path)
