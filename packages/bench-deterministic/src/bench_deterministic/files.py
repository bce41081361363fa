"""Checks on files: ``file_exists``, ``file_content_match``, ``file_json_schema``, ``directory_structure``.

A file is named by ``path`` (or AgentClash's ``target: file:PATH``) and read from the response's
captured files (``artifacts.files``) or else from the task's ``workspace:`` folder. Paths stay
inside the workspace: absolute paths and ``..`` are refused when the suite is loaded, and a
symlink that leads outside is refused when the file is read (``path escapes the workspace``).
"""

from __future__ import annotations

import posixpath
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.evidence import EvidenceUnavailable, NoFiles
from bench.vocabulary import loads_strict, quoted
from bench.workspace import list_inside
from bench_deterministic.common import expected_of, verdict
from bench_deterministic.jsondoc import json_equal
from bench_deterministic.normalize import collapse_whitespace
from bench_deterministic.patterns import PatternError, compile_pattern
from bench_deterministic.schemas import Schema


def check_relative(path: str) -> str:
    """Refuse, at load time, paths that name something outside the workspace."""
    if posixpath.isabs(path) or path.startswith("~"):
        raise ValueError(f"path escapes the workspace: {path} (absolute paths are refused)")
    if ".." in posixpath.normpath(path).split("/"):
        raise ValueError(f"path escapes the workspace: {path}")
    return path


class FileConfig(EvaluatorConfig):
    """Settings every file check has."""

    path: str | None = None
    """The file, relative to the workspace (or give ``target: file:PATH``)."""

    @field_validator("path")
    @classmethod
    def _inside(cls, path: str | None) -> str | None:
        return None if path is None else check_relative(path)


def _path(config: FileConfig, sample: Sample) -> str:
    if config.path is not None:
        return config.path
    if sample.target and sample.target.startswith("file:"):
        return check_relative(sample.target[len("file:") :])
    raise EvaluatorError("no file named: set path (or target: file:PATH)")


def read_file(config: FileConfig, sample: Sample) -> tuple[str, str | None]:
    """(path, content); content is None when the file does not exist."""
    path = _path(config, sample)
    try:
        return path, str(sample.evidence.value(f"file:{path}"))
    except NoFiles:
        raise
    except EvidenceUnavailable:
        return path, None


class ExistsConfig(FileConfig):
    """Settings of file_exists."""

    must_exist: bool = True
    """False: pass when the file does not exist."""


class FileExists(Evaluator[ExistsConfig]):
    """Passes when the file exists (or, with ``must_exist: false``, when it does not)."""

    name = "file_exists"
    resolves_target = True
    Config = ExistsConfig
    example = """
    name: file-exists-example
    tasks:
      - id: readme
        response:
          output: "done"
          artifacts: {files: {"README.md": "# Project"}}
        evaluate:
          - {type: file_exists, path: README.md}
          - {type: file_exists, path: secrets.txt, must_exist: false}
    """

    def evaluate(self, sample: Sample) -> Result:
        path, content = read_file(self.config, sample)
        exists = content is not None
        if self.config.must_exist:
            return verdict(exists, f"{path} exists" if exists else f"{path} does not exist")
        return verdict(not exists, f"{path} exists but should not" if exists else f"{path} correctly absent")


class ContentConfig(FileConfig):
    """Settings of file_content_match."""

    value: str | None = None
    """The expected content, substring or pattern (else ``expected_from``)."""
    expected_from: str | None = None
    """Where the expected value comes from when ``value`` is not given."""
    match_mode: Literal["exact", "contains", "regex", "not_contains", "json_equal"] = "contains"
    """How the file's content is compared with the expected value (AgentClash's modes)."""
    ignore_whitespace: bool = False
    """Collapse runs of whitespace on both sides first (not for ``regex``)."""

    @model_validator(mode="after")
    def _has_value(self) -> ContentConfig:
        if self.value is None and self.expected_from is None:
            raise ValueError("set value (or expected_from: an evidence reference)")
        if self.match_mode == "regex" and self.value is not None:
            try:
                compile_pattern(self.value)
            except PatternError as exc:
                raise ValueError(str(exc)) from None
        return self


class FileContentMatch(Evaluator[ContentConfig]):
    """Compares a file's content with the expected value.

    ``match_mode``: exact, contains (the default), regex, not_contains or json_equal.
    """

    name = "file_content_match"
    resolves_target = True
    Config = ContentConfig
    example = """
    name: file-content-match-example
    tasks:
      - id: config
        response:
          output: "written"
          artifacts:
            files: {"app/config.json": '{"debug": false, "port": 8080}', "app/main.py": "print('hi')\\n"}
        evaluate:
          - {type: file_content_match, path: app/main.py, value: "print("}
          - type: file_content_match
            path: app/config.json
            match_mode: json_equal
            value: '{"port": 8080, "debug": false}'
          - {type: file_content_match, path: app/main.py, match_mode: regex, value: "^print\\\\("}
    """

    def evaluate(self, sample: Sample) -> Result:
        config = self.config
        path, content = read_file(config, sample)
        if content is None:
            return verdict(False, f"{path} does not exist")
        expected = str(expected_of(sample, config.value))
        mode = config.match_mode
        if mode == "regex":
            try:
                found = compile_pattern(expected).search(content)
            except PatternError as exc:
                raise EvaluatorError(str(exc)) from None
            return verdict(found, f"{path} {'matches' if found else 'does not match'} {expected!r}")
        if mode == "json_equal":
            try:
                equal = json_equal(loads_strict(content), loads_strict(expected))
            except ValueError as exc:
                raise EvaluatorError(f"json_equal: {exc}") from None
            return verdict(
                equal, f"{path} {'is' if equal else 'is not'} structurally equal to the expected JSON"
            )
        actual = collapse_whitespace(content) if config.ignore_whitespace else content
        wanted = collapse_whitespace(expected) if config.ignore_whitespace else expected
        if mode == "exact":
            return verdict(
                actual == wanted,
                f"{path} {'equals' if actual == wanted else 'differs from'} the expected content",
            )
        present = wanted in actual
        if mode == "not_contains":
            return verdict(
                not present,
                f"{path} {'contains forbidden' if present else 'does not contain'} {quoted(wanted)}",
            )
        return verdict(present, f"{path} {'contains' if present else 'does not contain'} {quoted(wanted)}")


class FileSchemaConfig(FileConfig):
    """Settings of file_json_schema."""

    model_config = ConfigDict(populate_by_name=True)

    json_schema: Any = Field(alias="schema")
    """The JSON Schema the file's content must satisfy."""

    @field_validator("json_schema")
    @classmethod
    def _valid(cls, value: Any) -> Schema:
        return Schema(value)


class FileJsonSchema(Evaluator[FileSchemaConfig]):
    """Passes when the file is JSON valid against the schema."""

    name = "file_json_schema"
    resolves_target = True
    Config = FileSchemaConfig
    example = """
    name: file-json-schema-example
    tasks:
      - id: package
        response:
          output: "ok"
          artifacts: {files: {"package.json": '{"name": "demo", "version": "1.0.0"}'}}
        evaluate:
          type: file_json_schema
          path: package.json
          schema: {type: object, required: [name, version]}
    """

    def evaluate(self, sample: Sample) -> Result:
        path, content = read_file(self.config, sample)
        if content is None:
            return verdict(False, f"{path} does not exist")
        try:
            document = loads_strict(content)
        except ValueError as exc:
            return verdict(False, f"{path} is not JSON: {exc}")
        errors = self.config.json_schema.errors(document)
        if errors:
            return verdict(False, f"{path}: " + "; ".join(errors[:3]), errors=errors)
        return verdict(True, f"{path} is valid against the schema")


class StructureConfig(FileConfig):
    """Settings of directory_structure."""

    path: str | None = "."
    """The directory, relative to the workspace (default: the workspace itself)."""
    required_files: list[str] = Field(default_factory=list)
    """Paths that must exist (relative to the directory)."""
    forbidden_files: list[str] = Field(default_factory=list)
    """Paths that must not exist."""
    required_directories: list[str] = Field(default_factory=list)
    """Directories that must exist."""


class DirectoryStructure(Evaluator[StructureConfig]):
    """Checks a directory for required files, forbidden files and required directories.

    The directory is the task's workspace (or a folder in it); symlinks are listed, never followed.
    """

    name = "directory_structure"
    resolves_target = True
    Config = StructureConfig
    example = """
    name: directory-structure-example
    tasks:
      - id: layout
        workspace: workspace
        response: "scaffolded"
        evaluate:
          type: directory_structure
          required_files: [README.md, src/app.py]
          required_directories: [src]
          forbidden_files: [.env]
    """
    example_files: ClassVar[dict[str, str]] = {
        "workspace/README.md": "# demo\n",
        "workspace/src/app.py": "print('app')\n",
    }

    def evaluate(self, sample: Sample) -> Result:
        config = self.config
        if sample.task.workspace is None:
            raise EvaluatorError("directory_structure needs the task's workspace: folder")
        folder = config.path or "."
        if folder == "." and sample.target and sample.target.startswith("file:"):
            folder = check_relative(sample.target[len("file:") :])  # AgentClash: target: file:DIR
        entries, cut = list_inside(sample.task.workspace, folder)
        files = {e.rstrip("/") for e in entries}
        directories = {e.rstrip("/") for e in entries if e.endswith("/")}
        problems = []
        missing = [f for f in config.required_files if posixpath.normpath(f) not in files]
        if missing:
            problems.append("missing required files: " + ", ".join(missing))
        present = [f for f in config.forbidden_files if posixpath.normpath(f) in files]
        if present:
            problems.append("forbidden files present: " + ", ".join(present))
        missing_dirs = [d for d in config.required_directories if posixpath.normpath(d) not in directories]
        if missing_dirs:
            problems.append("missing required directories: " + ", ".join(missing_dirs))
        details: dict[str, Any] = {"entries": len(entries)}
        if cut:
            details["listing_truncated"] = True
        if problems:
            return verdict(False, "; ".join(problems), **details)
        return verdict(True, f"{folder} has the expected structure", **details)
