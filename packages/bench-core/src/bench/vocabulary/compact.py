"""Compact strings for what a run holds per task: keys, digests, and tables keyed by them.

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
        return self._item(index)

    def _item(self, index: int) -> str:
        """The item at ``index``, which is in range."""
        raise NotImplementedError


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

    def _item(self, index: int) -> str:
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

    def _item(self, index: int) -> str:
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


class KeyTable:
    """A mapping of ``str`` to ``int`` (a task id to its row, a result key to its line) in arrays:
    an open-addressing table over a ``TextColumn`` of the keys, about 40 bytes a key where a
    ``dict`` held about 120 (the key, the number, the entry). Keys removed by ``pop`` stay in the
    buffers; ``items`` skips them."""

    def __init__(self) -> None:
        self._keys = TextColumn()
        self._values = array("q")
        self._hashes = array("q")
        self._gone = bytearray()  # 1: removed by pop
        self._live = 0
        self._slots = array("q", [0]) * 8  # entry number + 1; 0: empty
        self._mask = 7

    def _find(self, key: str, hashed: int) -> tuple[int, int]:
        """The slot that holds ``key`` (or the empty one where it would go) and its entry + 1."""
        slots, hashes, mask = self._slots, self._hashes, self._mask
        at = hashed & mask
        while entry := slots[at]:
            if hashes[entry - 1] == hashed and self._keys[entry - 1] == key:
                return at, entry
            at = (at + 1) & mask
        return at, 0

    def setdefault(self, key: str, value: int) -> int:
        """The value of ``key``; ``value`` (now recorded) when it has none."""
        hashed = hash(key)
        at, entry = self._find(key, hashed)
        if entry and not self._gone[entry - 1]:
            return self._values[entry - 1]
        self._put(key, hashed, at, entry, value)
        return value

    def __setitem__(self, key: str, value: int) -> None:
        hashed = hash(key)
        at, entry = self._find(key, hashed)
        self._put(key, hashed, at, entry, value)

    def _put(self, key: str, hashed: int, at: int, entry: int, value: int) -> None:
        if entry:
            self._values[entry - 1] = value
            self._live += self._gone[entry - 1]
            self._gone[entry - 1] = 0
            return
        self._keys.append(key)
        self._values.append(value)
        self._hashes.append(hashed)
        self._gone.append(0)
        self._live += 1
        self._slots[at] = len(self._hashes)
        if len(self._hashes) * 2 > len(self._slots):
            self._grow()

    def get(self, key: str) -> int | None:
        _, entry = self._find(key, hash(key))
        return self._values[entry - 1] if entry and not self._gone[entry - 1] else None

    def pop(self, key: str) -> int | None:
        """The value of ``key``, which is then removed; None when it has none."""
        _, entry = self._find(key, hash(key))
        if not entry or self._gone[entry - 1]:
            return None
        self._gone[entry - 1] = 1
        self._live -= 1
        return self._values[entry - 1]

    def items(self) -> Iterator[tuple[str, int]]:
        """The keys and values, in the order the keys were first set."""
        return (
            (key, value)
            for key, value, gone in zip(self._keys, self._values, self._gone, strict=True)
            if not gone
        )

    def __len__(self) -> int:
        return self._live

    def _grow(self) -> None:
        size = len(self._slots) * 2
        slots, mask = array("q", [0]) * size, size - 1
        for entry, hashed in enumerate(self._hashes, start=1):  # keys are distinct: no comparing
            at = hashed & mask
            while slots[at]:
                at = (at + 1) & mask
            slots[at] = entry
        self._slots, self._mask = slots, mask
