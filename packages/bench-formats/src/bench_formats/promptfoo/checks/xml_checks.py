"""is-xml and contains-xml (``src/assertions/xml.ts``).

promptfoo checks well-formedness with saxes and reads the tree with fast-xml-parser; bench uses
the standard library's expat for both, so a parse failure's message is expat's wording (the
verdict is the same). ``requiredElements`` are dotted paths into fast-xml-parser's object:
element names, ``@_attr`` for attributes, ``#text`` for mixed text, list indexes for repeats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, binary, js_string


class _Unsupported(Exception):
    pass


def _parse(text: str) -> Any:
    """fast-xml-parser's object for ``text``; ``ValueError`` when it is not well-formed."""
    from xml.parsers import expat

    parser = expat.ParserCreate()
    root: dict[str, Any] = {}
    stack: list[tuple[str, dict[str, Any], list[str]]] = [("", root, [])]

    def start(name: str, attrs: dict[str, str]) -> None:
        node: dict[str, Any] = {f"@_{k}": v for k, v in attrs.items()}
        stack.append((name, node, []))

    def end(name: str) -> None:
        _, node, texts = stack.pop()
        text = "".join(texts).strip()
        value: Any
        if node:
            if text:
                node["#text"] = text
            value = node
        else:
            value = text
        parent = stack[-1][1]
        if name in parent:
            existing = parent[name]
            parent[name] = [*existing, value] if isinstance(existing, list) else [existing, value]
        else:
            parent[name] = value

    def chars(data: str) -> None:
        stack[-1][2].append(data)

    def doctype(_name: str, _system: Any, _public: Any, internal: int) -> None:
        if internal:
            raise _Unsupported

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.StartDoctypeDeclHandler = doctype
    parser.buffer_text = True
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise ValueError(str(exc)) from None
    return root


def _has_path(value: Any, path: list[str]) -> bool:
    current = value
    for key in path:
        if isinstance(current, list):
            if not key.isdigit() or str(int(key)) != key or int(key) >= len(current):
                return False
            current = current[int(key)]
        elif isinstance(current, dict):
            if key not in current:
                return False
            current = current[key]
        else:
            return False
    return True


def _check_tree(tree: Any, required: list[str] | None) -> tuple[bool, str]:
    missing = [r for r in required or [] if not _has_path(tree, r.split("."))]
    if missing:
        return False, f"XML is missing required elements: {', '.join(missing)}"
    return True, "XML is valid and contains all required elements"


def validate_xml(text: str, required: list[str] | None) -> tuple[bool, str]:
    """promptfoo's ``validateXml``: the whole output is one well-formed document."""
    try:
        tree = _parse(text)
    except _Unsupported:
        return False, "DTD internal subsets are not supported by is-xml validation"
    except ValueError as exc:
        return False, f"XML parsing failed: {exc}"
    return _check_tree(tree, required)


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    parent: int | None


_NAME_START = re.compile(
    "[:_A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff]"
)
_NAME_CHAR = re.compile(r"[-.0-9\u00b7\u0300-\u036f\u203f\u2040]")


def _read_name(text: str, start: int) -> str | None:
    if start >= len(text) or not _NAME_START.match(text[start]):
        return None
    end = start + 1
    while end < len(text) and (_NAME_START.match(text[end]) or _NAME_CHAR.match(text[end])):
        end += 1
    return text[start:end]


def _delimited_end(text: str, start: int, delimiter: str) -> int:
    found = text.find(delimiter, start)
    return len(text) - 1 if found < 0 else found + len(delimiter) - 1


def _declaration_end(text: str, start: int) -> int:
    if text.startswith("<!--", start):
        return _delimited_end(text, start + 4, "-->")
    if text.startswith("<![CDATA[", start):
        return _delimited_end(text, start + 9, "]]>")
    quote, depth = "", 0
    for i in range(start + 2, len(text)):
        char = text[i]
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]" and depth > 0:
            depth -= 1
        elif char == ">" and depth == 0:
            return i
    return len(text) - 1


def _tag_end(text: str, start: int) -> int:
    quote = ""
    for i in range(start + 1, len(text)):
        char = text[i]
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "<":
            return -1
        elif char == ">":
            return i
    return -1


def _candidates(text: str) -> list[_Span]:
    """promptfoo's ``extractXmlCandidates``: balanced elements, then sibling runs, outermost first."""
    stack: list[tuple[str, int]] = []
    found: list[_Span] = []
    i = 0
    while i < len(text):
        if text[i] != "<" or i + 1 >= len(text):
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "!":
            i = _declaration_end(text, i) + 1
            continue
        if nxt == "?":
            i = _delimited_end(text, i + 2, "?>") + 1
            continue
        closing = nxt == "/"
        name = _read_name(text, i + 2 if closing else i + 1)
        end = _tag_end(text, i) if name else -1
        if name is None or end < 0:
            i += 1
            continue
        parent = stack[-1][1] if stack else None
        if closing:
            if stack and stack[-1][0] == name:
                _, start = stack.pop()
                found.append(_Span(start, end + 1, stack[-1][1] if stack else None))
            else:
                stack.clear()
        elif text[i:end].rstrip().endswith("/"):
            found.append(_Span(i, end + 1, parent))
        else:
            stack.append((name, i))
        i = end + 1
    return _order(found)


def _order(found: list[_Span]) -> list[_Span]:
    ordered: list[_Span] = []
    seen: set[tuple[int, int]] = set()
    starts = {s.start for s in found}

    def add(span: _Span) -> None:
        if (span.start, span.end) not in seen:
            seen.add((span.start, span.end))
            ordered.append(span)

    by_parent: dict[int | None, list[_Span]] = {}
    for span in found:
        by_parent.setdefault(span.parent, []).append(span)
    for parent, siblings in by_parent.items():
        if len(siblings) <= 1 or (parent is not None and parent in starts):
            continue
        siblings.sort(key=lambda s: (s.start, s.end))
        add(_Span(siblings[0].start, siblings[-1].end, parent))
    maximal = [s for s in found if s.parent is None or s.parent not in starts]
    for span in sorted(maximal, key=lambda s: (s.start, -s.end)):
        add(span)
    return ordered


def contains_xml(text: str, required: list[str] | None) -> tuple[bool, str]:
    """promptfoo's ``containsXml``: some element (or run of siblings) in the text passes."""
    spans = _candidates(text)
    if not spans:
        return False, "No XML content found in the output"
    containers: list[_Span] = []
    for span in spans:
        if any(span.start >= c.start and span.end <= c.end for c in containers):
            continue
        try:
            tree = _parse(text[span.start : span.end])
        except (ValueError, _Unsupported):
            continue
        ok, reason = _check_tree(tree, required)
        if ok:
            return True, reason
        containers.append(span)
    return False, "No valid XML content found matching the requirements"


def _required(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",")]
    if isinstance(value, list) and value:
        return [js_string(v) for v in value]
    if isinstance(value, dict) and value:
        listed = value.get("requiredElements")
        if isinstance(listed, list):
            return [js_string(v) for v in listed]
        raise AssertionInvalid("xml assertion must contain a string, array value, or no value")
    return None


def _xml(whole: bool) -> Check:
    def check(call: Call) -> Grade:
        required = _required(call.value)
        valid, reason = (validate_xml if whole else contains_xml)(call.output, required)
        return binary(valid != call.inverse, reason)

    return check


CHECKS: dict[str, Check] = {"is-xml": _xml(whole=True), "contains-xml": _xml(whole=False)}
