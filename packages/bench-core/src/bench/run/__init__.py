"""From a plan to results in the store: the session, the runner, targets and the limits around them.

``bench.run`` is this package and also the API's ``run`` function: importing a subpackage sets
it as an attribute of its parent, so a plain function named ``bench.run`` would be replaced by
this package the first time ``bench.run.session`` loads. Calling the package calls
``bench.api.run`` instead, and ``bench.run.session`` keeps working.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _CallablePackage(types.ModuleType):
    def __call__(self, suite: Any, **options: Any) -> Any:
        """``bench.run(suite, **options)``: see ``bench.api.run``."""
        from bench.api import run

        return run(suite, **options)


sys.modules[__name__].__class__ = _CallablePackage
