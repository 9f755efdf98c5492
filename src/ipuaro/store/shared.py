"""Small pieces both store backends use: value encoding, folder matching, the rebuild hint."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from ipuaro.store.protocol import StoreError

REBUILD_HINT = "run `ipuaro index --rebuild` to recreate the index"


def encode_json(value: Any, what: str) -> str:
    """JSON text for a project index or config value (pydantic models and sets allowed)."""

    def default(obj: Any) -> Any:
        if isinstance(obj, BaseModel):
            return obj.model_dump(mode="json", by_alias=True)
        if isinstance(obj, set | frozenset):
            return sorted(obj)
        raise TypeError(f"{type(obj).__name__} is not JSON-serialisable")

    try:
        return json.dumps(value, default=default, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise StoreError(f"cannot store {what}: {err}") from err


def folder_of(prefix: str | None) -> str | None:
    """The folder or file a ``path`` filter names; None when it means the whole project."""
    if prefix is None:
        return None
    folder = prefix.strip("/")
    return None if folder in ("", ".") else folder


def in_folder(path: str, prefix: str | None) -> bool:
    """``path`` is the file ``prefix`` or lies under the folder ``prefix``."""
    folder = folder_of(prefix)
    return folder is None or path == folder or path.startswith(folder + "/")


def path_range(folder: str) -> tuple[str, str, str]:
    """``(exact, low, high)`` for SQL: a path equals ``exact`` or lies in ``[low, high)``.

    ``'0'`` is the character after ``'/'``, so ``high`` bounds every ``folder/...`` path."""
    return folder, f"{folder}/", f"{folder}0"


def first_line(err: Exception) -> str:
    text = str(err)
    return text.splitlines()[0] if text else type(err).__name__


RawRecords = Callable[[list[str]], Iterable[tuple[str, str | None]]]
"""Reads ``(path, stored JSON or None)`` for the given paths (every stored path may come)."""


def files_containing(
    paths: Sequence[str], text: str, case_sensitive: bool, records: RawRecords
) -> list[str]:
    """``Store.files_containing`` over any backend's raw records (see :func:`raw_text_search`)."""
    search = raw_text_search(text, case_sensitive)
    if search is None:
        return list(paths)
    wanted = list(dict.fromkeys(paths))
    chosen = set(wanted)
    found = {path for path, raw in records(wanted) if path in chosen and raw and search(raw)}
    return [path for path in paths if path in found]


def raw_text_search(text: str, case_sensitive: bool) -> Callable[[str], bool] | None:
    """A test over a stored FileData JSON record that is true wherever the decoded lines hold
    ``text`` (as ``re.escape(text)`` with ``re.IGNORECASE`` unless ``case_sensitive`` finds it),
    or None when the record could hide it: JSON escapes quotes, backslashes and control
    characters, and a writer may escape non-ASCII as ``\\uXXXX``. Printable ASCII is written as
    it is, so the test misses nothing; it may also be true for field names or text across
    lines (callers check the files it keeps)."""
    if not text or not all(" " <= c <= "~" for c in text) or '"' in text or "\\" in text:
        return None
    if case_sensitive:
        return lambda raw: text in raw
    needle = text.lower()
    # re.IGNORECASE also lets İ and ı match i, ſ match s (and K match k, which lower() does too).
    odd = [c for letter, chars in _FOLDS.items() if letter in needle for c in chars]
    pattern = re.compile(re.escape(text), re.IGNORECASE)

    def search(raw: str) -> bool:
        if needle in raw.lower():
            return True
        return any(c in raw for c in odd) and pattern.search(raw) is not None

    return search


_FOLDS = {"i": ("\u0130", "\u0131"), "s": ("\u017f",)}
