"""Uses of a symbol under the name a module exports it as (``export { _try as try }``).

The reference judge finds the export specifier in the defining file; here the other files
that import that file are read for the exported name: ``NS.try(…)`` on ``import * as NS``,
and ``try`` (or its local alias) after ``import { try [as t] }``. Each such use is an
``exact`` reference to the symbol (the language service lists them too).
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter
from tree_sitter import Node

from ipuaro.domain.files import FileAST
from ipuaro.domain.indexes import Reference
from ipuaro.store.protocol import Store


def exported_uses(
    store: Store,
    exports: dict[str, set[str]],
    tree: Callable[[str, str], tree_sitter.Tree],
) -> list[Reference]:
    """References to ``exports`` (exported name -> files exporting the symbol under it)
    in the files importing those files."""
    found: list[Reference] = []
    for exported, sources in sorted(exports.items()):
        by_path: dict[str, list[Reference]] = {}
        for ref in store.find_references(exported):
            by_path.setdefault(ref.path, []).append(ref)
        asts = store.get_asts(sorted(by_path))
        importers = sorted(
            path
            for path, ast in asts.items()
            if any(info.resolved in sources for info in ast.imports)
        )
        files = store.get_files(importers)
        for path in importers:
            data = files.get(path)
            ast = asts.get(path)
            if data is None or ast is None:
                continue
            text = "\n".join(data.lines)
            source = text.encode("utf-8", "surrogatepass")
            root = tree(path, text).root_node
            namespaces, locals_ = _bindings(root, source, sources, ast, exported)
            for ref in by_path.get(path, ()):
                node = _node_at(root, text, ref, len(exported))
                if node is None:
                    continue
                parent = node.parent
                if parent is not None and parent.type == "member_expression":
                    obj = parent.child_by_field_name("object")
                    if obj is not None and _text(obj, source) in namespaces:
                        found.append(ref)
                elif exported in locals_ and node.type == "identifier":
                    found.append(ref)
            for local in sorted(locals_ - {exported}):  # `import { try as t }`: uses of `t`
                found += (r for r in store.find_references(local, path) if r.path == path)
    return found


def _bindings(
    root: Node, source: bytes, sources: set[str], ast: FileAST, exported: str
) -> tuple[set[str], set[str]]:
    """Namespace names bound to ``sources``, and the local names of ``exported`` imported
    from them by name."""
    lines = {info.line for info in ast.imports if info.resolved in sources}
    namespaces: set[str] = set()
    locals_: set[str] = set()
    for statement in root.named_children:
        if statement.type != "import_statement" or statement.start_point[0] + 1 not in lines:
            continue
        for clause in statement.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "namespace_import":
                    namespaces.update(
                        _text(n, source) for n in part.named_children if n.type == "identifier"
                    )
                elif part.type == "named_imports":
                    for specifier in part.named_children:
                        name = specifier.child_by_field_name("name")
                        if name is None or _text(name, source) != exported:
                            continue
                        alias = specifier.child_by_field_name("alias")
                        locals_.add(_text(alias or name, source))
    return namespaces, locals_


def _node_at(root: Node, text: str, ref: Reference, width: int) -> Node | None:
    lines = text.split("\n")
    if not 1 <= ref.line <= len(lines):
        return None
    column = len(lines[ref.line - 1][: ref.column - 1].encode("utf-8", "surrogatepass"))
    row = ref.line - 1
    return root.named_descendant_for_point_range((row, column), (row, column + width))


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")
