"""The OpenAI evals suite loader: a registry file (``evals/<name>.yaml``) and its samples, as a suite."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

from bench import ConfigError, SuiteLoader, YamlDocument
from bench_formats.sniff import YAML_SUFFIXES, top_keys

#: The classes bench judges, by the name a registry spec gives them.
BASIC = {
    "evals.elsuite.basic.match:Match": "Match",
    "evals.elsuite.basic.includes:Includes": "Includes",
    "evals.elsuite.basic.fuzzy_match:FuzzyMatch": "FuzzyMatch",
    "evals.elsuite.basic.json_match:JsonMatch": "JsonMatch",
}
CLASSIFY = "evals.elsuite.modelgraded.classify:ModelBasedClassify"
#: An indented ``class: package.module:Name`` line, as eval specs write their class.
_CLASS_LINE = re.compile(r"^[ \t]+class:[ \t]*['\"]?[\w.]+:\w+['\"]?[ \t]*$", re.MULTILINE)
_HEAD = 64 * 1024


class OpenAIEvalsLoader(SuiteLoader):
    """Reads the evals of an OpenAI evals registry file, with their JSONL samples."""

    name: ClassVar[str] = "openai-evals"

    def claims(self, path: Path) -> bool:
        if path.suffix.lower() not in YAML_SUFFIXES:
            return False
        if not any(key.count(".") >= 1 for key in top_keys(path)):
            return False
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                head = handle.read(_HEAD)
        except OSError:
            return False
        return _CLASS_LINE.search(head) is not None

    def load(self, path: Path) -> YamlDocument:
        from bench_formats.openai_evals.basic_tasks import basic_tasks
        from bench_formats.openai_evals.classify_tasks import classify_tasks
        from bench_formats.openai_evals.registry import read_entries, registry_root

        entries = read_entries(path, path.read_text(encoding="utf-8"))
        root = registry_root(path)
        rule = self.suite_folder(path, root)
        judge = _judge(self.options.target)
        taken: set[str] = set()
        tasks: list[dict[str, Any]] = []
        for entry in entries:
            ids = _ids(entry.name, taken, path)
            if entry.cls in BASIC:
                tasks += basic_tasks(entry, BASIC[entry.cls], root, rule, path, ids)
            elif entry.cls == CLASSIFY:
                rows, problem = classify_tasks(entry, root, rule, path, ids, judge)
                if problem is not None:
                    self.warnings.append(f"{path}: eval '{entry.name}': every row is an error: {problem}")
                tasks += rows
            else:
                problem = (
                    f"class {entry.cls} is not one bench runs: bench runs Match, Includes, FuzzyMatch, "
                    "JsonMatch and ModelBasedClassify evals (docs/formats/openai.md)"
                )
                self.warnings.append(f"{path}: eval '{entry.name}': {problem}")
                tasks.append(
                    {
                        "id": entry.name,
                        "response": "",
                        "evaluate": {"type": "openai_evals", "unsupported": problem},
                        "metadata": {"eval": entry.name},
                    }
                )
        if not tasks:
            raise ConfigError("this OpenAI evals registry file defines no eval with samples", file=path)
        data: dict[str, Any] = {"name": path.stem, "tasks": tasks}
        descriptions = [e.description for e in entries if e.description]
        if len(entries) == 1 and descriptions:
            data["description"] = descriptions[0]
        return YamlDocument(path, data, None)


def _ids(name: str, taken: set[str], path: Path) -> Any:
    """Task ids as ``oaieval`` names samples: ``<base>.<split>.<index>``; the spec's full name
    when two specs of the file share a base and split."""
    parts = name.split(".")
    if len(parts) < 2:
        raise ConfigError(f"Eval name must at least have <base_eval>.<split>. Got name {name}", file=path)
    prefix = ".".join(parts[:2])
    if prefix in taken:
        prefix = name
    taken.add(prefix)
    return lambda index: f"{prefix}.{index}"


def _judge(target: dict[str, Any] | None) -> dict[str, Any]:
    """The grader: ``oaieval`` grades with the model it evaluates (its last completion fn)."""
    if target is None or target.get("type") != "litellm" or not target.get("model"):
        return {}
    return {key: target[key] for key in ("model", "api_base", "api_key_env") if target.get(key)}
