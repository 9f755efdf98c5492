"""Which identifiers named like a symbol mean that symbol: the reference index lists every
identifier with the name; this judges each one with the file's syntax tree and imports.

Dropped (they name something else):

- an identifier bound by a parameter or a local declaration in an enclosing function or block
  (``function f(name) { name }``, ``const name = …`` in a body, a Python local assignment),
  and a type name bound by an enclosing type parameter (``<T>``);
- a property or attribute name (``options.name``, ``{name: 1}``, ``def name`` in a class,
  ``f(name=1)``) when no definition of the symbol is a member of a class; a member access on
  the file's import of a module or namespace (``ns.name``, ``module.name``) is kept, but not
  ``ns.obj.name`` when the index defines ``obj`` and never as a namespace (a property of an
  object the module exports);
- in Python, a name the file binds only by importing it from the standard library or another
  package (``from urllib3.util import Timeout as T``), and what is reached through such a name
  (``os.environ.get``, ``pytest.main``); a name the file binds to a module (``import attrs``
  is the package, not the function ``attrs``); a member the standard library's class declares
  on a receiver the file shows to be one (``kwargs.get``, ``{}.get``: ``builtin_types``).

Go, Rust and Java are judged by ``static_scopes`` (block scopes, ``pkg.Name`` through the
file's imports, ``use`` paths, Java's method namespace and receivers).

Kept as ``exact``: the definition itself, an import of the name, and uses in a file that
defines the symbol at module level or imports it. Kept as ``name-only``: what the syntax tree
cannot settle (a global never declared in the file, ``obj.name`` when a class has a member
so named, files of languages without a judge). ``import {a as b}`` / ``from m import a as b``
add the uses of ``b`` in that file.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

import tree_sitter
from tree_sitter import Node

from ipuaro.domain.files import ImportInfo
from ipuaro.domain.indexes import Reference, SymbolDef
from ipuaro.index.refs.ancestry import Ancestry
from ipuaro.index.refs.js_scopes import JS_DECLARATIONS, JsScopes
from ipuaro.index.refs.python_scopes import (
    PythonScopes,
    foreign_modules,
    foreign_names,
    python_modules,
)
from ipuaro.index.refs.receivers import Receivers
from ipuaro.index.refs.reexports import exported_uses
from ipuaro.index.refs.static_scopes import STATIC_LANGUAGES, StaticScopes
from ipuaro.store.protocol import Store

Confidence = Literal["exact", "name-only"]
_Verdict = Literal["exact", "name-only", "drop"]

JS_LANGUAGES: Final = frozenset({"typescript", "tsx", "javascript", "jsx"})
_JUDGED: Final = JS_LANGUAGES | {"python"} | STATIC_LANGUAGES

_JS_PROPERTY: Final = frozenset({"property_identifier", "private_property_identifier"})
_JS_MEMBER_DECLARATIONS: Final = frozenset(
    {
        "method_definition",
        "public_field_definition",
        "property_signature",
        "method_signature",
        "abstract_method_signature",
    }
)
_JS_MEMBER_OWNERS: Final = frozenset(
    {
        "class_declaration",
        "abstract_class_declaration",
        "class",
        "interface_declaration",
        "object_type",
        "object",
    }
)
_CHAINS: Final = ("attribute", "member_expression", "nested_identifier")
_JS_IMPORTS: Final = frozenset(
    {"import_specifier", "namespace_import", "import_clause", "export_specifier"}
)


@dataclass(frozen=True, slots=True)
class JudgedReference:
    reference: Reference
    confidence: Confidence


@dataclass(slots=True)
class _Target:
    name: str
    definitions: set[tuple[str, int]]
    """(path, line) of every definition: the definition sites themselves are references."""
    module_level: set[str]
    """Files defining the name outside any class."""
    member: bool
    """Some definition is a class member (methods, fields): ``x.name`` may mean it."""
    containers: set[str]
    """Classes declaring a member so named."""
    kinds: set[str]
    """What the definitions are (``function``, ``method``, ``class``…)."""


def judge_references(store: Store, name: str, refs: list[Reference]) -> list[JudgedReference]:
    """``refs`` (every identifier called ``name``) less the ones that mean something else, each
    marked ``exact`` or ``name-only``; uses of ``import {name as alias}`` aliases are added."""
    definitions = store.find_definitions(name)
    target = _target(name, definitions)
    by_path: dict[str, list[Reference]] = defaultdict(list)
    for ref in refs:
        by_path[ref.path].append(ref)
    files = store.get_files(by_path)
    asts = store.get_asts(by_path)
    ancestry = Ancestry(store, target.containers, name)
    exports: dict[str, set[str]] = defaultdict(set)
    judged: list[JudgedReference] = []
    for path, group in by_path.items():
        data = files.get(path)
        ast = asts.get(path)
        language = ast.language if ast is not None else None
        if data is None or language not in _JUDGED:
            judged += (JudgedReference(ref, _unjudged(target, path)) for ref in group)
            continue
        python = ast is not None and language == "python"
        foreign = foreign_names(ast) if python and ast is not None else frozenset()
        imported = ast is not None and any(
            info.name == name and info.name not in foreign for info in ast.imports
        )
        modules = python_modules(ast) if python and ast is not None else set()
        judge = _FileJudge(
            store, path, "\n".join(data.lines), language or "", target, imported, modules, ancestry
        )
        judge.foreign = foreign
        judge.imports = list(ast.imports) if ast is not None else []
        judge.foreign_modules = foreign_modules(ast) if python and ast is not None else frozenset()
        judged += judge.judge(group)
        for alias in judge.export_aliases:
            exports[alias].add(path)
    if exports:
        seen = {(j.reference.path, j.reference.line, j.reference.column) for j in judged}
        for ref in exported_uses(store, exports, _tree):
            if (ref.path, ref.line, ref.column) not in seen:
                seen.add((ref.path, ref.line, ref.column))
                judged.append(JudgedReference(ref, "exact"))
    judged.sort(key=lambda item: (item.reference.path, item.reference.line, item.reference.column))
    return judged


def _target(name: str, definitions: list[SymbolDef]) -> _Target:
    return _Target(
        name=name,
        definitions={(d.path, d.line) for d in definitions},
        module_level={d.path for d in definitions if d.container is None},
        member=any(d.container is not None for d in definitions) or not definitions,
        containers={d.container for d in definitions if d.container is not None},
        kinds={d.kind for d in definitions},
    )


@functools.lru_cache(maxsize=32)
def _tree(path: str, text: str) -> tree_sitter.Tree:
    """Parsed trees of recent files (an agent asks about names in the same files again and
    again; a TypeScript file with newer syntax costs two or three parses). Immutable."""
    from ipuaro.index.parsers import parse_tree

    return parse_tree(path, text)


def _unjudged(target: _Target, path: str) -> Confidence:
    return "exact" if path in target.module_level else "name-only"


class _FileJudge(PythonScopes, JsScopes, StaticScopes):
    """Judges the references of one file against its freshly parsed tree."""

    def __init__(
        self,
        store: Store,
        path: str,
        text: str,
        language: str,
        target: _Target,
        imported: bool,
        python_modules: set[str],
        ancestry: Ancestry,
    ) -> None:
        self.store = store
        self.ancestry = ancestry
        self.path = path
        self.lines = text.split("\n")
        self.language = language
        self.target = target
        self.root = _tree(path, text).root_node
        self.data = text.encode("utf-8", "surrogatepass")
        self.bound_here = path in target.module_level or imported
        self.namespaces = python_modules if language == "python" else self._namespaces()
        self.local_namespaces = {
            self._text(named)
            for node in self._top_level()
            if node.type in ("internal_module", "module")
            and (named := node.child_by_field_name("name")) is not None
        }
        self.receivers = Receivers(language, self._text, ancestry.is_class)
        self.aliases: set[str] = set()
        self.foreign: frozenset[str] = frozenset()
        self.foreign_modules: frozenset[str] = frozenset()
        """Python names bound only by imports from outside the project (``import os``,
        ``from urllib3 import Timeout``): never the project's symbol, nor what they reach."""
        self.export_aliases: set[str] = set()
        """Names this file exports the symbol under (``export { name as other }``)."""
        self.scopes: dict[tuple[int, int, str], set[str]] = {}
        """Names each scope node binds, by (start, end, kind): computed once per scope."""
        self.imports: list[ImportInfo] = []
        self.target_kinds = target.kinds

    def _target_name(self) -> str:
        return self.target.name

    def _module_level(self) -> set[str]:
        return self.target.module_level

    def _containers(self) -> set[str]:
        return self.target.containers

    def _defining_files(self) -> set[str]:
        return {path for path, _ in self.target.definitions}

    def _is_member(self) -> bool:
        return self.target.member

    def judge(self, refs: list[Reference]) -> list[JudgedReference]:
        result: list[JudgedReference] = []
        for ref in refs:
            node = self._node(ref)
            verdict: _Verdict = "name-only" if node is None else self._verdict(node, ref)
            if verdict != "drop":
                result.append(JudgedReference(ref, verdict))
        for alias in sorted(self.aliases):
            for ref in self.store.find_references(alias, self.path):
                if ref.path != self.path:
                    continue
                node = self._node(ref)
                if node is not None and self._local(node, alias) is None:
                    result.append(JudgedReference(ref, "exact"))
        return result

    # --- positions ---------------------------------------------------------------------------
    def _node(self, ref: Reference) -> Node | None:
        if not 1 <= ref.line <= len(self.lines):
            return None
        line = self.lines[ref.line - 1]
        column = len(line[: ref.column - 1].encode("utf-8", "surrogatepass"))
        width = len(self.target.name.encode("utf-8", "surrogatepass"))
        row = ref.line - 1
        node = self.root.named_descendant_for_point_range((row, column), (row, column + width))
        return node

    def _text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    # --- verdicts ----------------------------------------------------------------------------
    def _verdict(self, node: Node, ref: Reference) -> _Verdict:
        if (ref.path, ref.line) in self.target.definitions:
            return "exact"
        if self.language == "python":
            return self._python(node)
        if self.language in STATIC_LANGUAGES:
            return self._static(node, self.language)
        return self._javascript(node)

    def _settled(self) -> _Verdict:
        return "exact" if self.bound_here else "name-only"

    def _member(self, obj: Node | None) -> _Verdict:
        """A property/attribute name accessed on ``obj`` (``a.b.name``: on ``a``'s module);
        on an object whose class the file tells (``receivers``), what that class inherits."""
        receiver = obj
        # `ns.obj.name` in JS/TS is a property of ns's exported object, not ns's own member
        # (Python's `pkg.mod.name` and TS types' `A.B.Name` are module chains)
        chain = ("attribute", "nested_identifier") if self.target.member else _CHAINS
        links: list[Node] = []
        while obj is not None and obj.type in chain:
            if obj.type == "member_expression" and (link := obj.child_by_field_name("property")):
                links.append(link)
            obj = obj.child_by_field_name("object")
        if obj is not None and obj.type == "identifier":
            if self._text(obj) in self.foreign:
                return "drop"  # `os.environ.get`, `pytest.main`: another package's attribute
            if self._text(obj) in self.namespaces:
                # `ns.obj.name`: a property of an object the module exports, unless every link
                # between is a namespace (`export * as obj`, `namespace obj`) or unknown
                return "drop" if any(self._not_namespace(link) for link in links) else "exact"
            local = self._text(obj)
            if local in self.local_namespaces and (
                self.path in self.target.module_level or local in self.target.containers
            ):
                return "exact"  # a namespace declared in the file that defines the symbol
        if not self.target.member:
            return "drop"
        if receiver is not None and self.target.containers:
            type_name = self.receivers.type_of(receiver)
            if type_name is not None:
                return self.ancestry.verdict(type_name, self.language == "python")
            if self.ancestry.only_classes() and self.path not in self.ancestry.near_containers():
                return "drop"  # no object of a declaring class is within two imports of here
        return "name-only"

    def _not_namespace(self, link: Node) -> bool:
        """The index defines ``link``'s name, and never as a namespace or module."""
        found = self.store.find_definitions(self._text(link))
        return bool(found) and all(d.kind != "namespace" for d in found)

    def _javascript(self, node: Node) -> _Verdict:
        parent = node.parent
        kind = node.type
        if kind == "comment":
            # a JSDoc `{@link name}`: the language resolves it only where the name is in scope
            return "exact" if self.bound_here else "drop"
        if parent is None:
            return self._settled()
        if kind in _JS_PROPERTY:
            if parent.type in ("member_expression", "nested_identifier"):
                return self._member(parent.child_by_field_name("object"))
            if not self.target.member:
                return "drop"
            if parent.type in _JS_MEMBER_DECLARATIONS:
                return self._own_member(parent)
            # an object literal's key: its type is not in the file (see _own_member)
            return "name-only" if self.ancestry.shapes() else "drop"
        if parent.type == "index_signature" and parent.child_by_field_name("name") == node:
            return "drop"  # `[key: string]: T` names the index, nothing else
        if kind == "shorthand_property_identifier_pattern":
            return "drop" if self._in_local_scope(node) else self._settled()
        if parent.type == "nested_type_identifier" and parent.child_by_field_name("name") == node:
            return self._member(parent.child_by_field_name("module"))  # Namespace.Type
        if self.target.name in self.namespaces:
            return "drop"  # `import * as X`: here X is a module, not the symbol
        if parent.type in _JS_IMPORTS:
            alias = parent.child_by_field_name("alias")
            if alias is not None and alias != node and parent.type == "import_specifier":
                self.aliases.add(self._text(alias))
            elif alias is not None and alias != node and parent.type == "export_specifier":
                self.export_aliases.add(self._text(alias))
            return "exact"
        if self._local(node, self.target.name) is not None:
            return "drop"
        return self._settled()

    def _own_member(self, declaration: Node) -> _Verdict:
        """A member declared under the name in a class, interface or object type that the
        index does not list as one of its definitions: the symbol's only if the owner class
        inherits it (an override, a field over an inherited accessor)."""
        owner = declaration.parent
        while owner is not None and owner.type not in _JS_MEMBER_OWNERS:
            owner = owner.parent
        if owner is None or owner.type == "object":
            # an object literal's type is not in the file; it can be the symbol only where an
            # interface or type could type it (a class alone is not written as a literal)
            return "name-only" if self.ancestry.shapes() else "drop"
        if owner.type == "object_type":
            # a shape of its own, unless it is typed from a declaring class or what it
            # implements (`name: Scheduler["name"]`)
            text = self._text(declaration)
            related = self.target.containers | self.ancestry.above_containers()
            return "name-only" if any(name in text for name in related) else "drop"
        named = owner.child_by_field_name("name")
        if named is None:
            return "name-only"  # an anonymous class
        if owner.type == "interface_declaration":
            interface = self._text(named)
            if interface in self.target.containers or interface in self.ancestry.above_containers():
                return "exact"
            return "drop"
        return self.ancestry.verdict(self._text(named), self.language == "python")

    def _python(self, node: Node) -> _Verdict:
        parent = node.parent
        if parent is None:
            return self._settled()
        if parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            return self._member(parent.child_by_field_name("object"))
        if parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
            return "name-only" if self.target.member else "drop"
        if self.target.name in self.namespaces and self.path not in self.target.module_level:
            return "drop"  # `import attrs`: here the name is the package, not the function
        if parent.type in ("aliased_import", "dotted_name") or "import" in parent.type:
            if self._imported_from(node):
                return "drop"  # `from attrs import x`: the module the names come from
            if self._foreign_import(node):
                return "drop"  # `from urllib3.util import Timeout [as T]`: urllib3's Timeout
            grand = parent.parent
            if parent.type == "aliased_import":
                alias = parent.child_by_field_name("alias")
                if alias is not None and alias is not node:
                    self.aliases.add(self._text(alias))
            elif grand is not None and grand.type == "aliased_import":
                alias = grand.child_by_field_name("alias")
                if alias is not None:
                    self.aliases.add(self._text(alias))
            return "exact"
        if self._local(node, self.target.name) is not None:
            return "drop"
        if self.target.name in self.foreign and self.path not in self.target.module_level:
            return "drop"  # the file's own binding of the name comes from another package
        return self._settled()

    def _imported_from(self, node: Node) -> bool:
        """``node`` is (part of) the module a ``from M import …`` statement names."""
        statement = node.parent
        while statement is not None and statement.type != "import_from_statement":
            statement = statement.parent
        module = statement.child_by_field_name("module_name") if statement is not None else None
        return module is not None and module.start_byte <= node.start_byte < module.end_byte

    def _foreign_import(self, node: Node) -> bool:
        """``node`` sits in an import statement whose module is outside the project."""
        statement = node.parent
        while statement is not None and statement.type not in (
            "import_from_statement",
            "import_statement",
        ):
            statement = statement.parent
        if statement is None or statement.type != "import_from_statement":
            return False
        module = statement.child_by_field_name("module_name")
        return module is not None and self._text(module) in self.foreign_modules

    # --- scopes ------------------------------------------------------------------------------
    def _local(self, node: Node, name: str) -> Node | None:
        """The enclosing function, block or comprehension that binds ``name`` around
        ``node``, or None when only the module (or nothing) binds it."""
        if self.language == "python":
            return self._python_local(node, name)
        if self.language in STATIC_LANGUAGES:
            return self._static_local(node, name, self.language)
        type_name = node.type == "type_identifier"
        ancestor = node.parent
        while ancestor is not None:
            names_of = self._binder(ancestor.type, type_name)
            if names_of is not None and name in self._bound(ancestor, names_of):
                return ancestor
            ancestor = ancestor.parent
        return None

    def _bound(self, scope: Node, names_of: Callable[[Node], set[str]]) -> set[str]:
        key = (scope.start_byte, scope.end_byte, names_of.__name__)
        names = self.scopes.get(key)
        if names is None:
            names = self.scopes[key] = names_of(scope)
        return names

    def _top_level(self) -> list[Node]:
        """Module-level statements, ``export``/``declare`` unwrapped."""
        found: list[Node] = []
        for child in self.root.named_children:
            while child.type in ("export_statement", "ambient_declaration", "expression_statement"):
                inner = child.child_by_field_name("declaration") or (
                    child.named_children[0] if child.named_children else None
                )
                if inner is None:
                    break
                child = inner
            found.append(child)
        return found

    # --- imports -----------------------------------------------------------------------------
    def _namespaces(self) -> set[str]:
        """Local names bound to a whole module: ``import * as ns``, ``import ns from``,
        ``const ns = require()`` (Python's come from the resolved imports)."""
        names: set[str] = set()
        for child in self.root.named_children:
            if child.type == "import_statement":
                for clause in child.named_children:
                    if clause.type != "import_clause":
                        continue
                    for part in clause.named_children:
                        if part.type == "identifier":
                            names.add(self._text(part))
                        elif part.type == "namespace_import":
                            names.update(
                                self._text(n) for n in part.named_children if n.type == "identifier"
                            )
            elif child.type in JS_DECLARATIONS:
                for declarator in child.named_children:
                    value = declarator.child_by_field_name("value")
                    named = declarator.child_by_field_name("name")
                    if (
                        value is not None
                        and named is not None
                        and named.type == "identifier"
                        and value.type == "call_expression"
                        and self._text(value).startswith("require(")
                    ):
                        names.add(self._text(named))
        return names
