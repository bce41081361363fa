"""Python test files read with ``ast``: their test functions and the assertions in each.

A test function is a ``def test*`` at module level or in a class (``Class.test_x``). Its
assertions, in source order, are ``assert`` statements and calls of ``assert*`` functions or
methods (``self.assertEqual``, ``mock.assert_called_once_with``, ``np.testing.assert_allclose``)
and ``pytest.raises``. Each has a strength: 2 checks a value (a comparison, a call, an
``assertEqual``), 1 checks truthiness only (``assert x``, ``assertTrue(x)``,
``assertIsNotNone``), 0 checks nothing (``assert True``, ``assert x == 3 or True``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

#: unittest and friends' assertions that check truthiness only.
WEAK_CALLS = frozenset(
    {"assertTrue", "assertFalse", "assertIsNotNone", "assert_", "failUnless", "assertTruthy"}
)


@dataclass(frozen=True)
class Assertion:
    """One assertion of a test function: its source (normalised), strength and lines."""

    text: str
    strength: int
    first: int
    last: int
    #: ``ast.dump`` of an ``assert``'s test, and of each expression inside it.
    core: str = ""
    parts: frozenset[str] = frozenset()

    def weakened_to(self, other: Assertion) -> bool:
        """Whether ``other`` checks less: a lower strength, or only a part of this test
        (``assert x == 3`` to ``assert x``; ``assert a and b`` to ``assert a``)."""
        return other.strength < self.strength or (bool(other.core) and other.core in self.parts)


@dataclass(frozen=True)
class DefinedTest:
    """A test function: its qualified name, lines, assertions and whether its body is empty."""

    name: str
    first: int
    last: int
    assertions: tuple[Assertion, ...]
    empty: bool


def _truthy_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return any(_truthy_constant(v) for v in node.values)
    return False


def assert_strength(test: ast.expr) -> int:
    """The strength of ``assert <test>`` (see the module's rule)."""
    if _truthy_constant(test):
        return 0
    if isinstance(test, (ast.Compare, ast.Call)):
        return 2
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return max(assert_strength(v) for v in test.values)
    return 1


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _assertion(node: ast.AST) -> Assertion | None:
    core, parts = "", frozenset[str]()
    if isinstance(node, ast.Assert):
        strength = assert_strength(node.test)
        core = ast.dump(node.test)
        parts = frozenset(
            ast.dump(n) for n in ast.walk(node.test) if n is not node.test and isinstance(n, ast.expr)
        )
    elif isinstance(node, ast.Call):
        name = _call_name(node)
        if name == "raises":
            strength = 2
        elif name.startswith("assert") or name == "failUnless":
            trivial = name in WEAK_CALLS and bool(node.args) and _truthy_constant(node.args[0])
            strength = 0 if trivial else (1 if name in WEAK_CALLS else 2)
        else:
            return None
    else:
        return None
    end = node.end_lineno or node.lineno
    return Assertion(ast.unparse(node), strength, node.lineno, end, core, parts)


def _empty(body: list[ast.stmt]) -> bool:
    """A body that does nothing: ``pass``, ``...``, a docstring, a bare ``return``."""
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if isinstance(stmt, ast.Return) and (stmt.value is None or isinstance(stmt.value, ast.Constant)):
            continue
        return False
    return True


def _function(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> DefinedTest:
    found = [a for child in ast.walk(node) if (a := _assertion(child)) is not None]
    found.sort(key=lambda a: (a.first, a.text))
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return DefinedTest(name, start, node.end_lineno or node.lineno, tuple(found), _empty(node.body))


def defined_tests(source: str) -> dict[str, DefinedTest] | None:
    """The test functions of a Python file by qualified name; ``None`` when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: dict[str, DefinedTest] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
                found[prefix + node.name] = _function(node, prefix + node.name)
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return found


def line_assertion(line: str) -> Assertion | None:
    """One Python line read alone, when it is a whole assertion (else ``None``)."""
    try:
        tree = ast.parse(line.strip())
    except (SyntaxError, ValueError):
        return None
    if len(tree.body) != 1:
        return None
    stmt = tree.body[0]
    node: ast.AST = stmt.value if isinstance(stmt, ast.Expr) else stmt
    return _assertion(node)
