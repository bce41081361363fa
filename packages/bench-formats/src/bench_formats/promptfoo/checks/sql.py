"""is-sql: the output parses as SQL of the database type, and its tables and columns are allowed
(``src/assertions/sql.ts``; sqlglot stands in for node-sql-parser).

Whitelist entries are node-sql-parser authorities, ``{action}::{db|null}::{table}`` for tables and
``{action}::{table|null}::{column}`` for columns, each matched case-insensitively as a whole regex.
"""

from __future__ import annotations

import re
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


CHECKS: dict[str, Check] = {"is-sql": is_sql}
