"""TypeScript/JavaScript module level: imports, exports (ESM and CommonJS), declarations.

Only module-level statements are walked (and the bodies of namespaces, ``declare module`` and
``declare global``); functions and classes nested in function bodies are not recorded.
Import names are the local binding (``import {a as b}`` -> ``b``; side-effect imports -> ``''``);
re-exports (``export * from``, ``export {a} from``) are imports too.
"""

from __future__ import annotations

from typing import Final, Literal

from tree_sitter import Node

from ipuaro.domain.files import ExportKind, ImportInfo, TypeInfo
from ipuaro.domain.indexes import SymbolKind
from ipuaro.index.parsers._classify import classify_js
from ipuaro.index.parsers._source import MAX_DEPTH, Collected, Source, end_line, start_line
from ipuaro.index.parsers._trusted import trusted
from ipuaro.index.parsers._ts_commonjs import read_commonjs
from ipuaro.index.parsers._ts_members import (
    CLASS_NODES,
    FUNCTION_VALUES,
    class_info,
    function_info,
    name_of,
    signatures_info,
)
from ipuaro.index.parsers._ts_values import function_value, pattern_names, required_module

_FUNCTION_DECLARATIONS: Final = frozenset(
    {"function_declaration", "generator_function_declaration"}
)
TypeKind = Literal["interface", "type", "enum", "namespace"]
_TYPE_KINDS: Final[dict[str, TypeKind]] = {
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
}
_NAMESPACES: Final = frozenset({"internal_module", "module"})
_NAMED_DECLARATIONS: Final = (
    _FUNCTION_DECLARATIONS | FUNCTION_VALUES | CLASS_NODES | _NAMESPACES | frozenset(_TYPE_KINDS)
)

_Signature = tuple[Node, Node, bool]


class ModuleReader:
    """Reads one TypeScript/JavaScript syntax tree into a :class:`Collected`."""

    def __init__(self, source: Source, collected: Collected) -> None:
        self.source = source
        self.collected = collected
        self.bound_modules: set[int] = set()
        """Start bytes of require()/import() specifiers already recorded with a binding."""
        self.depth = 0

    def read(self, root: Node, requires: list[Node], dynamic: list[Node]) -> None:
        self.statements(root.children, None)
        for fragment in (*requires, *dynamic):
            if fragment.start_byte not in self.bound_modules:
                self._import("", self.source.text(fragment), start_line(fragment), False)
        self.collected.imports.sort(key=lambda item: item.line)

    def statements(self, nodes: list[Node], container: str | None) -> None:
        if self.depth >= MAX_DEPTH:
            return  # pathological nesting (namespaces, error recovery): keep the stack bounded
        self.depth += 1
        try:
            self._statements(nodes, container)
        finally:
            self.depth -= 1

    def _statements(self, nodes: list[Node], container: str | None) -> None:
        group: list[_Signature] = []
        for statement in nodes:
            unwrapped = self._unwrap(statement, container)
            if unwrapped is None:
                continue
            declaration, outer, exported, default = unwrapped
            kind = declaration.type
            if kind == "function_signature":
                if group and name_of(self.source, group[0][0]) != name_of(self.source, declaration):
                    signatures_info(self.source, self.collected, group, container)
                    group = []
                group.append((declaration, outer, exported))
                continue
            if group:
                if kind in _FUNCTION_DECLARATIONS and name_of(self.source, declaration) == (
                    name_of(self.source, group[0][0])
                ):
                    exported = exported or any(item[2] for item in group)
                else:
                    signatures_info(self.source, self.collected, group, container)
                group = []
            self._declaration(declaration, outer, exported, default, container)
        if group:
            signatures_info(self.source, self.collected, group, container)

    def _unwrap(
        self, statement: Node, container: str | None
    ) -> tuple[Node, Node, bool, bool] | None:
        """The declaration a statement carries (with its outer node, exported, default), after
        recording what the statement itself says (imports, re-exports, CommonJS exports)."""
        if not statement.is_named:
            return None  # keywords and punctuation (inside ERROR nodes, `function` is a token)
        kind = statement.type
        if kind == "export_statement":
            return self._export_statement(statement, container)
        if kind == "import_statement":
            self._import_statement(statement)
            return None
        if kind == "ambient_declaration":
            for child in statement.named_children:
                if child.type == "statement_block":  # declare global { … }
                    self.statements(child.children, container)
                    return None
                if child.type != "comment":
                    return child, statement, False, False
            return None
        if kind == "expression_statement":
            child = statement.named_child(0)
            if child is None:
                return None
            if child.type in _NAMESPACES:
                return child, statement, False, False
            if child.type == "assignment_expression" and container is None:
                read_commonjs(self.source, self.collected, child, statement)
            return None
        if kind == "ERROR":
            self.statements(statement.children, container)  # keep what parsed inside
            return None
        if kind == "comment":
            return None  # comments between overload signatures keep the group together
        return statement, statement, False, False

    def _export_statement(
        self, statement: Node, container: str | None
    ) -> tuple[Node, Node, bool, bool] | None:
        source = self.source
        line = start_line(statement)
        top = container is None
        module = statement.child_by_field_name("source")
        if module is not None:
            self._reexport(statement, source.text(module)[1:-1], line, top)
            return None
        default = any(child.type == "default" for child in statement.children)
        declaration = statement.child_by_field_name("declaration")
        if declaration is not None:
            if declaration.type == "ambient_declaration":
                inner = declaration.named_child(0)
                if inner is None:
                    return None
                declaration = inner
            return declaration, statement, True, default
        value = statement.child_by_field_name("value")
        if value is not None:
            return value, statement, True, True
        for child in statement.named_children:
            if child.type == "export_clause" and top:
                for specifier in child.named_children:
                    name_node = specifier.child_by_field_name("name")
                    if name_node is None:
                        continue
                    local = source.text(name_node)
                    alias = specifier.child_by_field_name("alias")
                    exported = source.text(alias) if alias is not None else local
                    if exported == "default":  # `export { x as default }` names it by x
                        self.collected.export(local, "default", line, local)
                    else:
                        self.collected.export(exported, None, line, local)
            elif top and child.type in ("identifier", "member_expression"):  # export = X
                local = source.text(child)
                self.collected.export(local, "default", line, local)
        return None

    def _reexport(self, statement: Node, module: str, line: int, top: bool) -> None:
        for child in statement.children:
            if child.type == "*":
                self._import("*", module, line, False)
                if top:
                    self.collected.export("*", "namespace", line)
            elif child.type == "namespace_export":
                alias = child.named_child(0)
                name = self.source.text(alias) if alias is not None else "*"
                self._import(name, module, line, False)
                if top:
                    self.collected.export(name, "namespace", line)
            elif child.type == "export_clause":
                for specifier in child.named_children:
                    name_node = specifier.child_by_field_name("name")
                    if name_node is None:
                        continue
                    imported = self.source.text(name_node)
                    exported_node = specifier.child_by_field_name("alias") or name_node
                    exported = self.source.text(exported_node)
                    self._import(imported, module, line, imported == "default")
                    if top:
                        kind: ExportKind = "default" if exported == "default" else "const"
                        self.collected.export(exported, kind, line)

    def _import_statement(self, statement: Node) -> None:
        source = self.source
        line = start_line(statement)
        module_node = statement.child_by_field_name("source")
        for child in statement.named_children:
            if child.type == "import_require_clause":  # import fs = require('fs')
                required = child.child_by_field_name("source")
                binding = child.named_child(0)
                if required is not None and binding is not None:
                    self._import(source.text(binding), source.text(required)[1:-1], line, True)
                return
        if module_node is None:
            return
        module = source.text(module_node)[1:-1]
        clause = next((c for c in statement.named_children if c.type == "import_clause"), None)
        if clause is None:
            self._import("", module, line, False)
            return
        for part in clause.named_children:
            if part.type == "identifier":
                self._import(source.text(part), module, line, True)
            elif part.type == "namespace_import":
                namespace = part.named_child(0)
                self._import(source.text(namespace) if namespace else "*", module, line, False)
            elif part.type == "named_imports":
                for specifier in part.named_children:
                    name_node = specifier.child_by_field_name("name")
                    if name_node is None:
                        continue
                    local_node = specifier.child_by_field_name("alias") or name_node
                    imported = source.text(name_node)
                    local = source.text(local_node)
                    self._import(local, module, line, imported == "default")

    def _import(self, name: str, module: str, line: int, is_default: bool) -> None:
        self.collected.imports.append(
            trusted(
                ImportInfo,
                name=name,
                from_=module,
                line=line,
                type=classify_js(module),
                is_default=is_default,
            )
        )

    def _declaration(
        self, node: Node, outer: Node, exported: bool, default: bool, container: str | None
    ) -> None:
        source, collected = self.source, self.collected
        kind = node.type
        top_export = exported and container is None
        if not default and kind in _NAMED_DECLARATIONS and node.child_by_field_name("name") is None:
            return  # a nameless declaration only comes out of error recovery
        if (
            kind in _FUNCTION_DECLARATIONS
            or kind in FUNCTION_VALUES
            or kind == "function_signature"
        ):
            name = name_of(source, node)
            function_info(
                source,
                collected,
                name,
                node,
                start=outer,
                exported=exported,
                container=container,
            )
            if top_export:
                collected.export(name, "default" if default else "function", start_line(outer))
        elif kind in CLASS_NODES:
            name = name_of(source, node)
            class_info(
                source, collected, name, node, start=outer, exported=exported, container=container
            )
            if top_export:
                collected.export(name, "default" if default else "class", start_line(outer))
        elif kind in ("lexical_declaration", "variable_declaration"):
            declarators = [c for c in node.named_children if c.type == "variable_declarator"]
            keyword = node.child(0)
            constant = keyword is not None and keyword.type == "const"
            for index, declarator in enumerate(declarators):
                start = outer if index == 0 else declarator
                self._declarator(declarator, start, exported, constant, container)
        elif kind in _TYPE_KINDS or kind in _NAMESPACES:
            self._type(node, outer, exported, container)
        elif top_export and default:
            if kind == "identifier":  # export default foo
                local = source.text(node)
                collected.export(local, "default", start_line(outer), local)
            else:
                collected.export("default", "default", start_line(outer))

    def _type(self, node: Node, outer: Node, exported: bool, container: str | None) -> None:
        source, collected = self.source, self.collected
        name = name_of(source, node, "")
        if name[:1] in ("'", '"'):
            name = name[1:-1]  # declare module 'pkg'
        namespace = node.type in _NAMESPACES
        type_kind: TypeKind = "namespace" if namespace else _TYPE_KINDS[node.type]
        line_start, line_end = start_line(outer), end_line(node)
        collected.types.append(
            trusted(
                TypeInfo,
                name=name,
                kind=type_kind,
                line_start=line_start,
                line_end=line_end,
                is_exported=exported,
            )
        )
        collected.symbol(name, type_kind, line_start, line_end, container)
        if exported and container is None:
            collected.export(name, type_kind, line_start)
        if namespace:
            body = node.child_by_field_name("body")
            if body is not None:
                inner = f"{container}.{name}" if container else name
                self.statements(body.children, inner)

    def _declarator(
        self, declarator: Node, start: Node, exported: bool, constant: bool, container: str | None
    ) -> None:
        source, collected = self.source, self.collected
        name_node = declarator.child_by_field_name("name")
        if name_node is None:
            return
        value = function_value(declarator.child_by_field_name("value"))
        module = required_module(value)
        top_export = exported and container is None
        if name_node.type != "identifier":  # const {a, b} = …
            names = pattern_names(source, name_node)
            if module is not None:
                self.bound_modules.add(module.start_byte)
                for name in names:
                    self._import(name, source.text(module), start_line(start), False)
                return
            for name in names:
                kind: SymbolKind = "const" if constant else "variable"
                collected.symbol(name, kind, start_line(start), container=container)
                if top_export:
                    collected.export(name, "const", start_line(start))
            return
        name = source.text(name_node)
        if module is not None:
            self.bound_modules.add(module.start_byte)
            whole = value is not None and value.type in ("call_expression", "await_expression")
            self._import(name, source.text(module), start_line(start), whole)
        elif value is not None and value.type in FUNCTION_VALUES:
            function_info(
                source,
                collected,
                name,
                value,
                start=start,
                end=declarator,
                exported=exported,
                container=container,
            )
            if top_export:
                collected.export(name, "function", start_line(start))
        elif value is not None and value.type == "class":
            class_info(
                source, collected, name, value, start=start, exported=exported, container=container
            )
            if top_export:
                collected.export(name, "class", start_line(start))
        else:
            line = start_line(start)
            kind = "const" if constant else "variable"
            collected.symbol(name, kind, line, end_line(declarator), container)
            if top_export:
                collected.export(name, "const", line)
