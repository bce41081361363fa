"""Files that belong to another tool's suite without being one: say what they are and what loads them."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from bench import ConfigError, SuiteLoader, YamlDocument
from bench_formats.sniff import top_keys

#: Which files name a part, by the part's kind: searched in the part's folder and its parent.
_LOADERS = {
    "promptfoo": ("promptfooconfig.yaml", "promptfooconfig.yml", "promptfooconfig.json"),
}


def _what(path: Path) -> tuple[str, str] | None:
    """(what the file is, what loads it), or None when it is not a known part."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return (
            "a CSV of promptfoo tests",
            "a promptfoo config loads it with `tests: file://{name}`",
        )
    if suffix in {".txt", ".md", ".j2", ".nunjucks"}:
        return "a prompt file", "a promptfoo config loads it with `prompts: [file://{name}]`"
    keys = top_keys(path)
    if {"name", "template"} <= keys:
        return "an AI Eval prompt", "AI Eval suites in ../tests/ name it with `prompt: <its name>`"
    if {"name", "config"} <= keys <= {"name", "description", "config"}:
        return (
            "a youBencha evaluator definition",
            "a youBencha test case loads it with `evaluators: [{{file: {name}}}]`",
        )
    return None


def _users(path: Path) -> list[Path]:
    """Config files near ``path`` that mention its name."""
    found = []
    for folder in (path.parent, path.parent.parent):
        for pattern in ("*.yaml", "*.yml", "*.json"):
            for candidate in sorted(folder.glob(pattern)):
                if candidate == path or candidate.stat().st_size > 1 << 20:
                    continue
                try:
                    if path.name in candidate.read_text(encoding="utf-8", errors="replace"):
                        found.append(candidate)
                except OSError:
                    continue
    return found[:3]


class SuitePartLoader(SuiteLoader):
    """Claims the parts of other tools' suites only to refuse them with a useful message."""

    name: ClassVar[str] = "suite-part"
    priority: ClassVar[int] = 5  # after every format's own loader, before the native one

    def claims(self, path: Path) -> bool:
        return _what(path) is not None

    def load(self, path: Path) -> YamlDocument:
        found = _what(path)
        assert found is not None
        what, loader = found
        message = f"this is {what}, not a suite: {loader.format(name=path.name)}"
        users = _users(path)
        if users:
            message += "; run " + " or ".join(f"'{p}'" for p in users)
        raise ConfigError(message, file=path)
