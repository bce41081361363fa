"""A challenge pack's structural checks, worded as AgentClash's ``ValidateBundle`` words them
(``runtime/challengepack/validation.go``: ``FIELD MESSAGE``, joined by ``; ``).

The evaluation spec is checked by bench itself once the native suite is built."""

from __future__ import annotations

from typing import Any

from .multi_turn import problems as multi_turn_problems

EXECUTION_MODES = ("native", "prompt_eval", "responses", "multi_turn")
DIFFICULTIES = ("easy", "medium", "hard", "expert")


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def problems(data: dict[str, Any]) -> list[str]:
    """Every problem ValidateBundle reports that bench can check before running, in its order."""
    errs: list[str] = []
    pack, version = _map(data.get("pack")), _map(data.get("version"))
    for field in ("slug", "name", "family"):
        if not _text(pack.get(field)):
            errs.append(f"pack.{field} is required")
    number = version.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        errs.append("version.number must be greater than 0")
    mode = _text(version.get("execution_mode"))
    if mode not in ("", *EXECUTION_MODES):
        errs.append(
            'version.execution_mode must be one of "native", "prompt_eval", "responses", "multi_turn"'
        )
    if mode == "prompt_eval":
        if data.get("tools"):
            errs.append("tools must be empty when version.execution_mode is prompt_eval")
        if version.get("sandbox") is not None:
            errs.append("version.sandbox must be omitted when version.execution_mode is prompt_eval")
        if version.get("tool_policy"):
            errs.append("version.tool_policy must be empty when version.execution_mode is prompt_eval")
    if mode == "responses" and data.get("tools"):
        errs.append(
            "tools must be empty when version.execution_mode is responses "
            "(use OpenAI Responses tools, not pack-defined tools)"
        )
    challenges = _list(data.get("challenges"))
    if not challenges:
        errs.append("challenges must contain at least one challenge")
    if _text(pack.get("family")).lower() == "security" and data.get("security") is None:
        errs.append('security is required when pack.family == "security"')
    keys: set[str] = set()
    for i, challenge in enumerate(challenges):
        challenge, path = _map(challenge), f"challenges[{i}]"
        key = _text(challenge.get("key"))
        if not key:
            errs.append(f"{path}.key is required")
        else:
            if key in keys:
                errs.append(f"{path}.key must be unique")
            keys.add(key)
        for field in ("title", "category"):
            if not _text(challenge.get(field)):
                errs.append(f"{path}.{field} is required")
        if _text(challenge.get("difficulty")) not in DIFFICULTIES:
            errs.append(f"{path}.difficulty must be one of easy, medium, hard, expert")
    set_keys: set[str] = set()
    for i, input_set in enumerate(_list(data.get("input_sets"))):
        input_set, path = _map(input_set), f"input_sets[{i}]"
        key = _text(input_set.get("key"))
        if not key:
            errs.append(f"{path}.key is required")
        else:
            if key in set_keys:
                errs.append(f"{path}.key must be unique")
            set_keys.add(key)
        if not _text(input_set.get("name")):
            errs.append(f"{path}.name is required")
        errs.extend(_cases(path, cases(input_set), keys))
    errs.extend(_user_simulators(data, mode == "multi_turn"))
    return errs


def _user_simulators(data: dict[str, Any], multi_turn: bool) -> list[str]:
    """``validateBundleUserSimulators``: every multi_turn case has one, no other case has one."""
    errs: list[str] = []
    for i, input_set in enumerate(_list(data.get("input_sets"))):
        for j, case in enumerate(cases(_map(input_set))):
            path = f"input_sets[{i}].cases[{j}].user_simulator"
            if case.get("user_simulator") is None:
                if multi_turn:
                    errs.append(f"{path} is required when version.execution_mode is multi_turn")
            elif not multi_turn:
                errs.append(f"{path} is only allowed when version.execution_mode is multi_turn")
            else:
                errs.extend(multi_turn_problems(path, case["user_simulator"]))
    return errs


def cases(input_set: dict[str, Any]) -> list[dict[str, Any]]:
    """The input set's cases; the older ``items`` (``item_key``) when it has no cases."""
    found = _list(input_set.get("cases")) or _list(input_set.get("items"))
    return [_map(case) for case in found]


def case_key(case: dict[str, Any]) -> str:
    return _text(case.get("case_key")) or _text(case.get("item_key"))


def _cases(path: str, found: list[dict[str, Any]], challenge_keys: set[str]) -> list[str]:
    errs: list[str] = []
    if not found:
        errs.append(f"{path}.cases must contain at least one case")
    seen: set[tuple[str, str]] = set()
    first = ""
    for i, case in enumerate(found):
        item = f"{path}.cases[{i}]"
        challenge = _text(case.get("challenge_key"))
        if not challenge:
            errs.append(f"{item}.challenge_key is required")
        else:
            if not first:
                first = challenge
            elif challenge != first:
                errs.append(
                    f"{item}.challenge_key must reference the same challenge "
                    "as the other cases in this input set"
                )
            if challenge not in challenge_keys:
                errs.append(f"{item}.challenge_key must reference a declared challenge")
        key = case_key(case)
        if not key:
            errs.append(f"{item}.case_key is required")
        else:
            if (challenge, key) in seen:
                errs.append(f"{item}.case_key must be unique per challenge in the input set")
            seen.add((challenge, key))
        errs.extend(_expectations(f"{item}.expectations", _list(case.get("expectations"))))
    return errs


def _expectations(path: str, found: list[Any]) -> list[str]:
    errs: list[str] = []
    seen: set[str] = set()
    for i, expectation in enumerate(found):
        expectation, item = _map(expectation), f"{path}[{i}]"
        key = _text(expectation.get("key"))
        if not key:
            errs.append(f"{item}.key is required")
        else:
            if key in seen:
                errs.append(f"{item}.key must be unique")
            seen.add(key)
        if not _text(expectation.get("kind")):
            errs.append(f"{item}.kind is required")
    return errs
