"""docs/cli.md is generated from the CLI itself (Typer's own docs generator) and cannot drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REGENERATE = [sys.executable, "-m", "typer", "bench.cli", "utils", "docs", "--name", "bench"]
TITLE = ["--title", "The bench command line"]
#: What docs/cli.md holds above the generated part.
PREFACE = """\
<!-- Generated from bench's CLI by Typer's docs generator: do not edit.
     Regenerate with: python tests/test_cli_docs.py -->
"""


def generate(folder: Path) -> str:
    """The page: the preface, then what ``typer bench.cli utils docs`` writes."""
    out = folder / "cli.md"
    subprocess.run([*REGENERATE, *TITLE, "--output", str(out)], check=True, capture_output=True)
    return PREFACE + out.read_text(encoding="utf-8")


def test_docs_cli_is_what_the_cli_says(tmp_path):
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == generate(tmp_path), "docs/cli.md is stale: run python tests/test_cli_docs.py"


def test_docs_cli_lists_every_command_and_option():
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    from typer.main import get_command

    from bench.cli import app

    def walk(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")

    for path, command in walk(get_command(app), "bench"):
        assert f"## `{path}`" in page or path == "bench", path
        for param in command.params:
            for flag in param.opts:
                if flag.startswith("-"):
                    assert f"`{flag}" in page or f", {flag}" in page, (path, flag)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (ROOT / "docs" / "cli.md").write_text(generate(Path(folder)), encoding="utf-8")
