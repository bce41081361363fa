"""bench-agent: evaluate coding agents in real workspaces."""

__version__ = "0.1.0"
