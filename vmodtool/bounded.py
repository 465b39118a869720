"""A cache that a long-running process (a batch worker replaying game after
game) cannot let grow without bound: :class:`BoundedCache`.  No game or
format knowledge."""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["BoundedCache"]

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(dict[K, V], Generic[K, V]):
    """A dict emptied when it holds ``entries`` keys or more than ``chars``
    characters of text in its keys (a piece's type or state runs to tens of
    kilobytes: a count alone would let a few thousand of them stay held
    after their games).  Fill it with :meth:`remember`."""

    def __init__(self, entries: int, chars: int = 32 * 1024 * 1024) -> None:
        super().__init__()
        self.entries = entries
        self.max_chars = chars
        #: characters of the keys held (as :meth:`remember` was told)
        self.chars = 0

    def remember(self, key: K, value: V, size: int) -> V:
        """Keep ``value`` under ``key``, whose text is ``size`` characters
        (the cache emptied first when full); returns ``value``."""
        if len(self) >= self.entries or self.chars > self.max_chars:
            self.clear()
        self[key] = value
        self.chars += size
        return value

    def clear(self) -> None:
        super().clear()
        self.chars = 0
