"""Compact sequences of strings for what a plan holds per run (keys, digests).

A Python ``str`` costs about 50 bytes before its text, plus 8 for the list that holds it: at a
million runs the keys and digests alone were about 130 MiB. These hold the text in one buffer.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload


class _Column(Sequence[str]):
    """A read-mostly sequence of strings (append only) equal to any sequence with the same items."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, _Column)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self)!r})"


class TextColumn(_Column):
    """Strings as one UTF-8 buffer and their end offsets: about ``len + 8`` bytes each."""

    def __init__(self, items: Iterable[str] = ()) -> None:
        self._data = bytearray()
        self._ends = array("Q")
        self._ascii = True
        for item in items:
            self.append(item)

    def append(self, item: str) -> None:
        # surrogatepass: an id read from JSON may hold a lone surrogate; it comes back unchanged.
        if item.isascii():
            self._data += item.encode()
        else:
            self._ascii = False
            self._data += item.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._data))

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self._ends):
            raise IndexError(index)
        start = self._ends[index - 1] if index else 0
        return self._data[start : self._ends[index]].decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        if not self._ascii:
            return (self[i] for i in range(len(self)))
        text = self._data.decode("ascii")  # one byte a character: offsets are the same
        return _slices(text, self._ends)


def _slices(text: str, ends: array[int]) -> Iterator[str]:
    start = 0
    for end in ends:
        yield text[start:end]
        start = end


class HexColumn(_Column):
    """Lowercase hex digests of one width, held as their bytes (8 bytes for bench's 16-digit
    digests); a digest of another form is refused with ValueError."""

    def __init__(self, items: Iterable[str] = (), width: int = 16) -> None:
        self.width = width
        self._data = bytearray()
        for item in items:
            self.append(item)

    def append(self, item: str) -> None:
        try:
            raw = bytes.fromhex(item)  # also takes upper case and spaces: checked below
        except ValueError:
            raw = b""
        if len(raw) * 2 != self.width or not (item.islower() or item.isdigit()):
            raise ValueError(f"not a {self.width}-digit lowercase hex digest: {item!r}")
        self._data += raw

    def __len__(self) -> int:
        return len(self._data) * 2 // self.width

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        size = self.width // 2
        return self._data[index * size : (index + 1) * size].hex()

    def __iter__(self) -> Iterator[str]:
        size = self.width // 2
        data = self._data
        return (data[i : i + size].hex() for i in range(0, len(data), size))


def hex_or_text(items: Sequence[str]) -> Sequence[str]:
    """``items`` as a ``HexColumn`` when every one is a 16-digit lowercase hex digest, else as a
    ``TextColumn`` (for digests from elsewhere)."""
    try:
        return HexColumn(items)
    except ValueError:
        return TextColumn(items)


class FirstSeen:
    """Where each task id was first seen (its row), for the validating load's duplicate check.

    An open-addressing table in arrays over a ``TextColumn`` of the ids: about 40 bytes an id,
    where a ``dict`` of ``str`` to ``int`` held about 120 (the id, the row number, the entry).
    """

    def __init__(self) -> None:
        self._ids = TextColumn()
        self._rows = array("q")
        self._hashes = array("q")
        self._slots = array("q", [0]) * 8  # entry number + 1; 0: empty
        self._mask = 7

    def setdefault(self, key: str, row: int) -> int:
        """The row ``key`` was first seen at; ``row`` (now recorded) when it is new."""
        hashed = hash(key)
        slots, hashes, mask = self._slots, self._hashes, self._mask
        at = hashed & mask
        while entry := slots[at]:
            if hashes[entry - 1] == hashed and self._ids[entry - 1] == key:
                return self._rows[entry - 1]
            at = (at + 1) & mask
        self._ids.append(key)
        self._rows.append(row)
        hashes.append(hashed)
        slots[at] = len(hashes)
        if len(hashes) * 2 > len(slots):
            self._grow()
        return row

    def __len__(self) -> int:
        return len(self._rows)

    def _grow(self) -> None:
        size = len(self._slots) * 2
        slots, mask = array("q", [0]) * size, size - 1
        for entry, hashed in enumerate(self._hashes, start=1):  # ids are distinct: no comparing
            at = hashed & mask
            while slots[at]:
                at = (at + 1) & mask
            slots[at] = entry
        self._slots, self._mask = slots, mask
