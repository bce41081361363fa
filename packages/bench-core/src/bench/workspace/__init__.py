"""Agent workspaces: git copies, captures, confined file access, tools, trajectories, the sandbox.

The public API for plugins that read what an agent left in its workspace (docs/plugins.md):
``git`` runs git safely on a repository bench does not trust, ``changes`` and ``summarize`` list
what changed between two commits, ``rebuilt`` makes a stored run's workspace again (its base
commit and kept change) for ``bench rescore``, ``read_inside`` and ``list_inside`` never leave it,
``Workbench`` and ``specs`` give a model the workspace's tools, and ``sandbox`` runs code in a
child process with limits, ``scratch_folder`` holds a task's scratch files (removed by the next
run if this one is killed); ``Sandbox`` is the contract of a place a command runs instead of
the host (``bench_register_sandboxes``) and ``open_sandbox`` opens the one a ``sandbox:``
setting names, whichever plugin registered its type. Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.vocabulary import lazy_exports

if TYPE_CHECKING:
    from bench.intake.rebuilding import rebuilt as rebuilt
    from bench.plugins.sandboxes import open_sandbox as open_sandbox
    from bench.workspace import sandbox as sandbox
    from bench.workspace.checkout import changes as changes
    from bench.workspace.checkout import summarize as summarize
    from bench.workspace.confined import list_inside as list_inside
    from bench.workspace.confined import read_inside as read_inside
    from bench.workspace.network_guard import OfflineRefused as OfflineRefused
    from bench.workspace.network_guard import child_prefix as child_prefix
    from bench.workspace.network_guard import install_from_env as install_from_env
    from bench.workspace.roots.scratch import scratch_folder as scratch_folder
    from bench.workspace.safe_git import GitError as GitError
    from bench.workspace.safe_git import git as git
    from bench.workspace.sandboxes import Mount as Mount
    from bench.workspace.sandboxes import RegisterSandbox as RegisterSandbox
    from bench.workspace.sandboxes import Sandbox as Sandbox
    from bench.workspace.sandboxes import SandboxConfig as SandboxConfig
    from bench.workspace.sandboxes import SandboxRun as SandboxRun
    from bench.workspace.tools import READ_ONLY_TOOLS as READ_ONLY_TOOLS
    from bench.workspace.tools import ToolResult as ToolResult
    from bench.workspace.tools import Workbench as Workbench
    from bench.workspace.tools import specs as specs

#: name -> the module that defines it
_EXPORTS = {
    "git": "bench.workspace.safe_git",
    "GitError": "bench.workspace.safe_git",
    "changes": "bench.workspace.checkout",
    "summarize": "bench.workspace.checkout",
    "read_inside": "bench.workspace.confined",
    "list_inside": "bench.workspace.confined",
    "Workbench": "bench.workspace.tools",
    "ToolResult": "bench.workspace.tools",
    "READ_ONLY_TOOLS": "bench.workspace.tools",
    "specs": "bench.workspace.tools",
    "Sandbox": "bench.workspace.sandboxes",
    "SandboxConfig": "bench.workspace.sandboxes",
    "SandboxRun": "bench.workspace.sandboxes",
    "Mount": "bench.workspace.sandboxes",
    "RegisterSandbox": "bench.workspace.sandboxes",
    "install_from_env": "bench.workspace.network_guard",
    # the registry of sandbox types lives above the workspace: loaded only when asked for
    "open_sandbox": "bench.plugins.sandboxes",
    "rebuilt": "bench.intake.rebuilding",  # a stored run's workspace made again
    "child_prefix": "bench.workspace.network_guard",
    "OfflineRefused": "bench.workspace.network_guard",
    "scratch_folder": "bench.workspace.roots.scratch",  # a task's scratch files, swept if bench is killed
}

_EXPORTS["sandbox"] = "bench.workspace.sandbox"  # a module exported whole

__all__ = [*_EXPORTS]


__getattr__ = lazy_exports("bench.workspace", _EXPORTS)
