"""How the Redis store lays the project-wide indexes into ``project:{name}:indexes`` fields.

Each name gets a field per kind, holding ``{path: [entries]}``, so ``find_definitions(name)``
and ``find_references(name)`` read one field (O(matches)) and replacing a file's contribution
touches only the names it had or has::

    sym:{name}     {path: [SymbolDef JSON]}
    ref:{name}     {path: [[line, column]]}     compact: a large project has ~1M references
    callee:{name}  {path: [CallEdge JSON]}
    caller:{name}  {path: [CallEdge JSON]}
    file:{path}    the FileIndexes the file contributed: what its next change removes
    symbols        names with a definition   } JSON lists, rewritten only when a name
    callees        names that are called     } appears or disappears
    hashes         {path: content hash}       (``file_hashes`` without reading contents)

Listings live in single fields because HSCAN over this hash would copy every value (Redis
< 7.4 filters MATCH after copying), which takes about a second on a large project.
Project indexes (``deps_graph``, ``stats``...) use their plain name as the field, so such
names may not contain ``:`` nor be one of the listing fields.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ipuaro.domain import FileIndexes

Entries = dict[str, list[Any]]
"""An index field's value: path -> that file's entries for one name."""

SYMBOLS_FIELD = "symbols"
CALLEES_FIELD = "callees"
HASHES_FIELD = "hashes"
LISTINGS = {SYMBOLS_FIELD: "sym:", CALLEES_FIELD: "callee:"}
"""Listing field -> the prefix of the per-name fields it lists."""

_PROJECT_INDEX_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_RESERVED = {SYMBOLS_FIELD, CALLEES_FIELD, HASHES_FIELD}


def check_project_index_name(name: str) -> None:
    if not _PROJECT_INDEX_NAME.match(name) or name in _RESERVED:
        raise ValueError(
            f"project index name {name!r} is not allowed: use letters, digits, '_', '.', '-' "
            f"and none of {sorted(_RESERVED)}"
        )


def owned(indexes: FileIndexes, path: str) -> FileIndexes:
    """Entries stored under ``path`` carry ``path`` (as the SQLite rows do): the batch key is
    what a later replace or delete of the file removes."""
    if (
        all(s.path == path for s in indexes.symbols)
        and all(r.path == path for r in indexes.references)
        and all(c.path == path for c in indexes.calls)
    ):
        return indexes
    return FileIndexes(
        symbols=[s.model_copy(update={"path": path}) for s in indexes.symbols],
        references=[r.model_copy(update={"path": path}) for r in indexes.references],
        calls=[c.model_copy(update={"path": path}) for c in indexes.calls],
        reference_table=indexes.reference_table,
    )


def name_fields(contributions: list[FileIndexes]) -> set[str]:
    """Every per-name field the given contributions appear in."""
    fields: set[str] = set()
    for fi in contributions:
        fields.update(f"sym:{s.name}" for s in fi.symbols)
        fields.update(f"ref:{r.name}" for r in fi.references)
        fields.update(f"ref:{name}" for name in fi.reference_table)
        fields.update(f"callee:{c.callee}" for c in fi.calls)
        fields.update(f"caller:{c.caller}" for c in fi.calls)
    return fields


@dataclass
class Merged:
    to_set: dict[str, str] = field(default_factory=dict)
    to_delete: list[str] = field(default_factory=list)
    appeared: set[str] = field(default_factory=set)
    """Per-name fields that did not exist and now do."""
    vanished: set[str] = field(default_factory=set)
    """Per-name fields that existed and are now gone."""

    def listing_changes(self, listing: str) -> tuple[set[str], set[str]]:
        """Names to add to and remove from a listing field."""
        prefix = LISTINGS[listing]
        cut = len(prefix)
        return (
            {f[cut:] for f in self.appeared if f.startswith(prefix)},
            {f[cut:] for f in self.vanished if f.startswith(prefix)},
        )


def merge(
    values: dict[str, Entries],
    existing: set[str],
    fresh: dict[str, FileIndexes],
    touched: set[str],
) -> Merged:
    """New field values once ``touched`` paths lose their old entries and ``fresh`` adds its.

    ``values`` holds the current value of every field either side mentions (``{}`` when
    absent); ``existing`` names the fields that are stored now."""
    for entries in values.values():
        # Walk the smaller side: a bulk batch touches thousands of paths, a field holds few.
        if len(entries) <= len(touched):
            gone = [path for path in entries if path in touched]
        else:
            gone = [path for path in touched if path in entries]
        for path in gone:
            del entries[path]
    for path, fi in fresh.items():
        for s in fi.symbols:
            values[f"sym:{s.name}"].setdefault(path, []).append(s.model_dump(by_alias=True))
        # References dominate (~1M on a large project): grouped per name, so the field
        # name is built once per name, not once per occurrence.
        for name, flat in fi.reference_groups():
            values["ref:" + name][path] = list(zip(flat[::2], flat[1::2], strict=True))
        for c in fi.calls:
            edge = c.model_dump(by_alias=True)
            values[f"callee:{c.callee}"].setdefault(path, []).append(edge)
            values[f"caller:{c.caller}"].setdefault(path, []).append(edge)
    merged = Merged()
    for name, entries in values.items():
        if entries:
            merged.to_set[name] = dumps(entries)
            if name not in existing:
                merged.appeared.add(name)
        elif name in existing:
            merged.to_delete.append(name)
            merged.vanished.add(name)
    merged.to_set.update({f"file:{path}": fi.to_json() for path, fi in fresh.items()})
    merged.to_delete += [f"file:{path}" for path in sorted(touched - fresh.keys())]
    return merged


_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""One encoder for every field: ``json.dumps`` with options builds a new one per call."""


def dumps(value: Any) -> str:
    return _ENCODER.encode(value)
