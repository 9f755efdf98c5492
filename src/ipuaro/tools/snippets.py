"""Line text for search results: loads only the files of the results shown."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ipuaro.store.protocol import Store
from ipuaro.tools.limits import clip_line


def line_texts(store: Store, places: Iterable[tuple[str, int]]) -> dict[tuple[str, int], str]:
    wanted = list(places)
    files = store.get_files({path for path, _line in wanted})
    out: dict[tuple[str, int], str] = {}
    for path, line in wanted:
        data = files.get(path)
        if data is not None and 1 <= line <= len(data.lines):
            out[(path, line)] = clip_line(data.lines[line - 1].strip())
    return out


def close_symbols(store: Store, name: str, limit: int = 5) -> list[str]:
    """Indexed symbol names closest to ``name`` (case differences first)."""
    names = store.symbol_names()
    lowered = name.lower()
    same_case = [n for n in names if n.lower() == lowered and n != name]
    close = difflib.get_close_matches(name, names, n=limit, cutoff=0.75)
    ordered: list[str] = []
    for candidate in [*same_case, *close]:
        if candidate not in ordered:
            ordered.append(candidate)
    return ordered[:limit]
