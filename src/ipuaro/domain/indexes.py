"""Project-wide index entries, stored per contributing file so one file's change updates them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pydantic import Field

from ipuaro.domain.base import DomainModel

SymbolKind = Literal[
    "function", "class", "method", "interface", "type", "enum", "namespace", "const", "variable"
]


class SymbolDef(DomainModel):
    """One definition of a name: ``find_definition`` answers from these."""

    name: str
    path: str
    line: int
    kind: SymbolKind
    line_end: int | None = None
    container: str | None = None
    """Enclosing class for methods."""


class Reference(DomainModel):
    """One identifier occurrence taken from the syntax tree (not a regex)."""

    name: str
    path: str
    line: int
    column: int
    """1-based column of the identifier's first character."""


class CallEdge(DomainModel):
    """``caller`` (qualified ``Class.method`` or function name, ``<module>`` at top level) calls
    ``callee`` at ``line`` of ``path``; ``resolved`` is the file defining the callee when the import
    graph tells."""

    path: str
    caller: str
    callee: str
    line: int
    resolved: str | None = None


ReferenceTable = dict[str, list[int]]
"""Identifier -> its positions in one file, flat: ``[line, column, line, column, ...]``."""


class FileIndexes(DomainModel):
    """What one file contributes to the project-wide indexes.

    References come in two forms, both counted as the file's references: ``references``
    (models, what the stores return) and ``reference_table`` (the parsers' compact form: a large
    project has about a million references, and building a model for each costs as much as
    parsing). Stores accept either and read back ``references`` in document order.
    """

    symbols: list[SymbolDef] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    calls: list[CallEdge] = Field(default_factory=list)
    reference_table: ReferenceTable = Field(default_factory=dict)

    def reference_count(self) -> int:
        return len(self.references) + sum(len(p) for p in self.reference_table.values()) // 2

    def reference_groups(self) -> Iterator[tuple[str, list[int]]]:
        """``(name, [line, column, ...])`` once per name, positions in document order."""
        if not self.references:
            yield from self.reference_table.items()
            return
        grouped: dict[str, list[tuple[int, int]]] = {}
        for reference in self.references:
            grouped.setdefault(reference.name, []).append((reference.line, reference.column))
        for name, positions in self.reference_table.items():
            grouped.setdefault(name, []).extend(zip(positions[::2], positions[1::2], strict=True))
        for name, pairs in grouped.items():
            yield name, [number for pair in sorted(pairs) for number in pair]

    def all_references(self, path: str) -> list[Reference]:
        """Both forms as models carrying ``path``; with a table, in document order."""
        found = [
            r if r.path == path else r.model_copy(update={"path": path}) for r in self.references
        ]
        if not self.reference_table:
            return found
        for name, positions in self.reference_table.items():
            found += [
                Reference(name=name, path=path, line=line, column=column)
                for line, column in zip(positions[::2], positions[1::2], strict=True)
            ]
        found.sort(key=lambda r: (r.line, r.column))
        return found
