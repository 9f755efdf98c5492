"""Values no configuration key can use, refused where they are read so that nothing downstream
meets them: nesting deeper than any key, a number that is not finite, text with a lone UTF-16
surrogate (``"\\ud800"`` parses as JSON but can never be encoded to send to a server or write
to a file).

:func:`check_values` returns one line naming the source, the key and what to do, or None.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["MAX_DEPTH", "check_values", "shown"]

MAX_DEPTH = 24
"""The schema's deepest key (a hook's argv item) sits at depth 6; far more is not a config."""


def check_values(value: Any, source: str) -> str | None:
    """The first unusable value in ``value`` (parsed JSON, or values built from variables and
    flags), described; None when every value is usable."""
    return _check(value, (), 0, source)


def _check(value: Any, path: tuple[str, ...], depth: int, source: str) -> str | None:
    where = ".".join(path) or "the top level"
    if depth > MAX_DEPTH:
        start = ".".join(path[:3]) or "the top level"
        return (
            f"{source}: {start}…: nested more than {MAX_DEPTH} levels deep; no configuration "
            "key is, fix the file"
        )
    if isinstance(value, str):
        if not _encodable(value):
            return (
                f"{source}: {where}: the text has an invalid character (a lone UTF-16 "
                f"surrogate) in {shown(value)}; write it as plain UTF-8"
            )
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{source}: {where}: {value} is not a usable number; write a finite number"
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and not _encodable(key):
                return (
                    f"{source}: {where}: key {shown(key)} has an invalid character (a lone "
                    "UTF-16 surrogate); write it as plain UTF-8"
                )
            problem = _check(item, (*path, str(key)), depth + 1, source)
            if problem is not None:
                return problem
    elif isinstance(value, list):
        for index, item in enumerate(value):
            indexed = (*path[:-1], f"{path[-1]}[{index}]") if path else (f"[{index}]",)
            problem = _check(item, indexed, depth + 1, source)
            if problem is not None:
                return problem
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(text: str, limit: int = 40) -> str:
    """``text`` quoted, short, and printable whatever it holds (surrogates escaped)."""
    safe = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return repr(safe if len(safe) <= limit else safe[: limit - 1] + "…")
