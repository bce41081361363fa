"""Record what OpenAI's ``oaieval`` makes of each eval of ``registry/`` (run by hand, never by the tests).

    python packages/bench-formats/tests/conformance/openai_evals/record.py --oaieval PATH [EVAL ...]

PATH is the ``oaieval`` of a virtual environment with the ``evals`` package (README.md says how
it was installed). Each eval runs against the scripted model of ``fake_model.py`` (a fake
OpenAI-compatible server on 127.0.0.1; no key, no network), one sample at a time
(``EVALS_SEQUENTIAL=1``), and ``expected/<eval>.json`` keeps, per sample id, the verdict ``evals``
recorded (``match`` events: ``correct``; ``metrics`` events: ``choice``, ``score``,
``metascore``, ``f1_score``), the prompts it sent (``sampling`` events) and its final report.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_model import sent, serve  # noqa: E402

MODEL = "gpt-3.5-turbo"
VERDICT_KEYS = ("choice", "score", "metascore", "f1_score", "accuracy")


def base_evals() -> list[str]:
    """The base evals of every registry file (entries with an ``id``), in file order."""
    import yaml

    names = []
    for file in sorted((HERE / "registry" / "evals").glob("*.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        names += [name for name, value in data.items() if isinstance(value, dict) and "id" in value]
    return names


def record(oaieval: str, name: str, home: Path) -> dict[str, Any]:
    server = serve()
    try:
        log = home / f"{name}.jsonl"
        env = {
            **os.environ,
            "HOME": str(home),
            "OPENAI_BASE_URL": server.url,
            "OPENAI_API_KEY": "sk-fake",
            "EVALS_SEQUENTIAL": "1",
            "EVALS_SHOW_EVAL_PROGRESS": "",
        }
        command = [oaieval, MODEL, name, "--registry_path", "registry", "--record_path", str(log)]
        subprocess.run(command, cwd=HERE, env=env, check=True, capture_output=True, timeout=300)
        requests = sent(server)
    finally:
        server.stop()
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    spec = next(line["spec"] for line in lines if "spec" in line)
    report = next(line["final_report"] for line in lines if "final_report" in line)
    samples: dict[str, dict[str, Any]] = {}
    for event in sorted((line for line in lines if "type" in line), key=lambda e: e["event_id"]):
        row = samples.setdefault(event["sample_id"], {"prompts": [], "sampled": []})
        data = event["data"]
        if event["type"] == "sampling":
            row["prompts"].append(data["prompt"])
            row["sampled"] += data["sampled"]
        elif event["type"] == "match":
            row["correct"] = data["correct"]
        elif event["type"] == "metrics":
            row.update({key: data[key] for key in VERDICT_KEYS if key in data})
    return {
        "eval": spec["eval_name"],
        "command": f"oaieval {MODEL} {name} --registry_path registry",
        "final_report": {k: v for k, v in report.items() if not k.startswith(("usage_", "boostrap_std"))},
        "params": _params(requests),
        "samples": dict(sorted(samples.items(), key=lambda item: int(item[0].rsplit(".", 1)[1]))),
    }


def _params(requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The sampling parameters sent to the model and to the grader (each the same for every request)."""
    out: dict[str, Any] = {}
    for request in requests:
        if request["who"] == "unmatched":
            raise SystemExit(f"a request matched no rule of answers.json: {request['messages']}")
        seen = out.setdefault(request["who"], request["params"])
        if seen != request["params"]:
            raise SystemExit(f"{request['who']} requests differ in parameters: {seen} vs {request['params']}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--oaieval", required=True, help="the oaieval executable of an evals install")
    parser.add_argument("evals", nargs="*", help="base eval names (default: every one in registry/evals)")
    args = parser.parse_args()
    version = subprocess.run(
        [str(Path(args.oaieval).parent / "python"), "-c", "import importlib.metadata as m; print(m.version('evals'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (HERE / "expected").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as home:
        for name in args.evals or base_evals():
            result = {"evals_version": version, **record(args.oaieval, name, Path(home))}
            target = HERE / "expected" / f"{name}.json"
            target.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"{name}: {len(result['samples'])} samples -> {target.relative_to(HERE)}")


if __name__ == "__main__":
    main()
