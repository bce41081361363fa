"""Importing litellm: once, offline-safe and quiet, with its loggers guarded by the redactor."""

from __future__ import annotations

import os
import threading
from typing import Any

from bench.vocabulary.redact import guard_loggers

_litellm: Any = None
#: The loggers of litellm and the HTTP clients under it (they log request details when verbose).
LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx", "httpcore", "openai")


def load_litellm() -> Any:
    """Import litellm once, offline-safe and quiet (it fetches its cost map at import otherwise)."""
    global _litellm
    if _litellm is None:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        litellm.suppress_debug_info = True
        # Not drop_params: on a 422 it silently resends the request without the parameters the
        # error names, then fails with a meaningless error (RELIABILITY C15); bench drops the
        # parameters a provider does not take itself (``_supported_params``).
        litellm.drop_params = False
        guard_loggers(LOGGERS)
        _litellm = litellm
    return _litellm


_background: threading.Thread | None = None


def import_in_background() -> None:
    """Start importing litellm on a thread (once), so the seconds it takes overlap the suite's
    loading; ``load_litellm`` then finds it imported, or waits on the import lock."""
    global _background
    if _litellm is None and _background is None:
        _background = threading.Thread(target=load_litellm, name="bench-import-litellm", daemon=True)
        _background.start()
