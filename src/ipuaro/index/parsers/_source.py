"""One file's bytes and the helpers every extractor shares: node text, 1-based positions, and
the results collected while walking a tree.

Text is always sliced from the encoded source (``data[start:end]``), never read through
``Node.text``, which copies per call; columns are characters, not UTF-8 bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from tree_sitter import Node

from ipuaro.domain.files import (
    ClassInfo,
    ExportInfo,
    ExportKind,
    FunctionInfo,
    ImportInfo,
    TypeInfo,
)
from ipuaro.domain.indexes import SymbolDef, SymbolKind
from ipuaro.index.parsers._trusted import trusted

MethodKind = Literal["method", "getter", "setter", "constructor"]

MAX_DEPTH = 64
"""Deepest namespace/conditional/error nesting the declaration walkers follow."""

_NEWLINE = re.compile(b"\n")
SHORT_PARAM = 60
_SHORT_TYPE = 120


class Source:
    """The UTF-8 bytes tree-sitter parsed, with text and position helpers."""

    __slots__ = ("_ascii_lines", "_line_starts", "data", "is_ascii")

    def __init__(self, text: str) -> None:
        # A BOM is not code; a space keeps every character column where it was.
        if text.startswith("\ufeff"):
            text = " " + text[1:]
        self.data = text.encode("utf-8", "surrogatepass")
        self.is_ascii = len(self.data) == len(text)
        self._line_starts: list[int] | None = None
        self._ascii_lines: list[bool] | None = None

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def line_starts(self) -> list[int]:
        """Byte offset of each line's start: ``bisect_right(starts, byte)`` is the 1-based line."""
        if self._line_starts is None:
            starts = [0]
            starts += [match.end() for match in _NEWLINE.finditer(self.data)]
            self._line_starts = starts
        return self._line_starts

    def ascii_lines(self) -> list[bool]:
        """Per line: True when byte columns equal character columns."""
        if self._ascii_lines is None:
            self._ascii_lines = [line.isascii() for line in self.data.split(b"\n")]
        return self._ascii_lines


def start_line(node: Node) -> int:
    return node.start_point[0] + 1


def end_line(node: Node) -> int:
    """1-based last line holding the node's text (a node ending at column 0 ends a line early)."""
    row, column = node.end_point
    if column == 0 and row > node.start_point[0]:
        return row
    return row + 1


def shorten(text: str, limit: int = SHORT_PARAM) -> str:
    """Whitespace collapsed to single spaces, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def type_text(source: Source, annotation: Node | None) -> str | None:
    """A type annotation without its leading ``:`` / ``->``, whitespace collapsed."""
    if annotation is None:
        return None
    text = source.text(annotation).lstrip()
    if text.startswith(":"):
        text = text[1:]
    return shorten(text, _SHORT_TYPE) or None


@dataclass(slots=True)
class Scope:
    """A byte range whose calls are attributed to ``name`` (``f``, ``Class.method``, ``Class``)."""

    start: int
    end: int
    name: str


@dataclass(slots=True)
class PendingExport:
    """An export of a local name whose kind is known only once the whole file is read."""

    name: str
    local: str
    line: int
    kind: ExportKind | None = None


@dataclass(slots=True)
class Collected:
    """Everything an extractor finds in one file, turned into the FileAST and indexes later."""

    path: str
    imports: list[ImportInfo] = field(default_factory=list)
    exports: list[PendingExport] = field(default_factory=list)
    functions: list[FunctionInfo] = field(default_factory=list)
    classes: list[ClassInfo] = field(default_factory=list)
    types: list[TypeInfo] = field(default_factory=list)
    symbols: list[SymbolDef] = field(default_factory=list)
    scopes: list[Scope] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)

    def symbol(
        self,
        name: str,
        kind: SymbolKind,
        line: int,
        line_end: int | None = None,
        container: str | None = None,
    ) -> None:
        self.symbols.append(
            trusted(
                SymbolDef,
                name=name,
                path=self.path,
                line=line,
                kind=kind,
                line_end=line_end,
                container=container,
            )
        )

    def export(self, name: str, kind: ExportKind | None, line: int, local: str = "") -> None:
        """Record an export; ``kind=None`` means "whatever ``local`` is declared as"."""
        self.exports.append(PendingExport(name, local or name, line, kind))

    def resolved_exports(self) -> list[ExportInfo]:
        """Exports with kinds looked up among local declarations (``const`` when not found);
        every exported local declaration is marked ``is_exported``."""
        kinds: dict[str, ExportKind] = {}
        for symbol in self.symbols:
            if symbol.container is None and symbol.kind != "method":
                kinds.setdefault(symbol.name, _EXPORT_KIND.get(symbol.kind, "const"))
        exported = {pending.local for pending in self.exports}
        items: list[FunctionInfo | ClassInfo | TypeInfo] = [
            *self.functions,
            *self.classes,
            *self.types,
        ]
        for item in items:
            if item.name in exported:
                item.is_exported = True
        seen: set[tuple[str, str]] = set()
        result: list[ExportInfo] = []
        for pending in self.exports:
            kind = pending.kind or kinds.get(pending.local, "const")
            if (pending.name, kind) in seen:
                continue  # overload signatures, `export {a}` twice
            seen.add((pending.name, kind))
            result.append(trusted(ExportInfo, name=pending.name, type=kind, line=pending.line))
        return result


_EXPORT_KIND: dict[SymbolKind, ExportKind] = {
    "function": "function",
    "class": "class",
    "interface": "interface",
    "type": "type",
    "enum": "enum",
    "namespace": "namespace",
    "const": "const",
    "variable": "const",
}
