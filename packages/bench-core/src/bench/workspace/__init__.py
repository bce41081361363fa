"""Agent workspaces: git copies, captures, confined file access, tools, trajectories, the sandbox."""
