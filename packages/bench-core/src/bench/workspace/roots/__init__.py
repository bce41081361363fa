"""Where workspaces live on disk, and what is left there when a run dies."""
