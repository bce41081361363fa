"""is-html and contains-html (``src/assertions/html.ts``).

contains-html is promptfoo's indicator count (two or more of its regex signs). is-html follows
its rules over the standard library's ``html.parser`` instead of parse5: not empty, not an XML
declaration, no text outside an element unless the output has a literal ``<body``, and at least
one known HTML element (or a custom element with a ``-``); ``html``/``head``/``body`` count only
when written literally.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from bench_formats.promptfoo.checks.base import Call, Check, Grade, binary

_MAX = 10 * 1024 * 1024

_SIGNS: tuple[tuple[re.Pattern[str], int], ...] = (
    (re.compile(r"<[a-zA-Z][a-zA-Z0-9-]*(?:\s[^>]*)?/>"), 1),
    (re.compile(r"&(?:[a-zA-Z]+|#[0-9]+|#x[0-9a-fA-F]+);"), 1),
    (re.compile(r"<!DOCTYPE\s+html", re.IGNORECASE), 2),
    (re.compile(r"<!--[^-]*(?:-[^-]+)*-->"), 1),
    (re.compile(r"\s[a-zA-Z-]+=\s*[\"'][^\"']*[\"']"), 1),
    (
        re.compile(
            r"<(html|head|body|div|span|p|a|img|h[1-6]|ul|ol|li|table|tr|td|th|form|input|button"
            r"|script|style|link|meta|br|hr)\b",
            re.IGNORECASE,
        ),
        2,
    ),
)
_OPENING = re.compile(r"<[a-zA-Z][a-zA-Z0-9-]*(?:\s[^>]*)?>")
_CLOSING = re.compile(r"</[a-zA-Z][a-zA-Z0-9-]*\s*>")

_ELEMENTS = frozenset(
    [
        "html",
        "head",
        "title",
        "base",
        "link",
        "meta",
        "style",
        "body",
        "article",
        "section",
        "nav",
        "aside",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "footer",
        "address",
        "p",
        "hr",
        "pre",
        "blockquote",
        "ol",
        "ul",
        "li",
        "dl",
        "dt",
        "dd",
        "figure",
        "figcaption",
        "main",
        "div",
        "a",
        "em",
        "strong",
        "small",
        "s",
        "cite",
        "q",
        "dfn",
        "abbr",
        "ruby",
        "rt",
        "rp",
        "data",
        "time",
        "code",
        "var",
        "samp",
        "kbd",
        "sub",
        "sup",
        "i",
        "b",
        "u",
        "mark",
        "bdi",
        "bdo",
        "span",
        "br",
        "wbr",
        "img",
        "iframe",
        "embed",
        "object",
        "param",
        "picture",
        "source",
        "video",
        "audio",
        "track",
        "map",
        "area",
        "svg",
        "math",
        "script",
        "noscript",
        "canvas",
        "ins",
        "del",
        "table",
        "caption",
        "colgroup",
        "col",
        "tbody",
        "thead",
        "tfoot",
        "tr",
        "td",
        "th",
        "form",
        "label",
        "input",
        "button",
        "select",
        "datalist",
        "optgroup",
        "option",
        "textarea",
        "output",
        "progress",
        "meter",
        "fieldset",
        "legend",
        "details",
        "summary",
        "dialog",
        "menu",
        "slot",
        "template",
    ]
)
_VOID = frozenset(
    (
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    )
)
_WRAPPERS = ("html", "head", "body")


def contains_html(text: str) -> bool:
    """promptfoo's ``containsHtml``: at least two points of HTML signs."""
    if len(text) > _MAX:
        return False
    opening, closing = bool(_OPENING.search(text)), bool(_CLOSING.search(text))
    points = 2 if opening and closing else int(opening or closing)
    points += sum(weight for pattern, weight in _SIGNS if pattern.search(text))
    return points >= 2


class _Scan(HTMLParser):
    def __init__(self, literal: set[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.literal = literal
        self.open: list[str] = []
        self.loose_text = False
        self.known = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._element(tag)
        if tag not in _VOID and tag not in _WRAPPERS:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: object) -> None:
        self._element(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if not self.open and data.strip():
            self.loose_text = True

    def _element(self, tag: str) -> None:
        if tag in _WRAPPERS:
            self.known = self.known or tag in self.literal
        elif tag in _ELEMENTS or "-" in tag:
            self.known = True


def validate_html(text: str) -> tuple[bool, str]:
    """promptfoo's ``validateHtml``: (valid, reason)."""
    trimmed = text.strip()
    if not trimmed:
        return False, "Output is empty"
    if len(trimmed) > _MAX:
        return False, "Output exceeds maximum size limit"
    if re.match(r"\s*<\?xml", trimmed, re.IGNORECASE):
        return False, "Output appears to be XML, not HTML"
    lower = trimmed.lower()
    literal = {tag for tag in _WRAPPERS if re.search(rf"<{tag}(?=[\s>/])", lower)}
    scan = _Scan(literal)
    scan.feed(trimmed)
    scan.close()
    if scan.loose_text and "body" not in literal:
        return False, "Output must be wrapped in HTML tags"
    if not scan.known:
        return False, "Output does not contain recognized HTML elements"
    return True, "Output is valid HTML"


def is_html(call: Call) -> Grade:
    valid, reason = validate_html(call.output)
    return binary(valid != call.inverse, reason)


def contains_html_check(call: Call) -> Grade:
    passed = contains_html(call.output) != call.inverse
    return binary(passed, f"Expected output to {'not ' if call.inverse else ''}contain HTML content")


CHECKS: dict[str, Check] = {"is-html": is_html, "contains-html": contains_html_check}
