"""A scripted stand-in for a coding agent: reads its task on stdin and edits the workspace.

It works the way a real CLI agent does (in the workspace bench prepared, its current folder)
and reports its trajectory as OpenAI-style messages, one per line, in the file bench names in
BENCH_TRAJECTORY_FILE, with a final ``{"usage": ...}`` line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

messages: list[dict[str, object]] = []


def tool(name: str, arguments: dict[str, str], run: object) -> str:
    call_id = f"call_{len(messages)}"
    messages.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        }
    )
    result = run() if callable(run) else str(run)
    messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
    return result


def write(path: str, text: str) -> str:
    Path(path).write_text(text)
    return f"wrote {len(text)} bytes to {path}"


def command(line: str) -> str:
    # No bytecode: this agent edits calc.py and reruns the test within the same second, and
    # Python would take the cached bytecode of the old calc.py (it checks the file's mtime in
    # whole seconds, and the fix keeps the size) and leave __pycache__ in the diff.
    quiet = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(line.split(), capture_output=True, text=True, env=quiet)
    return f"exit code {done.returncode}\n{done.stdout}{done.stderr}"


task = sys.stdin.read()
messages.append({"role": "user", "content": task})
if "add()" in task:
    source = tool("read_file", {"path": "calc.py"}, lambda: Path("calc.py").read_text())
    test = Path(__file__).with_name("reference_test.py").read_text()
    tool("write_file", {"path": "test_calc.py"}, lambda: write("test_calc.py", test))
    tool(
        "run_command",
        {"command": f"{sys.executable} test_calc.py"},
        lambda: command(f"{sys.executable} test_calc.py"),
    )
    fixed = source.replace("return a - b", "return a + b")
    tool("write_file", {"path": "calc.py"}, lambda: write("calc.py", fixed))
    tool(
        "run_command",
        {"command": f"{sys.executable} test_calc.py"},
        lambda: command(f"{sys.executable} test_calc.py"),
    )
    answer = "Fixed add() (it subtracted) and added test_calc.py; the tests pass."
else:
    readme = tool("read_file", {"path": "README.md"}, lambda: Path("README.md").read_text())
    usage = readme + "\n## Usage\n\n```python\nfrom calc import add\nadd(2, 3)  # 5\n```\n"
    tool("write_file", {"path": "README.md"}, lambda: write("README.md", usage))
    answer = "Added a Usage section to README.md."
messages.append({"role": "assistant", "content": answer})

with open(os.environ["BENCH_TRAJECTORY_FILE"], "w") as out:
    for message in messages:
        out.write(json.dumps(message) + "\n")
    out.write(json.dumps({"usage": {"input_tokens": 1800, "output_tokens": 240, "cost_usd": 0.0}}) + "\n")
print(answer)
