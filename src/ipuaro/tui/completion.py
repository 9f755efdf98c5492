"""Tab completion of project paths, from the index's path list, and of slash commands (pure).

Like a shell: the word before the cursor is completed one folder at a time (``src/a`` →
``src/auth/``), to the longest common prefix when several paths match. When no path starts with
the word, a path whose file name or any folder starts with it is offered instead (``login`` →
``src/auth/login.ts``), so a user who remembers only the file name still gets there.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

MAX_CANDIDATES = 12


@dataclass(frozen=True)
class Completion:
    replacement: str
    """The word's new text (equal to the word when nothing could be added)."""
    candidates: tuple[str, ...] = ()
    """What still matches, shown under the input when there is more than one."""
    more: int = 0
    """Candidates not listed (beyond :data:`MAX_CANDIDATES`)."""


def word_before(text: str, cursor: int) -> tuple[int, str]:
    """Start offset and text of the word that ends at ``cursor`` (after whitespace, ``@``,
    a quote or an opening bracket)."""
    start = cursor
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "@\"'`([{":
        start -= 1
    return start, text[start:cursor]


def _next_step(path: str, word: str) -> str:
    """``path`` cut after the first folder separator past ``word``."""
    cut = path.find("/", len(word))
    return path if cut < 0 else path[: cut + 1]


def complete(word: str, paths: Iterable[str]) -> Completion:
    if not word:
        return Completion(word)
    every = list(paths)
    steps = sorted({_next_step(p, word) for p in every if p.startswith(word)})
    if not steps:
        lowered = word.lower()
        steps = sorted(
            p for p in every if any(part.lower().startswith(lowered) for part in p.split("/"))
        )
        if not steps:
            return Completion(word)
        if len(steps) == 1:
            return Completion(steps[0])
        return Completion(word, tuple(steps[:MAX_CANDIDATES]), max(0, len(steps) - MAX_CANDIDATES))
    if len(steps) == 1:
        return Completion(steps[0])
    # Character prefix on purpose: a shell completes partial names, not whole folders.
    common = os.path.commonprefix(steps)  # noqa: RUF071
    shown = tuple(steps[:MAX_CANDIDATES])
    return Completion(max(common, word, key=len), shown, max(0, len(steps) - MAX_CANDIDATES))


def complete_command(word: str, names: Iterable[str]) -> Completion:
    """``/rev`` → ``/review `` when one command starts so; else the common prefix and the
    candidates (built-ins and custom commands alike)."""
    matches = sorted(f"/{name}" for name in names if f"/{name}".startswith(word))
    if not matches:
        return Completion(word)
    if len(matches) == 1:
        return Completion(matches[0] + " ")
    common = os.path.commonprefix(matches)  # noqa: RUF071
    shown = tuple(matches[:MAX_CANDIDATES])
    return Completion(max(common, word, key=len), shown, max(0, len(matches) - MAX_CANDIDATES))
