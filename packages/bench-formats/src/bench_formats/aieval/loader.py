"""The AI Eval suite loader: ``tests/x.yaml`` (``suite`` + ``prompt`` + ``cases``) as a native suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from bench import ConfigError, SuiteLoader, YamlDocument
from bench_formats.sniff import near_miss, top_keys


class AIEvalLoader(SuiteLoader):
    """Reads an AI Eval suite with its prompt (``../prompts/*.yaml``) and ``../configs/config.yaml``."""

    name: ClassVar[str] = "aieval"

    def claims(self, path: Path) -> bool:
        return {"suite", "prompt", "cases"} <= top_keys(path)

    def declines(self, path: Path) -> tuple[float, str] | None:
        return near_miss(top_keys(path), ("suite", "prompt", "cases"), "an AI Eval suite")

    def load(self, path: Path) -> YamlDocument:
        from bench_formats.aieval.convert import CaseConverter
        from bench_formats.aieval.decode import SUITE, Decoder, read_yaml
        from bench_formats.aieval.project import find_prompt, project_root, read_config, target_of
        from bench_formats.aieval.validate import InvalidSuite, validate

        warn = self.warnings.append
        suite = Decoder(path, "testcase", warn).struct(read_yaml(path, "testcase"), SUITE, "")
        try:
            validate(suite)
        except InvalidSuite as exc:
            raise ConfigError(f'testcase: validate "{path}": {exc}', file=path) from None
        rule = self.suite_folder(path, project_root(path))  # the suite is tests/x.yaml in a project
        prompt = find_prompt(path, suite["suite"], suite["prompt"].strip(), warn, rule)
        config = read_config(path, warn, rule)
        default_trials, threshold = _evaluation(config, path)
        if suite["is_system_prompt"] and not prompt["is_system_prompt"]:
            warn(
                f"{path}: is_system_prompt: true is ignored, as AI Eval's runner ignores it: the prompt's "
                f"own is_system_prompt (false) decides"
            )
        target = target_of(config)
        converter = CaseConverter(str(path), prompt, warn, _judge(self.options.target or target))
        tasks = []
        for index, case in enumerate(suite["cases"]):
            trials = case["trials"] if case["trials"] > 0 else default_trials
            # AI Eval judges a case by pass@k over its trials, even a single one (threshold 0
            # passes whatever the checks say): bench's pass_at_k does the same.
            tasks.append({**converter.task(index, case, trials), "pass_at_k": threshold})
        data: dict[str, Any] = {"name": suite["suite"]}
        if suite["description"]:
            data["description"] = suite["description"]
        if prompt["version"]:
            data["version"] = prompt["version"]
        if target is not None:
            tools = _tools(prompt)
            if tools:
                target["tools"] = tools
            data["target"] = target
        data["tasks"] = tasks
        return YamlDocument(path, data, None)


def _evaluation(config: dict[str, Any] | None, path: Path) -> tuple[int, float]:
    """The config's trials and pass@k threshold (``run.go``'s checks); 1 and 1.0 without a config."""
    if config is None:
        return 1, 1.0
    evaluation = config["evaluation"]
    if evaluation["trials"] <= 0:
        raise ConfigError(f"run: trials must be > 0 (got {evaluation['trials']})", file=path)
    if not 0 <= evaluation["threshold"] <= 1:
        raise ConfigError(
            f"run: threshold must be between 0 and 1 (got {evaluation['threshold']:g})", file=path
        )
    return evaluation["trials"], evaluation["threshold"]


def _judge(target: dict[str, Any] | None) -> dict[str, Any]:
    """The judge settings from the run's model (AI Eval judges with the provider it evaluates)."""
    if target is None or target.get("type") != "litellm" or not target.get("model"):
        return {}
    return {key: target[key] for key in ("model", "api_base", "api_key_env") if target.get(key)}


def _tools(prompt: dict[str, Any]) -> list[dict[str, Any]]:
    """The prompt's tools as OpenAI function tools (``promptTools``)."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"].strip(),
                "description": tool["description"].strip(),
                "parameters": tool["input_schema"] or {"type": "object"},
            },
        }
        for tool in prompt["tools"]
        if tool["name"].strip()
    ]
