"""A careless agent: it answers, then prints its whole environment (a real agent's debug output)."""

import os
import sys

print(f"The answer to {sys.argv[1]!r} is 4.")
for name, value in sorted(os.environ.items()):
    if name.startswith("DEMO_"):  # the demo prints only its own variables
        print(f"{name}={value}")
