"""`bench validate` on a promptfoo config with a 10,000-row CSV of tests, against a native suite of
the same 10,000 tasks: the loader must stay within the native suite's time and memory.

    python benchmarks/run_promptfoo_csv.py [--rows 10000] [--repeat 3]

Each file is validated in its own process, in turn, best of ``--repeat``; peak memory is that
process's maximum RSS. The promptfoo config needs the ``promptfoo`` evaluator type (bench-formats).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CHILD = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "if done.returncode: sys.exit(done.stdout + done.stderr)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def write_files(folder: Path, rows: int) -> tuple[Path, Path]:
    """A promptfoo config with a CSV of ``rows`` tests, and the native suite of the same tasks."""
    with (folder / "tests.csv").open("w", encoding="utf-8") as handle:
        handle.write("question,topic,__expected\n")
        for i in range(rows):
            handle.write(f'"What is item {i}, briefly?",topic{i % 50},contains: item {i}\n')
    config = folder / "promptfooconfig.yaml"
    config.write_text(
        "description: csv benchmark\n"
        "prompts: ['Answer about {{topic}}: {{question}}']\n"
        "providers: [echo]\n"
        "tests: file://tests.csv\n",
        encoding="utf-8",
    )
    native = folder / "native.yaml"
    with native.open("w", encoding="utf-8") as handle:
        handle.write("name: native benchmark\ntarget: {type: echo}\ntasks:\n")
        for i in range(rows):
            handle.write(
                f"  - id: 'Row #{i + 1}'\n"
                f"    prompt: 'Answer about topic{i % 50}: What is item {i}, briefly?'\n"
                f"    metadata: {{vars: {{question: 'What is item {i}, briefly?', topic: topic{i % 50}}}}}\n"
                f"    evaluators: [{{type: contains, value: 'item {i}'}}]\n"
            )
    return config, native


def measure(path: Path, repeat: int) -> tuple[float, float]:
    """Best wall seconds and the largest peak RSS (MiB) of ``bench validate PATH``."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, sys.executable, "-m", "bench", "validate", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - start
        if done.returncode:
            sys.exit(f"bench validate {path} failed:\n{done.stdout}{done.stderr}")
        best = min(best, elapsed)
        peak = max(peak, int(done.stdout.split()[-1]) / 1024)
    return best, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config, native = write_files(Path(tmp), args.rows)
        native_s, native_mib = measure(native, args.repeat)
        promptfoo_s, promptfoo_mib = measure(config, args.repeat)
    print(f"{'suite':<10} {'tasks':>7} {'seconds':>8} {'peak MiB':>9}")
    print(f"{'native':<10} {args.rows:>7,} {native_s:>8.2f} {native_mib:>9.1f}")
    print(f"{'promptfoo':<10} {args.rows:>7,} {promptfoo_s:>8.2f} {promptfoo_mib:>9.1f}")
    time_ratio, memory_ratio = promptfoo_s / native_s, promptfoo_mib / native_mib
    print(f"ratio promptfoo/native: time {time_ratio:.2f}, peak memory {memory_ratio:.2f}")


if __name__ == "__main__":
    main()
