"""Read a suite file whose ``tasks:`` list is streamed one task at a time.

A 100,000-task suite written inline is about 20 MB of YAML; composed whole, its node tree (kept
so that errors can name lines) takes some 700 MiB. Here everything but the task list is composed
as usual, and the tasks are composed, checked and built one at a time each time they are read,
so memory stays flat however many there are (RELIABILITY A17). Errors are the same as for a
whole-file load: the C parser and the checks of ``bench.document`` are shared.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from yaml.composer import Composer
from yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
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

TASKS = "tasks"


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

    def skip_sequence(self) -> None:
        """Consume a whole sequence's events without composing it (its syntax is still checked)."""
        depth = 0
        while True:
            event = self.get_event()
            if isinstance(event, (SequenceStartEvent, MappingStartEvent)):
                depth += 1
            elif isinstance(event, (SequenceEndEvent, MappingEndEvent)):
                depth -= 1
                if depth == 0:
                    return


class StreamedTasks(YamlDocument):
    """The suite's ``tasks:`` list, composed one task at a time on each ``rows()``."""

    def __init__(self, suite: YamlDocument, text: str, interpolate: bool) -> None:
        super().__init__(suite.path, None, None)
        self.suite = suite
        self.text = text
        self.interpolate = interpolate
        self.starts: list[tuple[int, int]] = []  # (line, column) of each task read so far
        self.current: tuple[int, Node] | None = None

    def mark(self, field: FieldPath) -> tuple[int, int] | None:
        if len(field) >= 2 and field[0] == TASKS and isinstance(field[1], int):
            index = field[1]
            if self.current is not None and self.current[0] == index:
                return YamlDocument(self.path, None, self.current[1]).mark(field[2:])
            if index < len(self.starts):
                return self.starts[index]
        return self.suite.mark(field)

    def rows(self) -> Iterator[Any]:
        """Each task's data, in order; the task being built is kept for error positions."""
        self.starts = []
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


class StreamedSuite(YamlDocument):
    """A suite document whose ``data['tasks']`` is an empty stand-in: ``tasks.rows()`` reads them."""

    def __init__(self, path: Path, data: Any, root: Node, text: str, interpolate: bool) -> None:
        super().__init__(path, data, root)
        self.tasks = StreamedTasks(self, text, interpolate)


def load_suite_yaml(path: Path, *, max_bytes: int = 256 * MIB, interpolate: bool = True) -> YamlDocument:
    """Load a suite file; a ``tasks:`` list is read lazily (a ``StreamedSuite``).

    Anything but a mapping at the top is loaded whole, so its errors stay those of ``load_yaml``.
    """
    try:
        text = read_text(path, max_bytes=max_bytes)
    except UnreadableFile as exc:
        raise ConfigError(str(exc), file=path) from None
    streamer = _Streamer(path, text)
    try:
        with reported(path, text):
            root = streamer.open_root()
            streamed = False
            while root is not None and not streamer.check_event(MappingEndEvent):
                key = streamer.compose(root, None)
                is_tasks = isinstance(key, ScalarNode) and key.value == TASKS
                if is_tasks and streamer.check_event(SequenceStartEvent):
                    start = streamer.peek_event()
                    streamer.skip_sequence()
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
            if interpolate and "${" in text:
                interpolate_variables(root)
            data = streamer.construct_document(root)
    finally:
        streamer.dispose()
    return StreamedSuite(path, data, root, text, interpolate)


def _single(streamer: _Streamer) -> bool:
    streamer.get_event()
    return bool(streamer.check_event(StreamEndEvent))
