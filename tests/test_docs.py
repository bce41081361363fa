"""Docs stay true: the evaluator reference matches the registry and every example runs."""

from __future__ import annotations

import inspect
import re
import textwrap
import types
from pathlib import Path

import pytest

from bench import hookspecs
from bench.plugins.registry import HOOKS as HOOK_KINDS
from bench.plugins.registry import build_registry, get_registry
from bench.report.reference import evaluator_reference
from bench.testing import run_suite, write_suite
from bench.testing.distributions import hook_example
from bench.testing.verdicts import judge_verdict

ROOT = Path(__file__).resolve().parents[1]


def test_evaluator_reference_is_up_to_date():
    written = (ROOT / "docs" / "evaluators.md").read_text()
    assert written == evaluator_reference(get_registry()), (
        "regenerate: bench evaluators --markdown > docs/evaluators.md"
    )


@pytest.mark.parametrize("provided", get_registry().evaluator_types(), ids=lambda p: p.name)
def test_each_evaluator_type_has_a_runnable_example(provided, tmp_path, bench_fake_llm):
    cls = provided.cls
    for module in cls.example_requires:
        pytest.importorskip(module, reason=f"{cls.name}'s example needs an optional extra")
    # Judges in examples answer through the fake server; for "lower is better" types, a low score.
    bench_fake_llm.default = judge_verdict(
        passed=True, score=0.0 if cls.threshold_direction == "max" else None
    )
    assert cls.__doc__, f"{cls.name} has no docstring"
    assert cls.example, f"{cls.name} has no example suite"
    for name, text in cls.example_files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    outcome = run_suite(write_suite(tmp_path, textwrap.dedent(cls.example)))
    summary = outcome.report.summary
    assert summary.total > 0
    errors = [
        (t["id"], t["error"], t["evaluators"]) for t in outcome.report.tasks() if t["status"] == "error"
    ]
    assert summary.errors == 0, errors
    failed = [(t["id"], t["evaluators"]) for t in outcome.report.tasks() if not t["passed"]]
    assert not failed, f"the {cls.name} example should pass as documented; failed: {failed}"


HOOKS = [f for name, f in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("bench_")]


def _hook_sections() -> dict[str, list[str]]:
    """docs/plugins.md's ``### `bench_...` `` sections: hook name -> its python code blocks."""
    text = (ROOT / "docs" / "plugins.md").read_text()
    sections = re.split(r"^### `(bench_\w+)`\n", text, flags=re.MULTILINE)
    found = {}
    for name, body in zip(sections[1::2], sections[2::2], strict=True):
        body = re.split(r"^##", body, flags=re.MULTILINE)[0]
        found[name] = re.findall(r"^```python\n(.*?)^```$", body, flags=re.MULTILINE | re.DOTALL)
    return found


def test_every_hook_is_documented():
    assert len(HOOKS) == 7
    assert sorted(_hook_sections()) == sorted(hook.__name__ for hook in HOOKS)
    for hook in HOOKS:
        doc = hook.__doc__
        assert doc is not None, hook.__name__
        assert len(doc.strip()) > 40, hook.__name__
        for parameter in inspect.signature(hook).parameters:
            assert f"    {parameter} (``" in doc, f"{hook.__name__} does not describe {parameter}"


@pytest.mark.parametrize("hook", HOOKS, ids=lambda h: h.__name__)
def test_hook_section_shows_the_signature_and_the_docstring_example(hook):
    signature, example = _hook_sections()[hook.__name__]
    spec = inspect.signature(hook)
    params = ", ".join(f"{p.name}: {p.annotation}" for p in spec.parameters.values())
    assert signature == f"{hook.__name__}({params}) -> {spec.return_annotation}\n"
    assert example == hook_example(hook)


@pytest.mark.parametrize("hook", HOOKS, ids=lambda h: h.__name__)
def test_hook_example_registers_what_it_defines(hook):
    """Each section's example, as a plugin module, registers its one class under its name."""
    module = types.ModuleType(f"docs_example_{hook.__name__}")
    exec(compile(_hook_sections()[hook.__name__][1], module.__name__, "exec"), module.__dict__)
    registry = build_registry([("docs-example", hook.__name__, module)])
    assert registry.failures == []
    plugin = registry.plugins[f"docs-example:{hook.__name__}"]
    assert plugin.hooks == [hook.__name__]
    [(kind, [cls])] = plugin.registered.items()
    assert kind == HOOK_KINDS[hook.__name__][0]
    assert registry.table(hook.__name__)[cls.name].distribution == "docs-example"


def test_security_example_redacts_what_the_agent_prints(bench_cli, tmp_path, monkeypatch):
    """docs/security.md's example: a secret an agent prints reaches no file and no console line."""
    import shutil

    secret = "tok-5b7c9d1e3f"
    monkeypatch.setenv("DEMO_TOKEN", secret)
    for name in ("suite.yaml", "leaky_agent.py"):
        shutil.copy(ROOT / "examples" / "security" / name, tmp_path / name)
    outcome = bench_cli("run", "suite.yaml", "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    report = (tmp_path / "out.json").read_text()
    assert "DEMO_TOKEN=[REDACTED:DEMO_TOKEN]" in report
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert secret.encode() not in written
    assert secret not in outcome.output
    assert "examples/security/suite.yaml" in (ROOT / "docs" / "security.md").read_text()


def test_the_judge_panel_example_in_rag_and_safety_runs(tmp_path, bench_fake_llm):
    """docs/rag-and-safety.md's panel example: two faithfulness judges, three toxicity samples."""
    page = (ROOT / "docs" / "rag-and-safety.md").read_text()
    section = page.split("## Judge panels and samples", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    bench_fake_llm.add(judge_verdict(score=0.0), match="toxic")
    bench_fake_llm.default = judge_verdict(
        claims=[{"claim": "Returns within 30 days.", "supported": True, "reason": "stated"}]
    )
    outcome = run_suite(write_suite(tmp_path, example))
    task = next(iter(outcome.report.tasks()))
    assert task["status"] == "passed", task
    faithful, toxic = task["evaluators"]
    assert sorted(v["model"] for v in faithful["details"]["verdicts"]) == [
        "openai/gpt-4.1-mini",
        "openai/gpt-4o-mini",
    ]
    assert [v["sample"] for v in toxic["details"]["verdicts"]] == [0, 1, 2]
    assert sorted(r.body["model"] for r in bench_fake_llm.requests) == ["gpt-4.1-mini"] + ["gpt-4o-mini"] * 4
