"""JSON and YAML: the top-level keys that describe a data file's structure.

For a ``package.json`` the names inside ``scripts`` and the dependency sections are keys too
(``scripts.build``, ``dependencies.react``…), so "which script runs the tests" or "do we depend on
X" is answered from the index. YAML streams with several documents list the keys of all of them,
each once.

tree-sitter-yaml 0.7.2 writes past its state buffer on ~250 nested block levels (a segfault,
tree-sitter-grammars/tree-sitter-yaml#48) and loses track of rows after 32,767 lines (#49). Such
files are never given to the grammar: :func:`yaml_grammar_unsafe` spots them and
:func:`yaml_by_lines` reads their top-level keys and comment tags line by line instead.
"""

from __future__ import annotations

import re
from typing import Final

from tree_sitter import Node

from ipuaro.domain.files import TodoInfo
from ipuaro.index.parsers._bulk import comment_todos
from ipuaro.index.parsers._source import Source

PACKAGE_SECTIONS: Final = (
    "scripts",
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "optionalDependencies",
)
_JSONC_NAMES: Final = ("tsconfig", "jsconfig")
# Far below the ~250 indentation levels that crash the scanner, far above real files.
_YAML_MAX_INDENT: Final = 100
_YAML_MAX_LINES: Final = 32_767
_YAML_TOP_KEY: Final = re.compile(
    r"""^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s#:\-?\[\]{},&*!|>%@`"'][^#:]*?))"""
    r"""\s*:(?:\s|$)"""
)


def json_keys(source: Source, root: Node, path: str) -> list[str]:
    top = next((child for child in root.named_children if child.type == "object"), None)
    if top is None:
        return []
    pairs = _json_pairs(source, top)
    keys = [key for key, _ in pairs]
    if path.replace("\\", "/").rsplit("/", 1)[-1] == "package.json":
        values = dict(pairs)
        for section in PACKAGE_SECTIONS:
            value = values.get(section)
            if value is not None and value.type == "object":
                keys.extend(f"{section}.{key}" for key, _ in _json_pairs(source, value))
    return keys


def _json_pairs(source: Source, node: Node) -> list[tuple[str, Node]]:
    pairs: list[tuple[str, Node]] = []
    for pair in node.named_children:
        if pair.type != "pair":
            continue
        key = pair.child_by_field_name("key")
        value = pair.child_by_field_name("value")
        if key is None or value is None:
            continue
        pairs.append((_unquote(source.text(key)), value))
    return pairs


def json_error_is_tolerated(source: Source, root: Node, path: str) -> bool:
    """tsconfig/jsconfig are JSONC: a trailing comma there is not an error."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not name.startswith(_JSONC_NAMES):
        return False
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            return False
        if node.type == "ERROR":
            if source.text(node).strip() != ",":
                return False
            continue
        if node.has_error:
            stack.extend(node.children)
    return True


def yaml_keys(source: Source, root: Node) -> list[str]:
    keys: list[str] = []
    seen: set[str] = set()
    for document in root.named_children:
        if document.type != "document":
            continue
        mapping = _yaml_mapping(document)
        if mapping is None:
            continue
        for pair in mapping.named_children:
            if pair.type not in ("block_mapping_pair", "flow_pair"):
                continue
            key_node = pair.child_by_field_name("key")
            if key_node is None:
                continue
            key = _unquote(source.text(key_node).strip())
            if key not in seen:
                seen.add(key)
                keys.append(key)
    return keys


def _yaml_mapping(document: Node) -> Node | None:
    """The mapping at the top of a document, through block/flow wrappers and tags/anchors."""
    node: Node | None = document
    for _ in range(4):
        if node is None:
            return None
        inner = next(
            (
                child
                for child in node.named_children
                if child.type in ("block_node", "flow_node", "block_mapping", "flow_mapping")
            ),
            None,
        )
        if inner is None:
            return None
        if inner.type in ("block_mapping", "flow_mapping"):
            return inner
        node = inner
    return None


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def yaml_grammar_unsafe(text: str) -> bool:
    """True for YAML the grammar cannot take: too deeply indented or too many lines."""
    lines = text.split("\n")
    if len(lines) > _YAML_MAX_LINES:
        return True
    # Block indicators ("- ", "? ", ": ") open levels like spaces do.
    return any(len(line) - len(line.lstrip(" -?:\t")) >= _YAML_MAX_INDENT for line in lines)


def yaml_by_lines(text: str) -> tuple[list[str], list[TodoInfo]]:
    """Top-level keys (column-0 ``key:`` lines) and tags in full-line comments, without a parse."""
    keys: list[str] = []
    seen: set[str] = set()
    todos: list[TodoInfo] = []
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            todos += comment_todos(stripped.encode("utf-8", "surrogatepass"), number)
            continue
        match = _YAML_TOP_KEY.match(line)
        if match is None:
            continue
        key = next(group for group in match.groups() if group is not None).strip()
        if key and key not in seen:
            seen.add(key)
            keys.append(key)
    return keys, todos
