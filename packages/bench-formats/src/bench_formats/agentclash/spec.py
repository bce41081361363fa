"""A pack's ``version.evaluation_spec`` as native suite fields (bench speaks AgentClash's spec)."""

from __future__ import annotations

from typing import Any

#: Evaluation-spec keys bench reads as they are.
_AS_IS = ("judge_mode", "metrics", "scorecard", "post_execution_checks", "pricing")
#: llm_judges fields with the same meaning in bench's ``agentclash_judge`` / ``n_wise``.
_JUDGE_FIELDS = (
    "model", "models", "samples", "context_from", "output_schema", "score_scale", "rubric",
    "assertion", "expect", "prompt", "position_debiasing", "consensus", "anti_gaming_clauses", "timeout_ms",
)  # fmt: skip


def suite_fields(spec: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """Suite-level fields: judge mode, metrics, scorecard, captures, pricing and runtime limits."""
    out = {key: spec[key] for key in _AS_IS if spec.get(key) not in (None, [], {})}
    limits = dict(spec.get("runtime_limits") or {})
    if limits.pop("max_iterations", None) is not None:
        warnings.append(
            "evaluation_spec.runtime_limits.max_iterations is not applied: bench's targets have their own "
            "step limits (the agent target's max_steps)"
        )
    if limits:
        out["runtime_limits"] = limits
    scorecard = out.get("scorecard")
    if isinstance(scorecard, dict) and "judge_limits" in scorecard:
        scorecard = dict(scorecard)
        out["judge_limits"] = scorecard.pop("judge_limits")
        out["scorecard"] = scorecard
    if isinstance(out.get("scorecard"), dict):
        out["scorecard"] = _reliability(out["scorecard"], spec, warnings)
    return out


def _reliability(scorecard: dict[str, Any], spec: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """AgentClash scores reliability only from declared metrics (``engine_dimensions.go``): without
    both collectors it is unavailable, which a weighted mean skips, so bench leaves it out."""
    collectors = {m.get("collector") for m in spec.get("metrics") or [] if isinstance(m, dict)}
    if {"run_completed_successfully", "run_failure_count"} <= collectors:
        return scorecard
    dims = scorecard.get("dimensions") or []
    kept = [d for d in dims if (d.get("key") if isinstance(d, dict) else d) != "reliability"]
    if len(kept) == len(dims):
        return scorecard
    gated = [d for d in dims if isinstance(d, dict) and d.get("key") == "reliability" and d.get("gate")]
    if gated or scorecard.get("strategy") == "binary":
        raise ValueError(
            "scorecard dimension reliability is a gate, but AgentClash scores it only when metrics declare "
            "both the run_completed_successfully and run_failure_count collectors: as written every run fails"
        )
    warnings.append(
        "scorecard dimension reliability is left out: AgentClash scores it only when metrics declare both "
        "the run_completed_successfully and run_failure_count collectors, so in this pack it is unavailable"
    )
    return {**scorecard, "dimensions": kept}


#: Validators whose config AgentClash decodes leniently (``json.Unmarshal`` in
#: runtime/scoring/file_validators.go): keys other than these are ignored there, so here too.
LENIENT_CONFIGS = {
    "file_exists": {"must_exist"},
    "file_content_match": {"match_mode", "ignore_whitespace"},
    "file_json_schema": {"schema"},
    "directory_structure": {"required_files", "forbidden_files", "required_directories"},
}


def evaluators(spec: dict[str, Any], warnings: list[str] | None = None) -> list[dict[str, Any]]:
    """Every task's evaluator entries: validators, LLM judges, then behavioural signals."""
    entries: list[dict[str, Any]] = []
    for validator in spec.get("validators") or []:
        entry = {k: validator[k] for k in ("key", "type", "target", "expected_from") if validator.get(k)}
        config = dict(validator.get("config") or {})
        known = LENIENT_CONFIGS.get(str(validator.get("type")))
        if known is not None:
            ignored = sorted(k for k in config if k not in known)
            if ignored and warnings is not None:
                names = ", ".join(ignored)
                warnings.append(
                    f"validator '{validator.get('key')}' ({validator.get('type')}): config {names} "
                    "ignored, as AgentClash ignores keys its config does not define"
                )
            config = {k: v for k, v in config.items() if k in known}
        if validator.get("type") == "token_f1":
            # bench's own token_f1 normalises as SQuAD does and passes at any overlap; AgentClash's
            # (string_validators.go) normalises only when asked and passes at 0.5.
            config = {"normalize": False, "threshold": 0.5, **config}
        if config:
            entry["config"] = config
        entries.append(entry)
    for judge in spec.get("llm_judges") or []:
        mode = judge.get("mode")
        entry = {"key": judge.get("key"), "type": "n_wise" if mode == "n_wise" else "agentclash_judge"}
        if mode != "n_wise":
            entry["mode"] = mode
        entry.update({k: judge[k] for k in _JUDGE_FIELDS if judge.get(k) is not None})
        if judge.get("reference_from"):
            entry["expected_from"] = judge["reference_from"]
        entries.append(entry)
    for signal in (spec.get("behavioral") or {}).get("signals") or []:
        entry = {"key": signal.get("key"), "type": signal.get("key")}
        entry.update(
            {k: signal[k] for k in ("weight", "gate", "pass_threshold") if signal.get(k) is not None}
        )
        entries.append(entry)
    return entries
