"""Plugins installed for real, as a user installs them, and the hooks' documented examples.

``install(target, *sources)`` pip-installs distributions (folders with a ``pyproject.toml``) into
a folder of their own, without dependencies or build isolation, so a test can put that folder on
``PYTHONPATH`` (or ``sys.path``) and see the plugins through their entry points.
``hook_example(hook)`` is the runnable example in a hookspec's docstring.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

_EXAMPLE = "Example::\n"


def install(target: Path, *sources: Path) -> None:
    """``pip install --no-deps --no-build-isolation --target TARGET SOURCES...``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), *(str(s) for s in sources)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip


def hook_example(hook: Callable[..., Any]) -> str:
    """The code under ``Example::`` in a hookspec's docstring, dedented."""
    doc = inspect.getdoc(hook) or ""
    if _EXAMPLE not in doc:
        raise ValueError(f"{hook.__name__} has no example")
    return textwrap.dedent(doc.split(_EXAMPLE, 1)[1]).strip() + "\n"
