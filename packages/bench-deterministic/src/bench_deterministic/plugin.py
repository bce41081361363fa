"""Registers bench-deterministic's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl

# Registered by name and import path: a class is imported when a suite first uses it,
# so bench's start-up does not import every class of the plugin.
EVALUATORS = {
    "expected": "bench_deterministic.expected:ExpectedMatcher",
    "exact_match": "bench_deterministic.text:ExactMatch",
    "exact": "bench_deterministic.text:ExactMatch",
    "equals": "bench_deterministic.text:ExactMatch",
    "contains": "bench_deterministic.text:Contains",
    "contains_all": "bench_deterministic.text:Contains",
    "contains-all": "bench_deterministic.text:Contains",
    "icontains": "bench_deterministic.text:IContains",
    "not_contains": "bench_deterministic.text:NotContains",
    "not-contains": "bench_deterministic.text:NotContains",
    "starts_with": "bench_deterministic.text:StartsWith",
    "starts-with": "bench_deterministic.text:StartsWith",
    "regex": "bench_deterministic.text:Regex",
    "regex_match": "bench_deterministic.text:Regex",
    "regex-match": "bench_deterministic.text:Regex",
    "boolean_assert": "bench_deterministic.text:BooleanAssert",
    "normalized_match": "bench_deterministic.normalize:NormalizedMatch",
    "fuzzy_match": "bench_deterministic.normalize:FuzzyMatch",
    "fuzzy": "bench_deterministic.normalize:FuzzyMatch",
    "numeric_match": "bench_deterministic.numbers:NumericMatch",
    "numeric": "bench_deterministic.numbers:NumericMatch",
    "math_equivalence": "bench_deterministic.numbers:MathEquivalence",
    "math": "bench_deterministic.numbers:MathEquivalence",
    "is_json": "bench_deterministic.jsondoc:IsJson",
    "is-json": "bench_deterministic.jsondoc:IsJson",
    "json_valid": "bench_deterministic.jsondoc:IsJson",
    "json_schema": "bench_deterministic.jsondoc:JsonSchema",
    "is-valid-json-schema": "bench_deterministic.jsondoc:JsonSchema",
    "json_path_match": "bench_deterministic.jsondoc:JsonPathMatch",
    "jsonpath": "bench_deterministic.jsondoc:JsonPathMatch",
    "tool_calls": "bench_deterministic.toolcalls:ToolCalls",
    "tool_call": "bench_deterministic.toolcalls:ToolCalls",
    "tool_call_assertion": "bench_deterministic.toolcalls:ToolCallAssertion",
    "file_exists": "bench_deterministic.files:FileExists",
    "file_content_match": "bench_deterministic.files:FileContentMatch",
    "file_json_schema": "bench_deterministic.files:FileJsonSchema",
    "directory_structure": "bench_deterministic.files:DirectoryStructure",
    "code_execution": "bench_deterministic.code:CodeExecution",
    "code": "bench_deterministic.code:CodeExecution",
    "postcondition": "bench_deterministic.postcondition:Postcondition",
    "turn_count": "bench_deterministic.conversation:TurnCount",
    "tool_called_before": "bench_deterministic.conversation:ToolCalledBefore",
    "never_said": "bench_deterministic.conversation:NeverSaid",
}


#: Each class's ``infer_from`` (the rest claim none), declared so that a mapping written without
#: ``type:`` does not import every class to ask which claims its keys.
INFER_FROM = {"bench_deterministic.expected:ExpectedMatcher": ("expected", "expect_error")}


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for name, path in EVALUATORS.items():
        register(name, path, infer_from=INFER_FROM.get(path, ()))
