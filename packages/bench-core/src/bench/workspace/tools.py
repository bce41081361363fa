"""Tools a model may call on a workspace: read_file, write_file, list_dir and run_command.

The built-in agent (bench-agent's ``agent`` target) and judges that inspect a workspace use
them. Paths are confined to the workspace (``bench.workspace.confined``: absolute paths, ``..`` and links
leading out are refused; writes never follow a link). ``run_command`` runs ``/bin/sh -c`` in
``bench.workspace.sandbox`` (no network, private ``/tmp``, resource limits, where the machine allows),
with a timeout, or, given a ``Sandbox`` (``sandbox: {type: container, ...}``), inside it with only
the workspace mounted. A tool never raises: failures come back as text starting with ``error:`` (and a
command's result starts with ``exit code N``), so the model can read them and react.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.vocabulary.errors import EvaluatorError
from bench.vocabulary.redact import excerpt
from bench.vocabulary.tool_calls import decode_arguments
from bench.workspace import sandbox
from bench.workspace.confined import inside, list_inside, read_inside
from bench.workspace.sandboxes import Sandbox

READ_LIMIT = 256 * 1024
WRITE_LIMIT = 4 * 1024 * 1024
LIST_LIMIT = 1000
ALL_TOOLS = ("read_file", "write_file", "list_dir", "run_command")
READ_ONLY_TOOLS = ("read_file", "list_dir")

_SPECS: dict[str, dict[str, Any]] = {
    "read_file": {
        "description": "Read a text file of the workspace.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Path relative to the workspace."}},
            "required": ["path"],
        },
    },
    "write_file": {
        "description": "Create or overwrite a file of the workspace with the given content.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path relative to the workspace."},
                "content": {"type": "string", "description": "The whole new content of the file."},
            },
            "required": ["path", "content"],
        },
    },
    "list_dir": {
        "description": "List the files under a folder of the workspace (default: all of it).",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Folder relative to the workspace."}},
        },
    },
    "run_command": {
        "description": "Run a shell command in the workspace (no network); returns its exit code and output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command line."}},
            "required": ["command"],
        },
    },
}


def specs(names: Sequence[str]) -> list[dict[str, Any]]:
    """OpenAI-style tool specs for the named tools."""
    return [{"type": "function", "function": {"name": n, **_SPECS[n]}} for n in names]


@dataclass(frozen=True)
class ToolResult:
    """What a tool call returned, and whether it failed."""

    text: str
    failed: bool


class Workbench:
    """The tools bound to one workspace."""

    def __init__(
        self,
        root: Path | str,
        *,
        allowed: tuple[str, ...] = ALL_TOOLS,
        command_timeout: float = 60,
        container: Sandbox | None = None,
    ) -> None:
        self.root = Path(root)
        self.allowed = allowed
        self.command_timeout = command_timeout
        #: Where ``run_command`` runs instead of the host (None: bench's own sandbox).
        self.container = container

    async def call(self, name: str, arguments: Any) -> ToolResult:
        """Run one tool call; never raises."""
        if name not in self.allowed:
            return ToolResult(f"error: unknown tool {name!r}; available: {', '.join(self.allowed)}", True)
        if isinstance(arguments, str):
            decoded = decode_arguments(arguments)
            # Text that is not JSON comes back as it is (JSON text never decodes to itself).
            if decoded == arguments:
                return ToolResult(f"error: the arguments are not JSON: {excerpt(arguments, 200)}", True)
            arguments = decoded
        if not isinstance(arguments, dict):
            return ToolResult("error: the arguments must be a JSON object", True)
        try:
            if name == "read_file":
                return self._read(str(arguments["path"]))
            if name == "write_file":
                return self._write(str(arguments["path"]), str(arguments["content"]))
            if name == "list_dir":
                return self._list(str(arguments.get("path") or "."))
            return await self._run(str(arguments["command"]))
        except KeyError as exc:
            return ToolResult(f"error: missing argument {exc.args[0]!r}", True)
        except EvaluatorError as exc:  # PathEscape and unreadable files
            return ToolResult(f"error: {exc}", True)
        except OSError as exc:
            return ToolResult(f"error: {exc.strerror or exc}", True)

    def _read(self, path: str) -> ToolResult:
        read = read_inside(self.root, path, READ_LIMIT)
        if read is None:
            return ToolResult(f"error: {path} does not exist", True)
        note = f"\n[cut at {READ_LIMIT} bytes of {read.size}]" if read.truncated else ""
        return ToolResult(read.text + note, False)

    def _write(self, path: str, content: str) -> ToolResult:
        data = content.encode()
        if len(data) > WRITE_LIMIT:
            return ToolResult(f"error: content is {len(data)} bytes, more than {WRITE_LIMIT}", True)
        inside(self.root, path)  # refuses the whole path before any folder is made
        parent, name = os.path.split(path.rstrip("/"))
        if not name:
            return ToolResult("error: give a file path", True)
        folder = inside(self.root, parent or ".")
        if folder.exists() and not folder.is_dir():
            return ToolResult(f"error: {parent} is not a folder", True)
        folder.mkdir(parents=True, exist_ok=True)
        inside(self.root, parent or ".")  # created folders stay inside
        fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        return ToolResult(f"wrote {len(data)} bytes to {path}", False)

    def _list(self, path: str) -> ToolResult:
        entries, cut = list_inside(self.root, path, max_entries=LIST_LIMIT)
        shown = [e for e in entries if not (e == ".git/" or e.startswith(".git/"))]
        note = f"\n[cut at {LIST_LIMIT} entries]" if cut else ""
        return ToolResult("\n".join(shown) + note if shown else "(empty)", False)

    async def _run(self, command: str) -> ToolResult:
        if self.container is not None:
            return await self._run_inside(self.container, command)
        limits = sandbox.Limits(
            timeout_s=self.command_timeout,
            cpu_s=max(1, int(self.command_timeout)),
            memory_mb=2048,
            processes=128,
            file_size_mb=64,
            output_bytes=64 * 1024,
        )
        done = await sandbox.run(
            ["/bin/sh", "-c", command], self.root, limits, python=sandbox.python_executable()
        )
        output = (done.stdout + done.stderr).strip()
        if done.timed_out:
            return ToolResult(f"error: timed out after {self.command_timeout:g} s\n{output}", True)
        code = done.exit_code if done.exit_code is not None else -1
        return ToolResult(f"exit code {code}" + (f"\n{output}" if output else ""), code != 0)

    async def _run_inside(self, box: Sandbox, command: str) -> ToolResult:
        """``command`` in a fresh ``box`` (a container) that sees only the workspace, read-write."""
        done = await sandbox.run_inside(box, ["/bin/sh", "-c", command], self.root, self.command_timeout)
        output = excerpt((done.stdout + done.stderr).strip(), 64 * 1024)
        if done.timed_out:
            return ToolResult(f"error: timed out after {self.command_timeout:g} s\n{output}", True)
        code = done.exit_code if done.exit_code is not None else -1
        return ToolResult(f"exit code {code}" + (f"\n{output}" if output else ""), code != 0)
