"""Load a suite file into a Plan (the builder moves to ``bench.suite.tasks`` while it is split)."""

from bench.suite.tasks import choose_loader, load_suite

__all__ = ["choose_loader", "load_suite"]
