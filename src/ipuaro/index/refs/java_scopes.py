"""The Java part of the reference judge for statically scoped languages (``static_scopes``):
methods live in a namespace of their own (only ``name(…)``, ``x.name(…)``, ``X::name`` and
declarations are a method), a call's receiver class (``this``, ``super``, a typed local or
parameter, a class name) is checked against the declaring classes' ancestry, and a name
imported from outside the project (``import java.util.List``) is not the project's."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Final, Literal

from tree_sitter import Node

from ipuaro.domain.files import ImportInfo
from ipuaro.index.refs.ancestry import Ancestry, bare_type

Verdict = Literal["exact", "name-only", "drop"]

JAVA_FUNCTIONS: Final = frozenset(
    {"method_declaration", "constructor_declaration", "lambda_expression"}
)
JAVA_BLOCKS: Final = frozenset(
    {
        "block",
        "constructor_body",
        "switch_block_statement_group",
        "for_statement",
        "enhanced_for_statement",
        "catch_clause",
        "try_with_resources_statement",
    }
)
_JAVA_CLASSES: Final = frozenset(
    {"class_declaration", "enum_declaration", "record_declaration", "interface_declaration"}
)


class JavaScopes(ABC):
    """Mixed into ``StaticScopes`` (and through it the file judge)."""

    path: str
    bound_here: bool
    ancestry: Ancestry
    imports: list[ImportInfo]

    @abstractmethod
    def _text(self, node: Node) -> str: ...

    @abstractmethod
    def _target_name(self) -> str: ...

    @abstractmethod
    def _defining_files(self) -> set[str]: ...

    @abstractmethod
    def _callable_only(self) -> bool: ...

    @abstractmethod
    def _same_directory(self) -> bool: ...

    @abstractmethod
    def _static_local(self, node: Node, name: str, language: str) -> Node | None: ...

    # --- Java --------------------------------------------------------------------------------
    def _java(self, node: Node) -> Verdict:
        parent = node.parent
        if parent is None:
            return "name-only"
        declaration = ancestor(node, "import_declaration")
        if declaration is not None:
            return self._java_import(node, declaration)
        if self._callable_only():
            return self._java_method(node, parent)
        if self._static_local(node, self._target_name(), "java") is not None:
            return "drop"
        if self._foreign():
            return "drop"  # `import java.util.List`: the JDK's List here
        if self.bound_here or self._same_directory() or self.path in self._defining_files():
            return "exact"  # a nested class used in its own file counts too
        return "name-only"

    def _java_import(self, node: Node, declaration: Node) -> Verdict:
        text = self._text(declaration)
        info = next((i for i in self.imports if i.from_ and i.from_ in text), None)
        if info is not None and info.type != "internal":
            return "drop"
        parent = node.parent
        last = parent is not None and parent.child_by_field_name("name") == node
        if not last and self._callable_only():
            return "drop"  # a package or class segment
        return "exact" if info is not None else "name-only"

    def _java_method(self, node: Node, parent: Node) -> Verdict:
        if parent.type == "method_declaration" and parent.child_by_field_name("name") == node:
            return self._java_class_verdict(_enclosing_java_class(parent))  # an override?
        if parent.type == "method_reference":
            return "name-only"
        if parent.type != "method_invocation" or parent.child_by_field_name("name") != node:
            return "drop"  # a variable or field: methods have their own namespace
        receiver = parent.child_by_field_name("object")
        if receiver is None or receiver.type == "this":
            verdict = self._java_class_verdict(_enclosing_java_class(parent))
            if verdict != "exact" and receiver is None and self._statically_imported():
                return "exact"
            return verdict
        if receiver.type == "super":
            cls = _enclosing_java_class(parent)
            base = cls.child_by_field_name("superclass") if cls is not None else None
            if base is None:
                return "name-only"
            return self.ancestry.verdict(bare_type(self._text(base).removeprefix("extends ")))
        if receiver.type == "identifier":
            declared = self._java_declared(receiver, self._text(receiver))
            if declared is not None:
                return self.ancestry.verdict(declared) if declared else "name-only"
            if self.ancestry.is_class(self._text(receiver)):
                return self.ancestry.verdict(self._text(receiver))  # `Helper.run()`
        return "name-only"

    def _java_class_verdict(self, cls: Node | None) -> Verdict:
        named = cls.child_by_field_name("name") if cls is not None else None
        if named is None:
            return "name-only"  # an anonymous class: its supertype is in `new X() {…}`
        return self.ancestry.verdict(self._text(named))

    def _statically_imported(self) -> bool:
        name = self._target_name()
        return any(
            info.type == "internal" and info.from_.endswith("." + name) for info in self.imports
        )

    def _foreign(self) -> bool:
        name = self._target_name()
        return any(
            info.type != "internal" and info.from_.endswith("." + name) for info in self.imports
        ) and not any(
            info.type == "internal" and info.from_.endswith("." + name) for info in self.imports
        )

    def _java_declared(self, node: Node, name: str) -> str | None:
        """The declared class of a local or parameter ``name`` around ``node`` ("" when its
        type is no class name), None when none binds it."""
        ancestor = node.parent
        while ancestor is not None:
            if ancestor.type in JAVA_FUNCTIONS or ancestor.type in JAVA_BLOCKS:
                for declarator, typed in self._java_declarations(ancestor):
                    if self._text(declarator) == name:
                        kind = typed.type if typed is not None else ""
                        if kind in ("type_identifier", "generic_type", "scoped_type_identifier"):
                            return bare_type(self._text(typed)) if typed is not None else ""
                        return ""
            if ancestor.type in _JAVA_CLASSES:
                return None
            ancestor = ancestor.parent
        return None

    def _java_declarations(self, scope: Node) -> Iterable[tuple[Node, Node | None]]:
        """(name, type) of what ``scope`` declares: parameters and local variables."""
        for child in scope.named_children:
            if child.type in ("formal_parameters", "inferred_parameters"):
                for parameter in child.named_children:
                    named = parameter.child_by_field_name("name")
                    if named is not None:
                        yield named, parameter.child_by_field_name("type")
                    elif parameter.type == "identifier":
                        yield parameter, None
            elif child.type in ("local_variable_declaration", "resource"):
                typed = child.child_by_field_name("type")
                for declarator in child.children_by_field_name("declarator"):
                    named = declarator.child_by_field_name("name")
                    if named is not None:
                        yield named, typed
                named = child.child_by_field_name("name")
                if named is not None:
                    yield named, typed
            elif child.type == "resource_specification":
                yield from self._java_declarations(child)
            elif child.type == "catch_formal_parameter":
                named = child.child_by_field_name("name")
                if named is not None:
                    yield named, None
        if scope.type in ("enhanced_for_statement", "lambda_expression"):
            named = scope.child_by_field_name("name")
            if named is None and scope.type == "lambda_expression":
                named = scope.child_by_field_name("parameters")
                named = named if named is not None and named.type == "identifier" else None
            if named is not None:
                yield named, scope.child_by_field_name("type")
        if scope.type == "for_statement":
            init = scope.child_by_field_name("init")
            if init is not None and init.type == "local_variable_declaration":
                typed = init.child_by_field_name("type")
                for declarator in init.children_by_field_name("declarator"):
                    named = declarator.child_by_field_name("name")
                    if named is not None:
                        yield named, typed

    def _java_scope(self, scope: Node) -> set[str]:
        return {self._text(named) for named, _ in self._java_declarations(scope)}


def ancestor(node: Node, kind: str) -> Node | None:
    """The nearest enclosing node of ``kind``."""
    found = node.parent
    while found is not None and found.type != kind:
        found = found.parent
    return found


def _enclosing_java_class(node: Node) -> Node | None:
    ancestor = node.parent
    while ancestor is not None:
        if ancestor.type in _JAVA_CLASSES:
            return ancestor
        owner = ancestor.parent if ancestor.type == "class_body" else None
        if owner is not None and owner.type == "object_creation_expression":
            return None  # an anonymous class
        ancestor = ancestor.parent
    return None
