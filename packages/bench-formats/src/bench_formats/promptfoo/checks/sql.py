"""is-sql: the output parses as SQL of the database type, and its tables and columns are allowed
(``src/assertions/sql.ts``; sqlglot stands in for node-sql-parser).

Whitelist entries are node-sql-parser authorities, ``{action}::{db|null}::{table}`` for tables and
``{action}::{table|null}::{column}`` for columns, each matched case-insensitively as a whole regex.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, binary

# node-sql-parser's database names -> sqlglot dialects.
_DIALECTS = {
    "mysql": "mysql",
    "mariadb": "mysql",
    "postgresql": "postgres",
    "postgres": "postgres",
    "sqlite": "sqlite",
    "bigquery": "bigquery",
    "transactsql": "tsql",
    "snowflake": "snowflake",
    "redshift": "redshift",
    "hive": "hive",
    "db2": "postgres",
    "flinksql": "spark",
    "trino": "trino",
    "athena": "athena",
}


def _statements(sql: str, dialect: str) -> list[Any]:
    import sqlglot
    from sqlglot import exp

    parsed = [s for s in sqlglot.parse(sql, read=dialect) if s is not None]
    statement_types = (exp.Query, exp.DML, exp.DDL, exp.Command, exp.Use, exp.Set, exp.Transaction)
    if not parsed or not all(isinstance(s, statement_types) for s in parsed):
        raise ValueError("not a SQL statement")
    return parsed


def _action(statement: Any) -> str:
    from sqlglot import exp

    for kind, name in ((exp.Insert, "insert"), (exp.Update, "update"), (exp.Delete, "delete")):
        if isinstance(statement, kind):
            return name
    return "select" if isinstance(statement, exp.Query) else statement.key.lower()


def _authorities(statements: list[Any]) -> tuple[list[str], list[str]]:
    from sqlglot import exp

    tables: list[str] = []
    columns: list[str] = []
    for statement in statements:
        action = _action(statement)
        for table in statement.find_all(exp.Table):
            tables.append(f"{action}::{table.db or 'null'}::{table.name}")
        for column in statement.find_all(exp.Column):
            columns.append(f"{action}::{column.table or 'null'}::{column.name}")
        if any(isinstance(e, exp.Star) for e in statement.find_all(exp.Star)):
            columns.append(f"{action}::null::(.*)")
    return tables, columns


def _first_unlisted(authorities: list[str], allowed: list[str]) -> str | None:
    for authority in authorities:
        if not any(re.fullmatch(entry, authority, re.IGNORECASE) for entry in allowed):
            return authority
    return None


def is_sql(call: Call) -> Grade:
    value = call.value
    if value and not isinstance(value, dict):
        raise AssertionInvalid("is-sql assertion must have a object value.")
    options = value or {}
    database = options.get("databaseType") or "MySQL"
    dialect = _DIALECTS.get(str(database).lower(), "mysql")
    reasons: list[str] = []
    statements: list[Any] = []
    try:
        statements = _statements(call.output, dialect)
        passed = not call.inverse
    except Exception:
        passed = call.inverse
        reasons.append(f"SQL statement does not conform to the provided {database} database syntax.")
    tables, columns = _authorities(statements)
    for kind, authorities, allowed in (
        ("table", tables, options.get("allowedTables")),
        ("column", columns, options.get("allowedColumns")),
    ):
        if allowed is None:
            continue
        missing = _first_unlisted(authorities, list(allowed)) if statements else "null"
        if missing is not None:
            passed = call.inverse
            reasons.append(
                f"SQL validation failed: authority = '{missing}' is required in {kind} whiteList "
                f"to execute SQL = '{call.output}'."
            )
    if call.inverse and not passed and not reasons:
        reasons.append("The output SQL statement is valid")
    return binary(passed, " ".join(reasons))


_FENCE_START = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\r\n]*)$")
_FENCE_END = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*$")


def sql_blocks(text: str) -> list[str]:
    """The bodies of fenced code blocks tagged ``sql`` or untagged, as promptfoo extracts them."""
    blocks: list[str] = []
    fence: tuple[str, int, bool] | None = None
    body: list[str] = []
    for line in re.split(r"\r\n?|\n", text):
        if fence is None:
            opening = _FENCE_START.match(line)
            if opening:
                language = opening.group(2).strip().lower()
                fence, body = (opening.group(1)[0], len(opening.group(1)), language in ("", "sql")), []
            continue
        closing = _FENCE_END.match(line)
        if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= fence[1]:
            if fence[2]:
                blocks.append("\n".join(body).strip())
            fence = None
        else:
            body.append(line)
    return blocks


def contains_sql(call: Call) -> Grade:
    """contains-sql: some ``sql`` code block (else the whole output) passes is-sql."""
    found, failure = False, "Output does not contain valid SQL"
    for candidate in sql_blocks(call.output) or [call.output]:
        if not candidate.strip():
            continue
        grade = is_sql(replace(call, output=candidate, inverse=False))
        if grade.passed:
            found = True
            break
        failure = grade.reason
    passed = found != call.inverse
    return binary(passed, "The output SQL statement is valid" if found else failure)


CHECKS: dict[str, Check] = {"is-sql": is_sql, "contains-sql": contains_sql}
