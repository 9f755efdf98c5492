"""What the value of a ``const x = …`` is: a function behind wrappers, a required module, or
the names a destructuring pattern binds."""

from __future__ import annotations

from typing import Final

from tree_sitter import Node

from ipuaro.index.parsers._source import Source
from ipuaro.index.parsers._ts_members import FUNCTION_VALUES

# React component wrappers: `const Button = memo(forwardRef((props, ref) => …))` is a function.
_COMPONENT_WRAPPERS: Final = frozenset({"memo", "forwardRef", "observer"})
_PATTERN_NAMES: Final = frozenset(
    {"identifier", "shorthand_property_identifier_pattern", "shorthand_property_identifier"}
)


def function_value(value: Node | None) -> Node | None:
    """Look through parentheses and component wrappers: ``memo(forwardRef((p, r) => …))``."""
    while value is not None:
        kind = value.type
        if kind == "parenthesized_expression":
            value = value.named_child(0)
        elif kind == "call_expression":
            callee = value.child_by_field_name("function")
            arguments = value.child_by_field_name("arguments")
            if callee is None or arguments is None or arguments.named_child_count == 0:
                return value
            last = (
                callee.child_by_field_name("property")
                if callee.type == "member_expression"
                else callee
            )
            first = arguments.named_child(0)
            if (
                last is None
                or first is None
                or last.text is None
                or last.text.decode("utf-8", "replace") not in _COMPONENT_WRAPPERS
                or first.type not in FUNCTION_VALUES | {"call_expression"}
            ):
                return value
            value = first
        else:
            return value
    return None


def required_module(value: Node | None) -> Node | None:
    """The specifier node of ``require('m')``, ``await import('m')`` or ``require('m').x``."""
    if value is None:
        return None
    if value.type == "await_expression":
        value = value.named_child(0)
    elif value.type == "member_expression":
        value = value.child_by_field_name("object")
    if value is None or value.type != "call_expression":
        return None
    callee = value.child_by_field_name("function")
    arguments = value.child_by_field_name("arguments")
    if callee is None or arguments is None:
        return None
    if callee.type != "import" and not (callee.type == "identifier" and callee.text == b"require"):
        return None
    first = arguments.named_child(0)
    if first is None or first.type != "string":
        return None
    return first.named_child(0)  # string_fragment


def pattern_names(source: Source, pattern: Node) -> list[str]:
    """Names bound by a destructuring pattern, depth-first."""
    names: list[str] = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        if node.type in _PATTERN_NAMES:
            names.append(source.text(node))
        elif node.type == "pair_pattern":
            value = node.child_by_field_name("value")
            if value is not None:
                stack.append(value)
        elif node.type == "assignment_pattern":
            left = node.child_by_field_name("left")
            if left is not None:
                stack.append(left)
        else:
            stack.extend(reversed(node.named_children))
    return names
