"""The youBencha tests' helpers live in youbencha_helpers.py, next to this file."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from youbencha_helpers import demo  # noqa: F401  (the fixture)
