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
        data = item.encode("utf-8", "surrogatepass")
        self._ascii = self._ascii and len(data) == len(item)
        self._data += data
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
        raw = bytes.fromhex(item) if len(item) == self.width else b""
        if len(raw) * 2 != self.width or raw.hex() != item:
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
