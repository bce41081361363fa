"""The promptfoo config loader: a ``promptfooconfig.yaml`` as a native bench suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from bench import ConfigError, SuiteLoader, YamlDocument
from bench_formats.sniff import top_keys

CONFIG_NAMES = ("promptfooconfig.yaml", "promptfooconfig.yml", "promptfooconfig.json")
#: Top-level keys that change nothing bench runs, with what the warning says.
_IGNORED = {
    "outputPath": (
        "outputPath is ignored: bench keeps every run under .bench/runs "
        "(bench run --output FILE writes a report)"
    ),
    "sharing": "sharing is ignored",
    "writeLatestResults": "writeLatestResults is ignored",
    "tags": "tags are ignored",
}
#: Top-level keys whose meaning bench cannot keep.
_REFUSED = {
    "scenarios": "scenarios are not supported: write each scenario's tests into 'tests:'",
    "redteam": "redteam configs are not supported: bench runs evaluation configs only",
}


class PromptfooLoader(SuiteLoader):
    """Reads a promptfoo config (prompts × providers × tests) into native bench tasks."""

    name: ClassVar[str] = "promptfoo"

    def claims(self, path: Path) -> bool:
        if path.name in CONFIG_NAMES:
            return True
        keys = top_keys(path)
        return "prompts" in keys and ("providers" in keys or "tests" in keys)

    def declines(self, path: Path) -> tuple[float, str] | None:
        keys = top_keys(path)
        what = "a promptfoo config has top-level 'prompts' with 'providers' or 'tests'"
        if "prompts" in keys:
            return 0.5, f"{what}; this file has neither 'providers' nor 'tests'"
        if "providers" in keys or "tests" in keys:
            return 0.5, f"{what}; this file lacks 'prompts'"
        return None

    def load(self, path: Path) -> YamlDocument:
        from bench_formats.promptfoo.build import build

        seen: set[str] = set()

        def warn(line: str) -> None:
            if line not in seen:
                seen.add(line)
                self.warnings.append(line)

        config = _read(path)
        for key, message in _REFUSED.items():
            if key in config:
                raise ConfigError(message, file=path, field=(key,))
        if config.get("extensions"):
            raise ConfigError(_extensions_refused(config["extensions"]), file=path, field=("extensions",))
        for key, message in _IGNORED.items():
            if key in config:
                warn(message)
        data = build(config, path, self.options.target, warn, self.suite_folder(path))
        return YamlDocument(path=path, data=data, root=None)


def _extensions_refused(extensions: Any) -> str:
    """Why a config with ``extensions`` is refused: its hooks may change the suite and every test
    (promptfoo's beforeAll/beforeEach/afterEach/afterAll), and bench does not run them."""
    hooks = extensions if isinstance(extensions, list) else [extensions]
    named = ", ".join(str(hook) for hook in hooks)
    return (
        f"extensions: bench does not run promptfoo's extension hooks ({named}); they may change "
        "the suite and each test before it runs, so the rows would not be promptfoo's: remove "
        "'extensions' to run the rest"
    )


def _read(path: Path) -> dict[str, Any]:
    from bench_formats.yaml12 import load_js_yaml

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the config: {exc.strerror}", file=path) from None
    data = load_js_yaml(text, path)  # JSON is YAML
    if not isinstance(data, dict):
        raise ConfigError("a promptfoo config is a mapping", file=path)
    return data
