"""The JSONL samples an eval names (``samples_jsonl``), read as ``evals.get_jsonl`` reads them."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from bench import ConfigError, SuiteFolder

_LFS = "version https://git-lfs.github.com/spec/v1"


def data_path(root: Path, written: Any, eval_name: str, arg: str, rule: SuiteFolder, file: Path) -> Path:
    """The file (or folder) ``written`` names: an absolute path, else under the registry's ``data/``."""
    if not isinstance(written, str) or not written:
        raise ConfigError(f"eval '{eval_name}': {arg} must name a file", file=file)
    candidate = Path(written)
    path = candidate if candidate.is_absolute() else root / "data" / candidate
    rule.check(path, f"eval '{eval_name}' {arg} {written}", file=file)
    if not path.exists():
        raise ConfigError(f"eval '{eval_name}': {arg} {written}: no such file (looked for {path})", file=file)
    return path


def read_samples(path: Path) -> Iterator[tuple[Path, int, Any]]:
    """(file, line number, sample) for each line; a folder gives its ``*.jsonl`` files by name
    (``evals`` lists the folder in the file system's order)."""
    files = sorted(p for p in path.iterdir() if p.name.endswith(".jsonl")) if path.is_dir() else [path]
    for file in files:
        with _open(file) as handle:
            for number, line in enumerate(handle, start=1):
                if number == 1 and line.startswith(_LFS):
                    raise ConfigError(
                        "this is a Git LFS pointer, not the samples: fetch the data first "
                        "(git lfs pull in the registry's repository)",
                        file=file,
                    )
                try:
                    yield file, number, json.loads(line)
                except ValueError as exc:
                    message = getattr(exc, "msg", str(exc))
                    raise ConfigError(
                        f"Error parsing JSON on line {number}: {message}", file=file, line=number
                    ) from None


def _open(file: Path) -> IO[str]:
    if file.name.endswith(".gz"):
        return gzip.open(file, "rt", encoding="utf-8")
    if file.name.endswith((".lz4", ".zst")):
        raise ConfigError("bench reads .jsonl and .jsonl.gz samples: decompress this file first", file=file)
    return open(file, encoding="utf-8")
