"""↑/↓ through what the user typed before, shell style (pure).

Moving up from a fresh line keeps what was being typed as a draft; moving down past the newest
entry gives it back. Entries come from the store's per-session input history.
"""

from __future__ import annotations

from collections.abc import Iterable


class InputHistory:
    def __init__(self, entries: Iterable[str] = ()) -> None:
        self._entries: list[str] = []
        for entry in entries:
            self.add(entry)
        self._position: int | None = None
        """Index into ``_entries`` being shown, or None on the draft line."""
        self._draft = ""

    @property
    def entries(self) -> list[str]:
        return list(self._entries)

    def add(self, text: str) -> None:
        """Remember ``text`` (consecutive duplicates and blank lines are not repeated)."""
        if text.strip() and (not self._entries or self._entries[-1] != text):
            self._entries.append(text)
        self.reset()

    def reset(self) -> None:
        self._position = None
        self._draft = ""

    def previous(self, current: str) -> str | None:
        """The older entry, or None at the oldest (or with no history)."""
        if not self._entries:
            return None
        if self._position is None:
            self._draft = current
            self._position = len(self._entries) - 1
        elif self._position == 0:
            return None
        else:
            self._position -= 1
        return self._entries[self._position]

    def next(self) -> str | None:
        """The newer entry, the draft past the newest one, or None when already on the draft."""
        if self._position is None:
            return None
        if self._position >= len(self._entries) - 1:
            self._position = None
            return self._draft
        self._position += 1
        return self._entries[self._position]
