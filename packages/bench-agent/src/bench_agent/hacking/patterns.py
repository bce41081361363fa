"""Line patterns for what ``ast`` cannot read: other languages, and Python seen through hunks.

Each pattern reads one line of a hunk. They cover Python, JavaScript/TypeScript, Java/Kotlin and
Go, plus Rust's and C#'s skip markers; a line matched in a comment counts too.
"""

from __future__ import annotations

import re

from bench_agent.hacking.python_tests import line_assertion

#: Markers that skip, disable, expect to fail, or focus tests (``.only`` hides the others).
SKIPS = tuple(
    re.compile(p)
    for p in (
        r"@pytest\.mark\.(skip|skipif|xfail)\b",
        r"\bpytest\.(skip|xfail|importorskip)\s*\(",
        r"@(unittest\.)?(skip|skipIf|skipUnless|expectedFailure)\b",
        r"\bself\.skipTest\s*\(",
        r"\braise\s+(unittest\.)?SkipTest\b",
        r"\b(it|test|describe|context|suite)\.(skip|todo|only)\b",
        r"(?<![\w.])(xit|xtest|xdescribe|xcontext|fit|fdescribe)\s*\(",
        r"\bthis\.skip\s*\(",
        r"@(Disabled|Ignore)\b",
        r"@Disabled(If|On)\w*",
        r"\bAssumptions?\.assume\w*\s*\(",
        r"\b\w+\.Skip(f|Now)?\s*\(",
        r"#\[ignore\b",
        r"\[(Fact|Theory)\s*\(\s*Skip\s*=",
    )
)

#: Assertion lines of other languages, by strength: 0 checks nothing, 1 truthiness only.
_TRIVIAL = re.compile(
    r"expect\s*\(\s*(true|1)\s*\)\s*\.\s*(toBe|toEqual)\s*\(\s*(true|1)\s*\)"
    r"|\bassert(True|\.ok|\.True)?\s*\(\s*(t\s*,\s*)?(true|1)\s*\)"
)
_WEAK = re.compile(
    r"\.(toBeDefined|toBeTruthy|toBeFalsy|toBeUndefined)\s*\(\s*\)"
    r"|\.not\s*\.\s*(toBeNull|toBeUndefined|toBeNaN)\s*\(\s*\)"
    r"|\b(assertTrue|assertFalse|assertNotNull|assertNull)\s*\("
    r"|\bassert\.(ok|True|False|NotNil|Nil)\s*\("
    r"|\brequire\.(True|False|NotNil|Nil)\s*\("
    r"|\bassert\s*\(\s*[\w.]+\s*\)\s*;?\s*$"
    r"|\.should\.(exist|be\.ok)\b"
)
_ASSERTION = re.compile(
    r"\bexpect\s*\(|\bassert\w*\s*[.(]|\bassertThat\s*\(|\b(require|assert)\.\w+\s*\("
    r"|\bt\.(Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(|\.should\b|\bpytest\.raises\s*\("
    r"|^\s*assert\b"
)

#: Declarations of one test, with its name in the last group.
TEST_DECLARATIONS = tuple(
    re.compile(p)
    for p in (
        r"^\s*(async\s+)?def\s+(test\w*)\s*\(",
        r"(?<![\w.])[xf]?(it|test)(\.\w+)?\s*\(\s*(['\"`])(.+?)\3",
        r"^\s*func\s+(Test\w+)\s*\(\s*\w+\s+\*testing\.T",
        r"^\s*(public\s+|protected\s+)?(void|fun)\s+(test\w*)\s*\(",
    )
)
#: Java's and Kotlin's test marker (the method's name may be on another line).
TEST_ANNOTATION = re.compile(r"^\s*@(Test|ParameterizedTest|RepeatedTest)\b")

#: What a test emptied by hand is left with, and the closing lines that may come with it.
EMPTY_BODY = frozenset({"pass", "...", "return", "return;", "{}", "{ }"})
CLOSERS = frozenset({"}", "});", "})", "end"})

#: Network access added to code: HTTP clients, sockets, ``fetch``, shell downloads.
NETWORK = tuple(
    re.compile(p)
    for p in (
        r"\b(import|from)\s+(requests|httpx|aiohttp|urllib3|urllib\.request|http\.client|socket|websockets?)\b",
        r"\b(requests|httpx)\.(get|post|put|patch|delete|head|options|request|stream|Session|Client|AsyncClient)\b",
        r"\burlopen\s*\(",
        r"\bsocket\.(socket|create_connection)\s*\(",
        r"\baiohttp\.ClientSession\b",
        r"(?<![\w.])fetch\s*\(",
        r"\baxios\b",
        r"\bXMLHttpRequest\b",
        r"\bnew\s+(WebSocket|EventSource|Socket)\s*\(",
        r"""\b(require\s*\(|from\s+)\s*['"](node-fetch|axios|got|undici|https?|net)['"]""",
        r"\bhttps?\.(request|get)\s*\(",
        r"\bhttp\.(Get|Post|Head|PostForm|NewRequest\w*)\s*\(",
        r"\bnet\.Dial\w*\s*\(",
        r"\"net/http\"",
        r"\b(HttpClient|HttpURLConnection|OkHttpClient|RestTemplate|WebClient)\b",
        r"\bnew\s+URL\s*\([^)]*\)\s*\.\s*openConnection",
        r"(^|[\s;|&(])(curl|wget)\s",
    )
)


def first_match(patterns: tuple[re.Pattern[str], ...], line: str) -> str | None:
    """The text the first matching pattern found in ``line``."""
    for pattern in patterns:
        found = pattern.search(line)
        if found:
            return found.group(0)
    return None


def assertion_strength(line: str, python: bool) -> int | None:
    """A line's assertion strength (0, 1, 2), or ``None`` when it asserts nothing."""
    if python:
        found = line_assertion(line)
        if found is not None:
            return found.strength
    if not _ASSERTION.search(line):
        return None
    if _TRIVIAL.search(line):
        return 0
    return 1 if _WEAK.search(line) else 2


def declared_test(line: str) -> str | None:
    """The name of the test a line declares, if it declares one."""
    for pattern in TEST_DECLARATIONS:
        found = pattern.search(line)
        if found:
            return found.groups()[-1]
    return None
