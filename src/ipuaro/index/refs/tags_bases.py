"""Bases of a class in a language whose tags parser records none: read from the class's own
syntax tree when the reference judge walks an ancestry (Java's ``extends``/``implements``;
Go, Rust and the rest have no inheritance the judge follows: unknown)."""

from __future__ import annotations

import functools
from typing import Final

import tree_sitter
from tree_sitter import Node

RECORDS_BASES: Final = frozenset({"python", "typescript", "tsx", "javascript", "jsx"})
_JAVA_TYPES: Final = frozenset(
    {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration"}
)
_JAVA_HERITAGE: Final = frozenset({"superclass", "super_interfaces", "extends_interfaces"})


def tree_bases(language: str, path: str, text: str, line: int) -> list[str] | None:
    """The names a Java class or interface declared at ``line`` extends or implements
    (``Base<T>`` as ``Base``); None when the language or the place says nothing."""
    if language != "java":
        return None
    source = text.encode("utf-8", "surrogatepass")
    declaration = _declaration_at(_tree(path, text).root_node, line - 1)
    if declaration is None:
        return None
    bases: list[str] = []
    for part in declaration.named_children:
        if part.type in _JAVA_HERITAGE:
            for typed in _type_names(part):
                bases.append(source[typed.start_byte : typed.end_byte].decode("utf-8", "replace"))
    return bases


@functools.lru_cache(maxsize=32)
def _tree(path: str, text: str) -> tree_sitter.Tree:
    """A walk up an ancestry reads the same few files again for every class it passes."""
    from ipuaro.index.parsers import parse_tree

    return parse_tree(path, text)


def _declaration_at(node: Node, row: int) -> Node | None:
    for child in node.named_children:
        if child.start_point[0] > row or child.end_point[0] < row:
            continue
        if child.type in _JAVA_TYPES:
            named = child.child_by_field_name("name")
            if named is not None and named.start_point[0] == row:
                return child
        found = _declaration_at(child, row)
        if found is not None:
            return found
    return None


def _type_names(node: Node) -> list[Node]:
    """Outermost class names in a heritage clause (``A<B>`` gives ``A``, ``a.b.C`` gives C)."""
    if node.type == "type_identifier":
        return [node]
    if node.type == "generic_type":
        return _type_names(node.named_children[0]) if node.named_children else []
    if node.type == "scoped_type_identifier":
        return [node.named_children[-1]] if node.named_children else []
    return [found for child in node.named_children for found in _type_names(child)]
