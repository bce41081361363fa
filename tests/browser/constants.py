"""What the browser tests share: the checkout's root, the hostile text every page must show as
text, and whether to write the docs' screenshots (``BENCH_SCREENSHOTS=1``)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Markup that would run as script if a page inserted it as HTML instead of text.
HOSTILE = "</script><script>alert(1)</script> <img src=x onerror=alert(1)>"
#: Set: the tests also write docs/images/'s screenshots.
SCREENSHOTS = os.environ.get("BENCH_SCREENSHOTS") == "1"
