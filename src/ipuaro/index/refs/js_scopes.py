"""Names a JavaScript/TypeScript function, block or type binds, for the reference judge
(``references``): parameters (destructuring patterns included), block declarations, type
parameters and ``infer`` variables. Each scope's names are computed once by the judge."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Final

from tree_sitter import Node

_JS_FUNCTIONS: Final = frozenset(
    {
        "function_declaration",
        "function_expression",
        "function",
        "generator_function_declaration",
        "generator_function",
        "arrow_function",
        "method_definition",
        # signatures bind their parameters too (overloads, interfaces, .d.ts, function types)
        "function_signature",
        "method_signature",
        "abstract_method_signature",
        "call_signature",
        "construct_signature",
        "function_type",
        "constructor_type",
    }
)
_JS_SCOPES: Final = frozenset(
    {"statement_block", "for_statement", "for_in_statement", "catch_clause", "switch_case"}
)
JS_DECLARATIONS: Final = frozenset({"lexical_declaration", "variable_declaration"})
_JS_NAMED: Final = frozenset(
    {"function_declaration", "generator_function_declaration", "class_declaration"}
)
_JS_TYPE_OWNERS: Final = frozenset(
    {
        "function_declaration",
        "function_signature",
        "method_definition",
        "method_signature",
        "arrow_function",
        "class_declaration",
        "abstract_class_declaration",
        "interface_declaration",
        "type_alias_declaration",
        "call_signature",
        "construct_signature",
        "function_type",
        "constructor_type",
    }
)


class JsScopes(ABC):
    """Mixed into the file judge, which reads node text and caches each scope's names."""

    root: Node

    @abstractmethod
    def _text(self, node: Node) -> str: ...

    def _binder(self, kind: str, type_name: bool) -> Callable[[Node], set[str]] | None:
        """What a node of ``kind`` binds for a name used as a type or as a value."""
        if type_name:
            if kind == "conditional_type":
                return self._inferred
            return self._type_parameters if kind in _JS_TYPE_OWNERS else None
        if kind in _JS_FUNCTIONS:
            return self._parameters
        return self._block_bindings if kind in _JS_SCOPES else None

    def _in_local_scope(self, node: Node) -> bool:
        ancestor = node.parent
        while ancestor is not None:
            if ancestor.type in _JS_FUNCTIONS or ancestor.type in _JS_SCOPES:
                return True
            ancestor = ancestor.parent
        return False

    def _inferred(self, conditional: Node) -> set[str]:
        """Type variables ``infer X`` binds in a conditional type's ``extends`` side."""
        names: set[str] = set()
        right = conditional.child_by_field_name("right")
        stack = [right] if right is not None else []
        while stack:
            node = stack.pop()
            if node.type == "infer_type":
                names.update(self._text(c) for c in node.named_children[:1])
            stack += node.named_children
        return names

    def _type_parameters(self, owner: Node) -> set[str]:
        parameters = owner.child_by_field_name("type_parameters")
        if parameters is None:
            return set()
        names = set()
        for parameter in parameters.named_children:
            named = parameter.child_by_field_name("name")
            if named is not None:
                names.add(self._text(named))
        return names

    def _parameters(self, function: Node) -> set[str]:
        names: set[str] = set()
        single = function.child_by_field_name("parameter")  # `x => …`
        if single is not None:
            self._pattern_names(single, names)
        parameters = function.child_by_field_name("parameters")
        if parameters is not None:
            for parameter in parameters.named_children:
                pattern = parameter.child_by_field_name("pattern") or parameter
                self._pattern_names(pattern, names)
        return names

    def _block_bindings(self, block: Node) -> set[str]:
        names: set[str] = set()
        for child in block.named_children:
            kind = child.type
            if kind in JS_DECLARATIONS:
                for declarator in child.named_children:
                    if declarator.type == "variable_declarator":
                        pattern = declarator.child_by_field_name("name")
                        if pattern is not None:
                            self._pattern_names(pattern, names)
            elif kind in _JS_NAMED:
                named = child.child_by_field_name("name")
                if named is not None:
                    names.add(self._text(named))
        for field in ("left", "initializer", "parameter"):  # for (x of …), for (let i…), catch
            bound = block.child_by_field_name(field)
            if bound is not None:
                if bound.type in JS_DECLARATIONS:
                    for declarator in bound.named_children:
                        pattern = declarator.child_by_field_name("name")
                        if pattern is not None:
                            self._pattern_names(pattern, names)
                elif block.type != "for_in_statement" or field != "left" or self._declares(block):
                    self._pattern_names(bound, names)
        return names

    def _declares(self, loop: Node) -> bool:
        kind = loop.child_by_field_name("kind")  # for (const x of …) vs for (x of …)
        return kind is not None

    def _pattern_names(self, pattern: Node, names: set[str]) -> None:
        kind = pattern.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            names.add(self._text(pattern))
        elif kind in ("object_pattern", "array_pattern", "rest_pattern"):
            for child in pattern.named_children:
                self._pattern_names(child, names)
        elif kind == "pair_pattern":
            value = pattern.child_by_field_name("value")
            if value is not None:
                self._pattern_names(value, names)
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            left = pattern.child_by_field_name("left")
            if left is not None:
                self._pattern_names(left, names)
        elif kind in ("required_parameter", "optional_parameter"):
            inner = pattern.child_by_field_name("pattern")
            if inner is not None:
                self._pattern_names(inner, names)
