#!/usr/bin/env python3
"""Set up and run bench's developer commands on a fresh machine with only Python 3.11.

    python3 dev.py demo     # run the offline quickstart suite (examples/quickstart/)
    python3 dev.py test     # each package's tests alone, the cross-package tests on each Python the
                            # machine has, lint and typecheck (the noxfile's default sessions)
    python3 dev.py bench    # run the performance benchmarks
    python3 dev.py typecheck  # mypy as CI runs it (the pre-commit hook)
    python3 dev.py latest   # the suite on the newest versions the pyproject ranges allow
    python3 dev.py lock     # write constraints.txt again (after `latest` passes)

It makes a private virtual environment (.venv-dev) holding nox and uv (which nox uses to build
the test environments about ten times faster than pip), then hands over to nox.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
TOOLS = ROOT / ".venv-dev"
TOOL_PACKAGES = ["nox==2026.10.20", "uv==0.13.9"]
COMMANDS = {
    "demo": ["-s", "demo"],
    "test": [],  # the noxfile's default sessions
    "bench": ["-s", "bench"],
    "typecheck": ["-s", "typecheck"],
    "latest": ["-s", "latest"],
    "lock": ["-s", "lock"],
}
#: Sessions of `test` that a second nox process runs beside the others: Ray's (one cluster in one
#: process, mostly waiting on its workers), the version-dependent tests on the other Pythons, and
#: bench-core's and bench-nlp-metrics' package tests, so that both processes end about together.
#: Run in one sequence, the suite leaves a third of a 2-core machine idle; without bench-core here,
#: the first process ran about 12 minutes and the second 7 (bench-core's session: about 2 minutes);
#: without bench-nlp-metrics (about a minute), 16.4 and 14 on a slow day.
ALONGSIDE = (
    "package(bench-core)",
    "package(bench-nlp-metrics)",
    "package(bench-ray)",
    "tests-3.10",
    "tests-3.12",
    "tests-3.13",
)
#: What a command prints once nox has run it: what it showed and what to try next.
AFTERWORDS = {
    "demo": """
That was examples/quickstart/suite.yaml, run offline against a stand-in assistant (assistant.py).
Task wrong-answer fails on purpose, to show what a failure looks like (the assistant says Sydney
is the capital of Australia): that is why bench run exited 1, and the demo worked.

Next, from the repository root, with the demo's environment:
  {bench} show latest    # the run again, in the terminal
  {bench} view           # browse the runs in your web browser
  {bench} run examples/quickstart/suite.yaml -o report.html   # one HTML page to open from disk
More in examples/quickstart/README.md.""",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        return 2
    python = TOOLS / ("Scripts" if os.name == "nt" else "bin") / "python"
    if not python.exists():
        venv.EnvBuilder(with_pip=True).create(TOOLS)
    check = subprocess.run([python, "-c", "import nox, uv"], capture_output=True, check=False)
    if check.returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "--quiet", *TOOL_PACKAGES], check=True)
    nox = [str(python), "-m", "nox", "-f", str(ROOT / "noxfile.py")]
    if argv == ["test"]:
        returncode = _test_in_two_processes(nox)
    else:
        rest = argv[1:]
        if argv[0] == "bench" and rest and rest[0] != "--":
            rest = ["--", *rest]  # `dev.py bench --peers`: the benchmark's arguments, not nox's
        returncode = subprocess.run([*nox, *COMMANDS[argv[0]], *rest], cwd=ROOT, check=False).returncode
    if returncode == 0 and argv[0] in AFTERWORDS:
        # nox keeps each session's environment in .nox/<session>; the demo's has bench.
        bench = Path(".nox", argv[0], "Scripts" if os.name == "nt" else "bin", "bench")
        print(AFTERWORDS[argv[0]].format(bench=bench))
    return returncode


def _test_in_two_processes(nox: list[str]) -> int:
    """The default sessions, ALONGSIDE's in a second nox process whose output follows the first's;
    non-zero when either process failed."""
    listed = subprocess.run([*nox, "-l", "--json"], cwd=ROOT, capture_output=True, text=True, check=True)
    sessions = [entry["session"] for entry in json.loads(listed.stdout)]
    beside = [name for name in sessions if name in ALONGSIDE]
    first = [name for name in sessions if name not in ALONGSIDE]
    if not beside or not first:
        return subprocess.run([*nox, "-s", *sessions], cwd=ROOT, check=False).returncode
    with tempfile.TemporaryFile("w+") as log:
        second = subprocess.Popen([*nox, "-s", *beside], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            first_code = subprocess.run([*nox, "-s", *first], cwd=ROOT, check=False).returncode
            second_code = second.wait()
        finally:
            if second.poll() is None:
                second.terminate()
        log.seek(0)
        print(f"\n== the sessions run alongside: {', '.join(beside)}\n", flush=True)
        sys.stdout.write(log.read())
    return first_code or second_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
