"""A test's vars as promptfoo prepares them: var files, combinations, ``file://`` values."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.promptfoo.paths import FILE, expand, strip_file
from bench_formats.promptfoo.render import finish_vars

_CODE = {".js", ".cjs", ".mjs", ".ts", ".py"}
#: promptfoo's ``isImageFile`` extensions, with ``getMimeTypeFromExtension``'s types.
_IMAGES = {
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif",
    ".bmp": "image/bmp", ".webp": "image/webp", ".svg": "image/svg+xml",
}  # fmt: skip
#: promptfoo's ``isVideoFile`` and ``isAudioFile`` extensions: sent as bare base64.
_MEDIA = {
    ".mp4", ".webm", ".ogg", ".mov", ".avi", ".wmv", ".mkv", ".m4v",
    ".wav", ".mp3", ".aac", ".m4a", ".flac", ".wma", ".aiff", ".opus",
}  # fmt: skip
#: promptfoo's ``detectMimeFromBase64``: a file's base64 start and its type (wins over the extension).
_MAGIC = (
    ("/9j/", "image/jpeg"), ("iVBORw0KGgo", "image/png"), ("R0lGODlh", "image/gif"),
    ("R0lGODdh", "image/gif"), ("UklGR", "image/webp"), ("Qk0", "image/bmp"), ("Qk1", "image/bmp"),
    ("SUkq", "image/tiff"), ("TU0A", "image/tiff"), ("AAABAA", "image/x-icon"),
)  # fmt: skip


def combinations(
    variables: dict[str, Any], base: Path, config: Path, folder: SuiteFolder, test: str
) -> Iterator[dict[str, Any]]:
    """promptfoo's ``generateVarCombinations``: list-of-string vars and ``file://`` globs (of files
    in ``folder``) expand; ``test`` names the test in a refusal."""
    choices: list[list[Any]] = []
    for key, value in variables.items():
        if isinstance(value, str) and value.startswith(FILE):
            files = expand(strip_file(value), base, folder, _reads(test, key, value))
            if not files:
                raise ConfigError(
                    f"No files found for variable {key} at path {strip_file(value)} in directory {base}",
                    file=config,
                )
            choices.append([f"{FILE}{path}" for path in files])
        elif isinstance(value, list) and value and isinstance(value[0], str):
            choices.append(value)
        else:
            choices.append([value])
    keys = list(variables)
    for values in itertools.product(*choices):
        yield dict(zip(keys, values, strict=True))


def prepare(
    combo: dict[str, Any], warn: Callable[[str], None], folder: SuiteFolder, test: str, base: Path
) -> dict[str, Any]:
    """One combination's vars ready for the prompt, as promptfoo's ``renderPrompt`` has them:
    files (in ``folder``; a relative path from ``base``, the config's folder, as promptfoo reads it)
    read, resolved. Vars are rendered with the vars only for a text prompt (``render_prompt``)."""
    rendered = dict(combo)
    for key, value in rendered.items():
        if isinstance(value, str) and value.startswith(FILE):
            rendered[key] = _file_var(key, value, warn, folder, _reads(test, key, value), base)
    return finish_vars(rendered)


def _reads(test: str, key: str, value: str) -> str:
    """How a refusal names a var's file reference."""
    return f"test '{test}' var '{key}' reads {value}"


def _file_var(
    key: str, value: str, warn: Callable[[str], None], folder: SuiteFolder, what: str, base: Path
) -> Any:
    written = base / strip_file(value)
    path = written if written.exists() else base / strip_file(value).split(":", 1)[0]
    suffix = path.suffix.lower()
    if suffix == ".py" and value.endswith(".py"):  # run per prompt by the matrix (get_var)
        return value
    if suffix in _CODE:
        marked = f"[not run: {value}]"
        warn(
            f"var '{key}' is {value}, which promptfoo runs to compute the value; bench does not run code: "
            f"the var holds '{marked}'"
        )
        return marked
    folder.check(path, what)  # a var rendered into a file:// reference is checked here
    try:
        if suffix in _IMAGES or suffix in _MEDIA:
            return _base64(path, suffix)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise ConfigError(f"{what}: cannot read {path}: {why}") from None
    if suffix in {".yaml", ".yml"}:
        from bench_formats.yaml12 import load_js_yaml

        return json.dumps(load_js_yaml(text, path), ensure_ascii=False, separators=(",", ":"))
    return text.strip()


def _base64(path: Path, suffix: str) -> str:
    """A media var as promptfoo's ``renderPrompt`` loads it: an image as a ``data:`` URI (its type
    from the file's first bytes, else its extension), video and audio as bare base64."""
    import base64

    data = base64.b64encode(path.read_bytes()).decode("ascii")
    if suffix not in _IMAGES:
        return data
    mime = next((kind for start, kind in _MAGIC if data.startswith(start)), _IMAGES[suffix])
    return f"data:{mime};base64,{data}"
