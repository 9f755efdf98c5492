"""Project-wide index entries, stored per contributing file so one file's change updates them."""

from __future__ import annotations

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


class FileIndexes(DomainModel):
    """What one file contributes to the project-wide indexes."""

    symbols: list[SymbolDef] = Field(default_factory=list)
    references: list[Reference] = Field(default_factory=list)
    calls: list[CallEdge] = Field(default_factory=list)
