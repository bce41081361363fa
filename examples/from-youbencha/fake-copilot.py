"""A stand-in for GitHub Copilot CLI: fixes greet.py in the folder after --add-dir."""

import sys
from pathlib import Path

args = sys.argv[1:]
folder = Path(args[args.index("--add-dir") + 1])
path = folder / "greet.py"
path.write_text(path.read_text().replace("Goodbye", "Hello"))
print("Fixed greet() in greet.py.")
