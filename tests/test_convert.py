"""``bench convert``: another tool's file as the native suite bench runs for it, verdicts unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = "{type: recorded, file: answers.jsonl}"


def _verdicts(path: Path) -> list[tuple[str, bool, float]]:
    return [(t["id"], t["passed"], t["score"]) for t in json.loads(path.read_text())["tasks"]]


def test_a_converted_pack_runs_as_the_pack_does(bench_cli, tmp_path):
    shutil.copytree(ROOT / "examples" / "from-agentclash", tmp_path / "pack")
    pack = tmp_path / "pack" / "capitals.yaml"
    converted = tmp_path / "pack" / "native.yaml"
    result = bench_cli("convert", pack, "-o", converted)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.endswith(f"wrote {converted}\n")
    text = converted.read_text()
    assert text.startswith(
        "# bench convert capitals.yaml: the native bench suite bench runs for it.\n"
        "# Paths are relative to the original file's folder.\n"
        "# It names no target: add `target:` or run it with --target SPEC.\n"
    )
    assert bench_cli("run", pack, "-q", "--target", ANSWERS, "-o", "pack.json").exit_code == 0
    assert bench_cli("run", converted, "-q", "--target", ANSWERS, "-o", "native.json").exit_code == 0
    assert (
        _verdicts(tmp_path / "native.json")
        == _verdicts(tmp_path / "pack.json")
        == [
            ("france", True, 1.0),
            ("peru", True, 0.0),
        ]
    )


def test_convert_to_stdout_and_with_a_target(bench_cli):
    result = bench_cli("convert", ROOT / "examples" / "from-agentclash" / "capitals.yaml", "--target", "echo")
    assert result.exit_code == 0, result.stderr
    assert "target:\n  type: echo\n" in result.stdout
    assert "# It names no target" not in result.stdout


def test_a_native_suite_has_nothing_to_convert(bench_cli, bench_suite_file):
    suite = bench_suite_file("tasks: [{id: a, response: x, evaluate: {expected: x}}]\n")
    result = bench_cli("convert", suite)
    assert result.exit_code == 2
    assert result.stderr == f"error: {suite}: this is already a native bench suite: nothing to convert\n"


def test_convert_never_writes_over_the_file_it_converts(bench_cli, tmp_path):
    shutil.copytree(ROOT / "examples" / "from-agentclash", tmp_path / "pack")
    pack = tmp_path / "pack" / "capitals.yaml"
    original = pack.read_text()
    (tmp_path / "link.yaml").symlink_to(pack)
    for output in (pack, tmp_path / "pack" / ".." / "pack" / "capitals.yaml", tmp_path / "link.yaml"):
        result = bench_cli("convert", pack, "-o", output)
        assert result.exit_code == 2
        assert result.stderr == (
            f"error: -o {output}: that is {pack}, the file being converted; "
            "write the native suite to another file\n"
        )
        assert pack.read_text() == original


def test_several_outputs_of_convert_are_each_written(bench_cli, tmp_path):
    shutil.copytree(ROOT / "examples" / "from-agentclash", tmp_path / "pack")
    pack = tmp_path / "pack" / "capitals.yaml"
    one, two = tmp_path / "pack" / "one.yaml", tmp_path / "pack" / "two.yaml"
    result = bench_cli("convert", pack, "-o", one, "-o", two)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.endswith(f"wrote {one}\nwrote {two}\n")
    assert one.read_text() == two.read_text()
    assert one.read_text().startswith("# bench convert capitals.yaml: the native bench suite")
