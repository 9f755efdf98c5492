"""The reference judge for Go, Rust and Java (Java's own rules in ``java_scopes``): names with
block scopes, imports that say where a name comes from, and members only a receiver reaches.

Dropped (another thing so named):

- a use bound by a parameter or a local in an enclosing function, closure, block, loop,
  ``if``/``match``/``catch`` (``Run := 3``, ``let run = …``, ``int run = …``);
- Go: ``pkg.Name`` through an import of the standard library (``fmt.Println``) or of a
  project package whose directory defines no such function; an unqualified ``Name`` in a package
  (a directory) that defines none, unless the file dot-imports; a struct field or literal key;
  ``x.Name`` when the symbol is no method;
- Rust: ``x.name`` / ``x.name()`` when the symbol is no method; ``std::…::name`` /
  ``core::`` / ``alloc::``; ``Type::name`` on a type the index holds that declares none;
  an unqualified ``name`` a module neither defines, imports nor glob-imports; struct fields;
- Java: a variable or field named like a method (methods live in their own namespace: only
  ``name(…)``, ``x.name(…)``, ``X::name`` and declarations are the method); a call on a
  receiver whose declared class (``this``, a typed local or parameter, a class name) neither
  is nor inherits a declaring class; a name imported from outside the project.

Kept ``exact`` where the file settles it (the package or module defines or imports the name,
``this``/``Self``/``super`` or a Go receiver whose type the file writes reach a declaring
type); the rest ``name-only``.
"""

from __future__ import annotations

import posixpath
from abc import abstractmethod
from collections.abc import Callable
from typing import Final, Literal

from tree_sitter import Node

from ipuaro.domain.files import ImportInfo
from ipuaro.index.refs.ancestry import Ancestry, bare_type
from ipuaro.index.refs.java_scopes import JAVA_BLOCKS, JAVA_FUNCTIONS, JavaScopes, ancestor

Verdict = Literal["exact", "name-only", "drop"]
STATIC_LANGUAGES: Final = frozenset({"go", "rust", "java"})

_GO_FUNCTIONS: Final = frozenset({"function_declaration", "method_declaration", "func_literal"})
_GO_BLOCKS: Final = frozenset(
    {
        "block",
        "if_statement",
        "for_statement",
        "type_switch_statement",
        "expression_switch_statement",
        "communication_case",
        "source_file",
    }
)
_RUST_FUNCTIONS: Final = frozenset({"function_item", "closure_expression"})
_RUST_BLOCKS: Final = frozenset(
    {"block", "for_expression", "match_arm", "if_expression", "while_expression"}
)
_RUST_LIBRARIES: Final = frozenset({"std", "core", "alloc"})
_CALLABLE_KINDS: Final = frozenset({"function", "method"})


class StaticScopes(JavaScopes):
    """Mixed into the file judge (``references._FileJudge``), which reads node text, caches
    each scope's names and knows the symbol asked for."""

    path: str
    bound_here: bool
    ancestry: Ancestry
    aliases: set[str]
    imports: list[ImportInfo]
    target_kinds: set[str]

    @abstractmethod
    def _text(self, node: Node) -> str: ...

    @abstractmethod
    def _bound(self, scope: Node, names_of: Callable[[Node], set[str]]) -> set[str]: ...

    @abstractmethod
    def _target_name(self) -> str: ...

    @abstractmethod
    def _module_level(self) -> set[str]: ...

    @abstractmethod
    def _containers(self) -> set[str]: ...

    @abstractmethod
    def _defining_files(self) -> set[str]: ...

    @abstractmethod
    def _is_member(self) -> bool: ...

    # --- shared ------------------------------------------------------------------------------
    def _static(self, node: Node, language: str) -> Verdict:
        if language == "go":
            return self._go(node)
        if language == "rust":
            return self._rust(node)
        return self._java(node)

    def _static_local(self, node: Node, name: str, language: str) -> Node | None:
        """The enclosing function, closure or block that binds ``name`` around ``node``."""
        functions, blocks, names_of = {
            "go": (_GO_FUNCTIONS, _GO_BLOCKS, self._go_scope),
            "rust": (_RUST_FUNCTIONS, _RUST_BLOCKS, self._rust_scope),
            "java": (JAVA_FUNCTIONS, JAVA_BLOCKS, self._java_scope),
        }[language]
        ancestor = node.parent
        while ancestor is not None:
            if ancestor.type in functions or ancestor.type in blocks:
                if ancestor.type == "source_file":
                    return None  # package level: the symbol's own scope
                if name in self._bound(ancestor, names_of):
                    return ancestor
            ancestor = ancestor.parent
        return None

    def _callable_only(self) -> bool:
        """Every definition is a function or method (never a type)."""
        return bool(self.target_kinds) and self.target_kinds <= _CALLABLE_KINDS

    def _same_directory(self) -> bool:
        folder = posixpath.dirname(self.path)
        return any(posixpath.dirname(p) == folder for p in self._module_level())

    def _settled(self) -> Verdict:
        return "exact" if self.bound_here else "name-only"

    # --- Go ----------------------------------------------------------------------------------
    def _go(self, node: Node) -> Verdict:
        parent = node.parent
        if parent is None:
            return "name-only"
        name = self._target_name()
        if node.type == "field_identifier":
            if parent.type == "selector_expression" and parent.child_by_field_name("field") == node:
                return self._go_selected(parent.child_by_field_name("operand"))
            if parent.type in ("method_declaration", "method_elem", "method_spec"):
                return "name-only" if self._is_member() else "drop"
            return "drop"  # a struct field, a literal's key: never an indexed definition
        if parent.type == "qualified_type" and parent.child_by_field_name("name") == node:
            return self._go_package(parent.child_by_field_name("package"))
        if node.type == "package_identifier" or parent.type in ("import_spec", "package_clause"):
            return "drop"  # a package's name
        if parent.type == "literal_element" and parent.parent is not None:
            keyed = parent.parent
            if keyed.type == "keyed_element" and keyed.named_children[0] == parent:
                return "drop"  # `Box{Name: 1}`: a field's key
        if self._static_local(node, name, "go") is not None:
            return "drop"
        if not self._module_level():
            return "drop"  # a method is reached only through a value: `x.Name`
        if self._same_directory():
            return "exact"  # one package, one directory
        if any(info.name == "." for info in self.imports):
            return "name-only"
        return "drop"  # an unqualified name another package defines is not visible here

    def _go_selected(self, operand: Node | None) -> Verdict:
        if operand is not None and operand.type == "identifier":
            package = self._go_import(self._text(operand))
            if package is not None and self._static_local(operand, package.name, "go") is None:
                return self._go_package(operand)
            if self._is_member() and self._go_type(operand) in self._containers():
                return "exact"  # `c.Println` with `c *Command`: Command's method
        return "name-only" if self._is_member() else "drop"

    def _go_type(self, operand: Node) -> str | None:
        """The named type of a parameter or local ``operand`` where the file writes it
        (``c *Command``, ``var c Command``, ``c := &Command{…}``); None otherwise. Another
        type may still have the method through embedding: only a match is used."""
        name = self._text(operand)
        scope = self._static_local(operand, name, "go")
        if scope is None:
            return None
        if scope.type in _GO_FUNCTIONS:
            for field in ("receiver", "parameters"):
                parameters = scope.child_by_field_name(field)
                for parameter in parameters.named_children if parameters is not None else ():
                    names = [self._text(n) for n in parameter.children_by_field_name("name")]
                    typed = parameter.child_by_field_name("type")
                    if name in names and typed is not None:
                        return _go_bare(self._text(typed))
            return None
        for declaration in _descendants(scope, "short_var_declaration"):
            left = declaration.child_by_field_name("left")
            right = declaration.child_by_field_name("right")
            if left is None or right is None or len(left.named_children) != 1:
                continue
            if self._text(left) == name and right.named_children:
                value = right.named_children[0]
                if value.type == "unary_expression" and value.named_children:
                    value = value.named_children[0]  # `&Box{…}`
                typed = value.child_by_field_name("type")
                if value.type == "composite_literal" and typed is not None:
                    return _go_bare(self._text(typed))
                return None
        for spec in _descendants(scope, "var_spec"):
            typed = spec.child_by_field_name("type")
            names = [self._text(n) for n in spec.children_by_field_name("name")]
            if name in names and typed is not None:
                return _go_bare(self._text(typed))
        return None

    def _go_import(self, local: str) -> ImportInfo | None:
        for info in self.imports:
            bound = info.name or info.from_.rsplit("/", 1)[-1]
            if bound == local:
                return info
        return None

    def _go_package(self, package: Node | None) -> Verdict:
        info = self._go_import(self._text(package)) if package is not None else None
        if info is None:
            return "name-only"
        if info.type != "internal" and "." not in info.from_.split("/", 1)[0]:
            return "drop"  # `fmt.Println`: the standard library's function
        if not info.resolved:
            # another module, or the project's own seen without its go.mod: cannot tell
            return "name-only"
        folder = posixpath.dirname(info.resolved)
        return (
            "exact" if any(posixpath.dirname(p) == folder for p in self._module_level()) else "drop"
        )

    def _go_scope(self, scope: Node) -> set[str]:
        names: set[str] = set()
        if scope.type in _GO_FUNCTIONS:
            for field in ("receiver", "parameters", "result"):
                parameters = scope.child_by_field_name(field)
                for parameter in parameters.named_children if parameters is not None else ():
                    names.update(self._text(n) for n in parameter.children_by_field_name("name"))
            return names
        self._go_declared(scope, names)
        alias = scope.child_by_field_name("alias")
        if alias is not None:
            names.update(self._identifiers(alias))
        return names

    def _go_declared(self, node: Node, names: set[str]) -> None:
        for child in node.named_children:
            kind = child.type
            if kind in ("short_var_declaration", "range_clause", "receive_statement"):
                left = child.child_by_field_name("left")
                if left is not None:
                    names.update(self._identifiers(left))
            elif kind in ("var_spec", "const_spec", "type_spec", "type_alias"):
                names.update(self._text(n) for n in child.children_by_field_name("name"))
            elif (
                kind
                in (
                    "statement_list",
                    "for_clause",
                    "var_declaration",
                    "const_declaration",
                    "type_declaration",
                    "var_spec_list",
                    "ERROR",
                )
                or kind == "labeled_statement"
            ):
                self._go_declared(child, names)

    # --- Rust --------------------------------------------------------------------------------
    def _rust(self, node: Node) -> Verdict:
        parent = node.parent
        if parent is None:
            return "name-only"
        if ancestor(node, "token_tree") is not None:
            # a macro's arguments or body: tokens, not a tree the scopes can be read from
            return "exact" if self.bound_here or self.path in self._module_level() else "name-only"
        use = ancestor(node, "use_declaration")
        if use is not None:
            return self._rust_use(node, use)
        if node.type == "field_identifier":
            if parent.type == "field_expression":
                if not self._is_member():
                    return "drop"  # `x.run`: a field or method, and the symbol is neither
                called = parent.parent
                if self._callable_only() and (
                    called is None
                    or called.type != "call_expression"
                    or called.child_by_field_name("function") != parent
                ):
                    return "drop"  # `self.octal` with no call: a field (its own namespace)
                value = parent.child_by_field_name("value")
                if value is not None and value.type == "self":
                    impl = ancestor(parent, "impl_item")
                    owner = impl.child_by_field_name("type") if impl is not None else None
                    if owner is not None and bare_type(self._text(owner)) in self._containers():
                        return "exact"
                return "name-only"
            return "drop"  # a struct field's declaration or initializer
        if parent.type == "enum_variant" and parent.child_by_field_name("name") == node:
            return "drop"  # a variant's declaration: an item of the enum's own
        if parent.type in ("scoped_identifier", "scoped_type_identifier"):
            if parent.child_by_field_name("name") == node:
                return self._rust_path(parent.child_by_field_name("path"))
            if self._callable_only():
                return "drop"  # a path's segment is a module or a type, not a function
        if self._static_local(node, self._target_name(), "rust") is not None:
            return "drop"
        if node.type == "identifier" and parent.type in ("field_initializer", "field_pattern"):
            return "drop"
        if self._callable_only() and not self._module_level():
            return "drop"  # a method is reached through a value or a type, never bare
        if self.bound_here or self.path in self._module_level():
            return "exact"
        if any(info.from_.endswith("*") for info in self.imports):
            return "name-only"  # `use super::*`
        return "drop"

    def _rust_use(self, node: Node, use: Node) -> Verdict:
        path = self._text(use).removeprefix("pub ").removeprefix("use ").lstrip()
        root = path.split("::", 1)[0].lstrip(":{ ")
        if root in _RUST_LIBRARIES:
            return "drop"  # `use std::collections::HashMap`
        parent = node.parent
        if parent is not None and parent.type == "use_as_clause":
            alias = parent.child_by_field_name("alias")
            if alias == node:
                return "drop"  # the alias itself is another name
            if alias is not None:
                self.aliases.add(self._text(alias))
        elif parent is not None and parent.type == "scoped_identifier":
            if parent.child_by_field_name("name") != node and self._callable_only():
                return "drop"  # `use crate::run::X`: a module so named
            grand = parent.parent
            if grand is not None and grand.type == "use_as_clause":
                alias = grand.child_by_field_name("alias")
                if alias is not None and parent == grand.child_by_field_name("path"):
                    self.aliases.add(self._text(alias))
        return "exact" if root in ("crate", "self", "super") else "name-only"

    def _rust_path(self, path: Node | None) -> Verdict:
        if path is None:
            return "name-only"
        text = self._text(path)
        root = text.split("::", 1)[0]
        if root in _RUST_LIBRARIES:
            return "drop"
        owner = bare_type(text.rsplit("::", 1)[-1])
        if owner == "Self":
            impl = ancestor(path, "impl_item")
            typed = impl.child_by_field_name("type") if impl is not None else None
            owner = bare_type(self._text(typed)) if typed is not None else owner
        if owner in self._containers():
            return "exact"
        if self.ancestry.is_class(owner):
            return "drop"  # `GroupKind::CaptureName`, `Flags::default()`: the type's own item
        if root in ("crate", "self", "super") and self._module_level():
            return "exact"
        if self._module_level() and any(
            info.type == "internal" and info.name == root for info in self.imports
        ):
            return "exact"  # `ast::Name` through `use crate::ast;`
        return "name-only"

    def _rust_scope(self, scope: Node) -> set[str]:
        names: set[str] = set()
        kind = scope.type
        if kind == "function_item":
            parameters = scope.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else ():
                pattern = parameter.child_by_field_name("pattern")
                if pattern is not None:
                    names.update(self._rust_pattern(pattern))
        elif kind == "closure_expression":
            parameters = scope.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else ():
                pattern = parameter.child_by_field_name("pattern") or parameter
                names.update(self._rust_pattern(pattern))
        elif kind == "block":
            for statement in scope.named_children:
                if statement.type == "let_declaration":
                    pattern = statement.child_by_field_name("pattern")
                    if pattern is not None:
                        names.update(self._rust_pattern(pattern))
        elif kind in ("for_expression", "match_arm"):
            pattern = scope.child_by_field_name("pattern")
            if pattern is not None:
                names.update(self._rust_pattern(pattern))
        else:  # `if let` / `while let`: the condition's pattern binds in the body
            condition = scope.child_by_field_name("condition")
            for part in _descendants(condition, "let_condition"):
                pattern = part.child_by_field_name("pattern")
                if pattern is not None:
                    names.update(self._rust_pattern(pattern))
        return names

    def _rust_pattern(self, pattern: Node) -> set[str]:
        """Identifiers a pattern binds (not the type a tuple-struct pattern names)."""
        if pattern.type == "identifier":
            return {self._text(pattern)}
        names: set[str] = set()
        for index, child in enumerate(pattern.children):
            field = pattern.field_name_for_child(index)
            if (
                child.is_named
                and field not in ("type", "path")
                and child.type != "scoped_identifier"
            ):
                names |= self._rust_pattern(child)
        return names

    # --- helpers -----------------------------------------------------------------------------
    def _identifiers(self, node: Node) -> set[str]:
        if node.type == "identifier":
            return {self._text(node)}
        return {self._text(c) for c in node.named_children if c.type == "identifier"}


def _go_bare(text: str) -> str:
    """``*pkg.Box`` -> ``Box``."""
    return bare_type(text.lstrip("*& "))


def _descendants(node: Node | None, kind: str) -> list[Node]:
    if node is None:
        return []
    if node.type == kind:
        return [node]
    return [found for child in node.named_children for found in _descendants(child, kind)]
