"""TypeScript syntax newer than tree-sitter-typescript 0.23.2, made parseable without moving a byte.

The grammar misses some syntax TypeScript accepts, and error recovery then swallows the
declarations that follow: variance annotations on type parameters (``interface Cache<in out K,
out E>``, TS 4.7), ``accessor`` after another modifier (``static accessor x``, TS 4.9),
``export type * from`` (TS 5.0), an escaped backtick in a template literal type, a type
``import("./m").Name<T>`` (generated ``.d.ts``), and a call signature starting a line with type
parameters after a member ending without ``;`` (``=> R\n  <A>(a: A): B`` read as ``R<A>...``).
None of these changes what the index records, so each is overwritten before parsing (with
spaces, or the ``;`` TypeScript infers at the line break): every byte offset, line and column
stays where it was, and node text is still sliced from the original source (``<in out K>``
reads as written).

A mask is kept only where the tree parsed from the masked bytes confirms it: the name after it
must then be what the construct names (a type parameter, a class field, a call signature…), and
an inserted ``;`` must be one the grammar takes. Look-alikes in strings, comments or
``for (k in o)`` are left as they are. Files that parse cleanly are never scanned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import tree_sitter

# `<` or `,` opening a type parameter, then the modifiers, then the parameter's name and what
# may follow a type parameter name (`,` `>` `=` `extends`).
_VARIANCE: Final = re.compile(
    rb"(?<=[<,])\s*(?P<mask>(?:in\s+out|in|out)\s+)(?P<name>[A-Za-z_$][\w$]*)"
    rb"(?=\s*(?:[,>=]|extends\b))"
)
# `accessor` written after another modifier or decorator, before a field name.
_ACCESSOR: Final = re.compile(
    rb"(?<=[\s)])(?P<mask>accessor\s+)(?P<name>#?[A-Za-z_$][\w$]*|\[|'|\")"
)
# A call or construct signature on its own line starting with type parameters, after a member
# that did not end with `;` or `,`: the grammar reads `=> R\n  <A>(x: A): B` as the generic type
# `R<A>` continued (TypeScript ends the member at the line break). The blank before `<` becomes
# the `;` TypeScript infers.
_SIGNATURE_LINE: Final = re.compile(rb"\n[ \t]*(?P<mask>[ \t])(?P<name><)")
# `export type * from` (TS 5.0): the `type` goes.
_EXPORT_TYPE_STAR: Final = re.compile(rb"\bexport\s+(?P<mask>type\s+)(?P<name>\*)")
# An escaped backtick in a template literal type (`\`` inside `...${T}...`): the grammar ends
# the type there. The escape is blanked (the type's text is not indexed).
_ESCAPED_BACKTICK: Final = re.compile(rb"(?P<name>(?P<mask>\\`))")
# `import("./m").Name<Args>` as a type (generated .d.ts): the grammar reads the import as an
# expression, which cannot take type arguments. The `import("./m").` qualifier is blanked.
_IMPORT_TYPE: Final = re.compile(
    rb"(?P<mask>\bimport\s*\(\s*(?:\"[^\"\n]*\"|'[^'\n]*')\s*\)\s*\.)"
    rb"(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?=\s*<)"
)
# Cheap substring tests before any regex runs (one of them must be in the file).
_MARKERS: Final = (
    *(b"in" + blank for blank in (b" ", b"\t", b"\n")),
    *(b"out" + blank for blank in (b" ", b"\t", b"\n")),
    b"accessor",
    b" <",
    b"\t<",
    b"type *",
    b"\\`",
    b"import(",
)


@dataclass(frozen=True, slots=True)
class _Candidate:
    start: int
    end: int
    name: int
    """Byte offset of the name the modifier belongs to."""
    parents: frozenset[str]
    """Node types the name's parent must have in the masked tree for the mask to be right."""
    fill: int = 0x20
    """The byte written over the modifier (a space; ``;`` for an inferred separator)."""


_TYPE_PARAMETER: Final = frozenset({"type_parameter"})
_FIELD: Final = frozenset({"public_field_definition", "computed_property_name"})
_SIGNATURE: Final = frozenset({"call_signature", "construct_signature"})
_EXPORT: Final = frozenset({"export_statement", "namespace_export"})
_GENERIC_TYPE: Final = frozenset({"generic_type", "nested_type_identifier"})
_TEMPLATE_TYPE: Final = frozenset({"template_literal_type"})


def parse(parser: tree_sitter.Parser, data: bytes) -> tree_sitter.Tree:
    """Parse ``data``; when the grammar fails and newer modifiers are present, parse again with
    those modifiers blanked (offsets unchanged) and keep the masks the new tree confirms."""
    tree = parser.parse(data)
    if not tree.root_node.has_error or not any(marker in data for marker in _MARKERS):
        return tree
    candidates = _candidates(data)
    if not candidates:
        return tree
    masked_tree = parser.parse(_masked(data, candidates))
    confirmed = [c for c in candidates if _confirmed(masked_tree.root_node, c)]
    if not confirmed:
        return tree
    if len(confirmed) < len(candidates):
        masked_tree = parser.parse(_masked(data, confirmed))
    return masked_tree


def _candidates(data: bytes) -> list[_Candidate]:
    found = [
        _Candidate(m.start("mask"), m.end("mask"), m.start("name"), _TYPE_PARAMETER)
        for m in _VARIANCE.finditer(data)
    ]
    if b"accessor" in data:
        found += (
            _Candidate(m.start("mask"), m.end("mask"), m.start("name"), _FIELD)
            for m in _ACCESSOR.finditer(data)
        )
    found += (
        _Candidate(m.start("mask"), m.end("mask"), m.start("name"), _SIGNATURE, ord(";"))
        for m in _SIGNATURE_LINE.finditer(data)
        if _unseparated(data, m.start())
    )
    if b"type" in data:
        found += (
            _Candidate(m.start("mask"), m.end("mask"), m.start("name"), _EXPORT)
            for m in _EXPORT_TYPE_STAR.finditer(data)
        )
    if b"import" in data:
        found += (
            _Candidate(m.start("mask"), m.end("mask"), m.start("name"), _GENERIC_TYPE)
            for m in _IMPORT_TYPE.finditer(data)
        )
    if b"\\`" in data:
        found += (
            _Candidate(m.start("mask"), m.end("mask"), m.start("name"), _TEMPLATE_TYPE)
            for m in _ESCAPED_BACKTICK.finditer(data)
        )
    return found


_COMMENT_LINE: Final = re.compile(rb"^\s*(?://|/?\*)")


def _unseparated(data: bytes, line_end: int) -> bool:
    """Whether the last code before ``line_end`` (comments and blank lines skipped) leaves a
    type member open: not ``;`` ``,`` ``{`` and not a line that is all comment."""
    end = line_end
    while end > 0:
        start = data.rfind(b"\n", 0, end) + 1
        line = data[start:end].rstrip()
        end = start - 1
        if not line or _COMMENT_LINE.match(line):
            continue  # jsdoc body lines, `//` lines, the `/**` opener
        if line.endswith(b"*/"):
            opener = line.rfind(b"/*")
            if opener < 0:
                continue  # the closing line of a block comment
            line = line[:opener].rstrip()
            if not line:
                continue
        return line[-1:] not in (b";", b",", b"{")
    return False


def _masked(data: bytes, candidates: list[_Candidate]) -> bytes:
    buffer = bytearray(data)
    for candidate in candidates:
        # whitespace inside the modifier (a newline between `in` and `out`) stays as written
        for offset in range(candidate.start, candidate.end):
            if candidate.fill != 0x20 or buffer[offset] not in b" \t\r\n":
                buffer[offset] = candidate.fill
    return bytes(buffer)


def _confirmed(root: tree_sitter.Node, candidate: _Candidate) -> bool:
    if candidate.fill != 0x20:
        # an inserted separator must be one the grammar takes (not `;;` after a written `;`)
        filled = root.descendant_for_byte_range(candidate.start, candidate.start + 1)
        if filled is None or "ERROR" in (filled.type, filled.parent and filled.parent.type):
            return False
    node = root.descendant_for_byte_range(candidate.name, candidate.name + 1)
    for _ in range(3):  # the name token, its wrapper (string, computed key), the member
        if node is None:
            return False
        if node.type in candidate.parents:
            return True
        node = node.parent
    return False
