"""The AI Eval project around a suite: ``prompts/*.yaml`` and ``configs/config.yaml`` beside ``tests/``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.aieval.decode import CONFIG, PROMPT, Decoder, read_yaml

#: Where ``ai-eval`` reads its config (``config.DefaultPath``), relative to the project folder.
CONFIG_PATH = Path("configs") / "config.yaml"


def project_root(suite_path: Path) -> Path:
    """The folder ``ai-eval run`` runs in: the parent of the suite's ``tests/`` folder."""
    return suite_path.resolve().parent.parent


def find_prompt(
    suite_path: Path, suite_name: str, name: str, warn: Callable[[str], None], rule: SuiteFolder
) -> dict[str, Any]:
    """The prompt named ``name`` among ``../prompts/*.yaml`` (``app.IndexPrompts``' rules); each
    file must lie inside ``rule``'s folder (the project)."""
    folder = project_root(suite_path) / "prompts"
    if not folder.is_dir():
        raise ConfigError(
            f'suite "{suite_name}" references prompt "{name}": AI Eval reads prompts from '
            f"{folder}, which is not a folder",
            file=suite_path,
        )
    found: dict[str, tuple[Path, Any]] = {}
    for path in sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in {".yaml", ".yml"}):
        rule.check(path, f"the prompt file prompts/{path.name}")
        data = read_yaml(path, "prompt")
        prompt_name = str(data.get("name") or "").strip() if isinstance(data, dict) else ""
        if not prompt_name:
            raise ConfigError("run: prompt with empty name", file=path)
        if prompt_name in found:
            raise ConfigError(f'run: duplicate prompt name "{prompt_name}"', file=path)
        found[prompt_name] = (path, data)
    if name not in found:
        names = ", ".join(sorted(found)) or "none"
        raise ConfigError(
            f'run: suite "{suite_name}" references unknown prompt "{name}" (prompts in {folder}: {names})',
            file=suite_path,
        )
    path, data = found[name]
    return Decoder(path, "prompt", warn).struct(data, PROMPT, "")


def read_config(suite_path: Path, warn: Callable[[str], None], rule: SuiteFolder) -> dict[str, Any] | None:
    """The project's ``configs/config.yaml`` (inside ``rule``'s folder), decoded; None when the
    project has none."""
    path = project_root(suite_path) / CONFIG_PATH
    if not path.is_file():
        return None
    rule.check(path, f"the config file {CONFIG_PATH.as_posix()}")
    return Decoder(path, "config", warn).struct(read_yaml(path, "config"), CONFIG, "")


def target_of(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """bench's ``litellm`` target for the config's default provider, when it names a model."""
    if config is None:
        return None
    llm = config["llm"]
    name = llm["default_provider"].strip() or "claude"
    provider = llm["providers"].get(name)
    if provider is None and len(llm["providers"]) == 1:  # AI Eval falls back to the only one
        name, provider = next(iter(llm["providers"].items()))
    if provider is None or not provider["model"].strip():
        return None
    prefix = "openai" if name.strip().lower() == "openai" else "anthropic"
    target: dict[str, Any] = {"type": "litellm", "model": f"{prefix}/{provider['model'].strip()}"}
    if provider["base_url"].strip():
        target["api_base"] = provider["base_url"].strip()
    target["api_key_env"] = "OPENAI_API_KEY" if prefix == "openai" else "ANTHROPIC_API_KEY"
    target["max_tokens"] = 4096  # the runner's request
    return target
