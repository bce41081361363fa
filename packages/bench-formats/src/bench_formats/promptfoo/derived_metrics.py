"""promptfoo's ``derivedMetrics``: formulas over a prompt column's named scores.

promptfoo 0.121.20 (``updateDerivedMetrics`` in ``src/evaluator.ts``) keeps, per column (provider ×
prompt), the sum of each named metric's weighted scores over its rows; after every row it
evaluates each derived metric in order with mathjs over those sums, the metrics derived so far and
``__count`` (the column's rows so far). A formula that fails (an unknown name) leaves the metric as
it was (0 at first). The column's figure is the value after its last row.

A YAML config's ``value`` is a mathjs expression (a JavaScript function only comes from a JavaScript
config). bench evaluates mathjs' arithmetic: numbers, names, ``+ - * / % ^``, parentheses,
comparisons, ``and``/``or``/``not`` and the functions in ``FUNCTIONS``; anything else fails as an
unknown mathjs construct would, leaving the metric unchanged.
"""

from __future__ import annotations

import ast
import math
import operator
import statistics
from collections.abc import Callable, Iterable
from typing import Any

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Pow: lambda a, b: math.pow(a, b) if a >= 0 or float(b).is_integer() else math.nan,
}
_COMPARE: dict[type[ast.cmpop], Callable[[float, float], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _log(x: float, base: float | None = None) -> float:
    if x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    return math.log(x) if base is None else math.log(x) / math.log(base)


def _round(x: float, digits: float = 0) -> float:
    factor = float(10 ** int(digits))
    return math.floor(x * factor + 0.5) / factor


#: mathjs functions a formula may call.
FUNCTIONS: dict[str, Callable[..., float]] = {
    "abs": abs,
    "sqrt": lambda x: math.sqrt(x) if x >= 0 else math.nan,
    "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "exp": math.exp,
    "log": _log,
    "log10": lambda x: _log(x, 10),
    "log2": lambda x: _log(x, 2),
    "pow": lambda a, b: _BINARY[ast.Pow](a, b),
    "min": min,
    "max": max,
    "round": _round,
    "floor": math.floor,
    "ceil": math.ceil,
    "sum": lambda *xs: math.fsum(xs),
    "mean": lambda *xs: statistics.fmean(xs),
    "median": lambda *xs: statistics.median(xs),
}


class FormulaError(ValueError):
    """A formula mathjs would not evaluate (an unknown name, a construct bench does not read)."""


def evaluate(formula: str, names: dict[str, float]) -> float:
    """A mathjs formula's value over ``names`` (division by zero gives ±Infinity or NaN, as in mathjs)."""
    try:
        tree = ast.parse(formula.replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"cannot read '{formula}': {exc.msg}") from None
    return float(_value(tree.body, names))


def _value(node: ast.AST, names: dict[str, float]) -> float:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise FormulaError(f"Undefined symbol {node.id}")
        return names[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        operand = _value(node.operand, names)
        if isinstance(node.op, ast.Not):
            return float(not operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, names), _value(node.right, names)
        if isinstance(node.op, ast.Div):
            return _divide(left, right)
        if isinstance(node.op, ast.Mod):
            return math.nan if right == 0 else left - right * math.floor(left / right)
        if type(node.op) in _BINARY:
            try:
                return _BINARY[type(node.op)](left, right)
            except OverflowError:
                return math.inf
    if isinstance(node, ast.BoolOp):
        values = [_value(item, names) for item in node.values]
        return float(all(values) if isinstance(node.op, ast.And) else any(values))
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        left = _value(node.left, names)
        for op, item in zip(node.ops, node.comparators, strict=True):
            right = _value(item, names)
            if not _COMPARE[type(op)](left, right):
                return 0.0
            left = right
        return 1.0
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        function = FUNCTIONS.get(node.func.id)
        if function is None:
            raise FormulaError(f"Undefined function {node.func.id}")
        try:
            return float(function(*[_value(arg, names) for arg in node.args]))
        except (TypeError, ValueError, statistics.StatisticsError) as exc:
            raise FormulaError(f"{node.func.id}: {exc}") from None
    raise FormulaError(f"bench does not evaluate this mathjs construct: {ast.unparse(node)}")


def _divide(left: float, right: float) -> float:
    if right != 0:
        return left / right
    if left == 0 or math.isnan(left):
        return math.nan
    return math.copysign(math.inf, left) * math.copysign(1.0, right)


def compute(
    definitions: list[dict[str, Any]], rows: Iterable[tuple[str, dict[str, float]]]
) -> dict[str, dict[str, float]]:
    """Each column's derived metrics after its rows: ``rows`` gives, in run order, a row's column
    and its metrics' weighted score sums."""
    sums: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    for column, totals in rows:
        scores = sums.setdefault(column, {})
        counts[column] = counts.get(column, 0) + 1
        for name, total in totals.items():
            scores[name] = scores.get(name, 0.0) + total
        names = {**scores, "__count": float(counts[column])}
        for definition in definitions:
            name = str(definition.get("name"))
            scores.setdefault(name, 0.0)
            try:
                scores[name] = evaluate(str(definition.get("value")), names)
            except FormulaError:
                continue
            names[name] = scores[name]
    derived = {str(d.get("name")) for d in definitions}
    return {column: {k: v for k, v in scores.items() if k in derived} for column, scores in sums.items()}
