"""Read a suite file whose ``tasks:`` list is streamed one task at a time.

A 100,000-task suite written inline is about 20 MB of YAML; composed whole, its node tree (kept
so that errors can name lines) takes some 700 MiB. Here everything but the task list is composed
as usual, and the tasks are composed, checked and built one at a time each time they are read,
so memory stays flat however many there are (RELIABILITY A17). Errors are the same as for a
whole-file load: the C parser and the checks of ``bench.document`` are shared.

Tasks written as JSON objects (``  - {"id": "t1", ...}``, what a script writes) are read with
``json`` instead, three to four times faster than composing their nodes: the parser has already
checked the whole list as YAML, and a row is read this way only when JSON and bench's YAML
reading give the same data (``json_row``); otherwise the whole list is read as YAML. A list of
such rows one a line is not even parsed event by event: LibYAML parses the whole text in C, and
the rest of the suite is read from a copy with the list blanked out (``_json_block``).
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from typing import Any, cast

import yaml
from yaml.composer import Composer
from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bench.document import (
    MAX_DEPTH,
    MIB,
    Loader,
    UnreadableFile,
    YamlDocument,
    check_shape,
    interpolate_variables,
    load_yaml,
    read_text,
    reported,
)
from bench.vocabulary.errors import ConfigError, FieldPath

#: LibYAML's parser (None: PyYAML without LibYAML, where every list is read event by event).
_CParser: Any = getattr(import_module("yaml.cyaml") if yaml.__with_libyaml__ else None, "CParser", None)

TASKS = "tasks"
#: Line breaks besides "\n" (YAML 1.1 counts them): a text holding one is read event by event.
_BREAKS = re.compile("[\r\x85\u2028\u2029]")
#: A JSON escape of half a surrogate pair: JSON joins a pair into one character, YAML refuses it.
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse(_: Any) -> Any:
    raise ValueError("not YAML")  # NaN and Infinity are strings to YAML


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise ValueError("duplicate key")  # YAML refuses it, with its line
    return mapping


#: ``json.loads`` with these hooks, made once (``loads`` builds a decoder on every call given hooks).
_ROW_DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_constant=_refuse)


def json_row(text: str, substitute: bool) -> bool:
    """Whether a flow mapping's ``text``, already parsed as YAML, reads as the same data with
    ``json.loads``: an object, no duplicate key, no NaN or Infinity, no surrogate escape, not
    nested deeper than YAML allows, and no ``${NAME}`` when variables are substituted."""
    if (substitute and "${" in text) or _SURROGATE.search(text):
        return False
    if text.count("{") + text.count("[") > MAX_DEPTH - 3:
        return False  # counted loosely (inside strings too): such a row is read as YAML
    try:
        data = _ROW_DECODER.decode(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict)


class _Streamer(Composer, Loader):
    """PyYAML's Python composer over the C parser's events: composes one node when asked."""

    def __init__(self, path: Path, text: str) -> None:
        # Composer.__init__ takes no stream: start the C parser's side directly.
        Loader.__init__(self, text)  # type: ignore[call-arg]
        self.path = path
        self.text = text
        self.anchors: dict[str, Node] = {}

    def compose(self, parent: Node | None, index: Any) -> Node:
        """The next node; nesting too deep for Python's recursion is reported where it starts."""
        try:
            return cast(Node, self.compose_node(parent, index))
        except RecursionError:
            pass
        load_yaml(self.path, text=self.text)  # the C composer does not recurse: it names the place
        raise ConfigError(f"nested deeper than {MAX_DEPTH} levels", file=self.path)

    def open_root(self) -> MappingNode | None:
        """Consume the stream's start up to the root mapping's first key; None if not a mapping."""
        if not (self.check_event(StreamStartEvent)):
            return None
        self.get_event()
        if not self.check_event(DocumentStartEvent):
            return None
        self.get_event()
        if not self.check_event(MappingStartEvent):
            return None
        event = self.get_event()
        tag = event.tag if event.tag not in (None, "!") else self.resolve(MappingNode, None, event.implicit)
        return MappingNode(tag, [], event.start_mark, None, flow_style=event.flow_style)

    def skip_sequence(self, substitute: bool) -> array[int] | None:
        """Consume a whole sequence's events without composing it (its syntax is still checked).

        When every item is a flow mapping that ``json_row`` reads, the items' spans: start and
        end offsets in the text, 0-based line and column, four numbers an item; else None.
        """
        spans: array[int] | None = array("q")
        depth = 0
        start: Any = None  # the start mark of the item being read
        get_event = self.get_event
        while True:
            event = get_event()
            kind = type(event)
            if kind is ScalarEvent:  # most events: checked first
                if depth == 1:
                    spans = None  # a scalar as a task
            elif kind is SequenceStartEvent or kind is MappingStartEvent:
                if depth == 1 and spans is not None:
                    start = event.start_mark
                    if not (kind is MappingStartEvent and cast(MappingStartEvent, event).flow_style):
                        spans = None
                depth += 1
            elif kind is SequenceEndEvent or kind is MappingEndEvent:
                depth -= 1
                if depth == 0:
                    return spans
                if depth == 1 and spans is not None:
                    end: int = cast(Any, event.end_mark).index
                    if json_row(self.text[start.index : end], substitute):
                        spans.extend((start.index, end, start.line, start.column))
                    else:
                        spans = None
            elif depth == 1:
                spans = None  # an alias as a task


class StreamedTasks(YamlDocument):
    """The suite's ``tasks:`` list, composed one task at a time on each ``rows()``."""

    def __init__(self, suite: YamlDocument, text: str, interpolate: bool, spans: array[int] | None) -> None:
        super().__init__(suite.path, None, None)
        self.suite = suite
        self.text = text
        self.interpolate = interpolate
        #: Where each task is written when all are JSON objects (``_Streamer.skip_sequence``).
        self.spans = spans
        self.starts: list[tuple[int, int]] = []  # (line, column) of each task read so far
        self.current: tuple[int, Node | None] | None = None

    def mark(self, field: FieldPath) -> tuple[int, int] | None:
        if len(field) >= 2 and field[0] == TASKS and isinstance(field[1], int):
            index = field[1]
            if self.current is not None and self.current[0] == index:
                return YamlDocument(self.path, None, self._current_node()).mark(field[2:])
            if index < len(self.starts):
                return self.starts[index]
        return self.suite.mark(field)

    def line(self, field: FieldPath) -> int | None:
        # A JSON row on one line: every field of it is on that line (no node composed to ask).
        if len(field) >= 2 and field[0] == TASKS and self.current is not None and self.spans is not None:
            index, node = self.current
            if node is None and field[1] == index:
                start, end, line = self.spans[4 * index : 4 * index + 3]
                if self.text.find("\n", start, end) == -1:
                    return line + 1
        return super().line(field)

    def _current_node(self) -> Node | None:
        """The node of the task being built; a JSON row's is composed only when an error asks."""
        assert self.current is not None
        index, node = self.current
        if node is None and self.spans is not None:
            start, end, line, column = self.spans[4 * index : 4 * index + 4]
            reader = Loader("\n" * line + " " * column + self.text[start:end])  # the same marks
            try:
                node = reader.get_single_node()
            finally:
                reader.dispose()
            self.current = (index, node)
        return node

    def rows(self) -> Iterator[Any]:
        """Each task's data, in order; the task being built is kept for error positions."""
        self.starts = []
        if self.spans is not None:
            yield from self._json_rows(self.spans)
            return
        streamer = _Streamer(self.path, self.text)
        shape_text = "*" if "*" in self.text else ""  # check_shape only asks whether aliases occur
        substitute = self.interpolate and "${" in self.text
        try:
            with reported(self.path, self.text):
                streamer.open_root()
                while not streamer.check_event(MappingEndEvent):
                    key = streamer.compose(None, None)
                    if not (isinstance(key, ScalarNode) and key.value == TASKS):
                        streamer.compose(None, None)  # composed again for its anchors
                        continue
                    streamer.get_event()  # the sequence's start
                    while not streamer.check_event(SequenceEndEvent):
                        index = len(self.starts)
                        node = streamer.compose(None, index)
                        self.starts.append((node.start_mark.line + 1, node.start_mark.column + 1))
                        check_shape(node, shape_text, depth=3)
                        if substitute:
                            interpolate_variables(node, at=(TASKS, index))
                        self.current = (index, node)
                        yield streamer.construct_document(node)
                    return
        finally:
            self.current = None
            streamer.dispose()

    def _json_rows(self, spans: array[int]) -> Iterator[Any]:
        try:
            for index in range(len(spans) // 4):
                start, end, line, column = spans[4 * index : 4 * index + 4]
                self.starts.append((line + 1, column + 1))
                self.current = (index, None)
                yield json.loads(self.text[start:end])
        finally:
            self.current = None


class StreamedSuite(YamlDocument):
    """A suite document whose ``data['tasks']`` is an empty stand-in: ``tasks.rows()`` reads them."""

    def __init__(
        self, path: Path, data: Any, root: Node, text: str, interpolate: bool, spans: array[int] | None
    ) -> None:
        super().__init__(path, data, root)
        self.tasks = StreamedTasks(self, text, interpolate, spans)


def load_suite_yaml(path: Path, *, max_bytes: int = 256 * MIB, interpolate: bool = True) -> YamlDocument:
    """Load a suite file; a ``tasks:`` list is read lazily (a ``StreamedSuite``).

    Anything but a mapping at the top is loaded whole, so its errors stay those of ``load_yaml``.
    """
    try:
        text = read_text(path, max_bytes=max_bytes)
    except UnreadableFile as exc:
        raise ConfigError(str(exc), file=path) from None
    return _load(path, text, interpolate, text, None)


def _load(path: Path, text: str, interpolate: bool, parsed: str, block: array[int] | None) -> YamlDocument:
    """The suite in ``text``, its events read from ``parsed``: ``text`` itself, or ``text`` with a
    list of JSON rows (``_json_block``) blanked out, ``block`` being their spans."""
    streamer = _Streamer(path, parsed)
    substitute = interpolate and "${" in text
    try:
        with reported(path, text):
            root = streamer.open_root()
            streamed = False
            spans = None
            while root is not None and not streamer.check_event(MappingEndEvent):
                key = streamer.compose(root, None)
                is_tasks = isinstance(key, ScalarNode) and key.value == TASKS
                if is_tasks and streamer.check_event(SequenceStartEvent):
                    start = streamer.peek_event()
                    found = _json_block(text, start.start_mark, substitute) if block is None else None
                    if found is not None and _parses(text):  # the rows need no events: start again
                        return _load(path, text, interpolate, *found)
                    spans = streamer.skip_sequence(substitute)  # a blanked-out list: "[]"
                    spans = spans if block is None else block
                    value: Node = SequenceNode("tag:yaml.org,2002:seq", [], start.start_mark, start.end_mark)
                    streamed = True
                else:
                    value = streamer.compose(root, key)
                root.value.append((key, value))
            if root is None or not streamed:
                return load_yaml(path, text=text, interpolate=interpolate)
            streamer.get_event()  # the root mapping's end
            if not (streamer.check_event(DocumentEndEvent) and _single(streamer)):
                return load_yaml(path, text=text, interpolate=interpolate)  # reports the extra document
            check_shape(root, text)
            if substitute:
                interpolate_variables(root)
            data = streamer.construct_document(root)
    finally:
        streamer.dispose()
    return StreamedSuite(path, data, root, text, interpolate, spans)


def _parses(text: str) -> bool:
    """Whether LibYAML parses the whole of ``text`` (without making an event object for Python)."""
    if _CParser is None:
        return False
    parser = _CParser(text)
    try:
        parser.raw_parse()
    except yaml.YAMLError:
        return False
    finally:
        parser.dispose()
    return True


def _json_block(text: str, start: Any, substitute: bool) -> tuple[str, array[int]] | None:
    """A block list that starts at ``start`` (its first ``-``) and holds JSON rows, one a line
    (``    - {...}``, what a script writes), each read the same by ``json`` (``json_row``): the text
    with the list replaced by ``[]`` and spaces (every line and offset kept), and each row's span
    as ``_Streamer.skip_sequence`` gives it. None for any other list, or one that may go on past
    its rows (a line after them as indented as they are), or one in a text whose line breaks are
    not all ``\\n``. The caller checks that LibYAML parses the text: a row is then the
    flow mapping written on its line, and the list ends where its rows do."""
    column, first = start.column, start.index
    line_start = first - column
    if column == 0 or text[line_start:first] != " " * column or _BREAKS.search(text):
        return None  # "tasks:\n[]" would not parse; a list after another node on its line
    item = " " * column + "-"
    spans = array("q")
    position, line, end = line_start, start.line, line_start
    while text.startswith(item, position):
        end = text.find("\n", position)
        end = len(text) if end == -1 else end
        after_dash = position + column + 1
        row = text[after_dash:end].rstrip(" ")
        body = row.lstrip(" ")
        if len(body) == len(row) or not body.endswith("}") or not json_row(body, substitute):
            return None
        opening = after_dash + len(row) - len(body)
        spans.extend((opening, opening + len(body), line, opening - position))
        position, line = end + 1, line + 1
    if not spans:
        return None
    for rest in text[position:].split("\n"):
        content = rest.lstrip(" ")
        if content and not content.startswith("#"):
            if len(rest) - len(content) >= column:
                return None  # the list might go on: its items are read as usual
            break
    blank = "\n".join(" " * len(one) for one in text[first + 2 : end].split("\n"))
    return text[:first] + "[]" + blank + text[end:], spans


def _single(streamer: _Streamer) -> bool:
    streamer.get_event()
    return bool(streamer.check_event(StreamEndEvent))
