"""Plugin discovery through entry points, the registry, and bench-core's own plugin."""
