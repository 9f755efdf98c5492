"""TypeScript/JavaScript functions and classes: parameters, modifiers, members, line spans.

Spans: a definition starts at its first decorator or at ``export`` when exported, and ends on the
line of its closing token. An overloaded function or method is recorded once, with the span of its
implementation; signatures without an implementation (``.d.ts``, ``declare``) are recorded once
from the first to the last signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tree_sitter import Node

from ipuaro.domain.files import ClassInfo, FunctionInfo, MethodInfo, PropertyInfo, Visibility
from ipuaro.index.parsers._source import (
    Collected,
    MethodKind,
    Scope,
    Source,
    end_line,
    shorten,
    start_line,
    type_text,
)
from ipuaro.index.parsers._trusted import trusted

FUNCTION_VALUES: Final = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
CLASS_NODES: Final = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_METHODS: Final = frozenset({"method_definition", "method_signature", "abstract_method_signature"})
_SIGNATURES: Final = frozenset({"method_signature", "abstract_method_signature"})
_FIELDS: Final = frozenset({"public_field_definition", "field_definition"})
_PARAMETER_WRAPPERS: Final = frozenset({"required_parameter", "optional_parameter"})


def name_of(source: Source, node: Node, default: str = "default") -> str:
    name = node.child_by_field_name("name")
    return source.text(name) if name is not None else default


def parameters(source: Source, node: Node) -> tuple[list[str], dict[str, str]]:
    """Parameter names as written (``a``, ``a?``, ``...rest``, a shortened ``{a, b}`` pattern;
    types and default values left out) and the defaults keyed by name (``{"retries": "3"}`` for
    ``retries = 3`` / ``retries: number = 3``): one pass over the parameter list."""
    parameters = node.child_by_field_name("parameters")
    if parameters is None:
        single = node.child_by_field_name("parameter")  # `x => x`
        return ([source.text(single)] if single is not None else []), {}
    names: list[str] = []
    found: dict[str, str] = {}
    for child in parameters.named_children:
        kind = child.type
        if kind in _PARAMETER_WRAPPERS:
            pattern = child.child_by_field_name("pattern")
            if pattern is None:
                continue
            name = shorten(source.text(pattern))
            names.append(name + "?" if kind == "optional_parameter" else name)
            value = child.child_by_field_name("value")
            if value is not None:
                found[name] = shorten(source.text(value))
        elif kind == "assignment_pattern":
            left = child.child_by_field_name("left")
            name = shorten(source.text(left if left is not None else child))
            names.append(name)
            right = child.child_by_field_name("right")
            if left is not None and right is not None:
                found[name] = shorten(source.text(right))
        elif kind != "comment":
            names.append(shorten(source.text(child)))
    return names, found


def modifiers(source: Source, node: Node, stop_byte: int) -> tuple[set[str], Visibility | None]:
    """Keywords before ``stop_byte`` (``async``, ``static``, ``get``…) and the accessibility."""
    keywords: set[str] = set()
    visibility: Visibility | None = None
    for child in node.children:
        if child.start_byte >= stop_byte:
            break
        kind = child.type
        if kind == "accessibility_modifier":
            text = source.text(child)
            if text in ("public", "private", "protected"):
                visibility = text  # type: ignore[assignment]  # narrowed by the membership test
        elif kind != "decorator":
            keywords.add(kind)
    return keywords, visibility


def decorators(source: Source, nodes: Sequence[Node]) -> list[str]:
    """Decorator expressions (``Component({...})``, no ``@``), whitespace collapsed."""
    texts: list[str] = []
    for node in nodes:
        expression = next((c for c in node.named_children if c.type != "comment"), node)
        texts.append(shorten(source.text(expression), 120))
    return texts


def child_decorators(node: Node) -> list[Node]:
    return [child for child in node.children if child.type == "decorator"]


def function_info(
    source: Source,
    collected: Collected,
    name: str,
    node: Node,
    *,
    start: Node,
    end: Node | None = None,
    exported: bool,
    container: str | None,
) -> None:
    """Record a function whose code is ``node`` (a declaration, arrow or function expression);
    its span runs from ``start`` to ``end`` (the declarator of a ``const f = () => …``)."""
    body_start = _params_start(node)
    keywords, _ = modifiers(source, node, body_start)
    last = end if end is not None else node
    line_start, line_end = start_line(start), end_line(last)
    names, defaults = parameters(source, node)
    collected.functions.append(
        trusted(
            FunctionInfo,
            name=name,
            line_start=line_start,
            line_end=line_end,
            params=names,
            defaults=defaults,
            return_type=type_text(source, node.child_by_field_name("return_type")),
            is_async="async" in keywords,
            is_exported=exported,
            decorators=decorators(source, child_decorators(start)),
        )
    )
    collected.symbol(name, "function", line_start, line_end, container)
    collected.scopes.append(Scope(start.start_byte, last.end_byte, name))


def signatures_info(
    source: Source,
    collected: Collected,
    group: list[tuple[Node, Node, bool]],
    container: str | None,
) -> None:
    """Overload signatures with no implementation (ambient code): one function, all lines."""
    first, first_outer, _ = group[0]
    last = group[-1][1]
    name = name_of(source, first)
    function_info(
        source,
        collected,
        name,
        first,
        start=first_outer,
        end=last,
        exported=any(exported for _, _, exported in group),
        container=container,
    )


def _params_start(node: Node) -> int:
    name = node.child_by_field_name("name")
    if name is not None:
        return name.start_byte
    parameters = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
    return parameters.start_byte if parameters is not None else node.end_byte


def class_info(
    source: Source,
    collected: Collected,
    name: str,
    node: Node,
    *,
    start: Node,
    exported: bool,
    container: str | None,
) -> None:
    """Record a class (declaration or class expression) with its members."""
    extends, implements = _heritage(source, node)
    decorator_nodes = child_decorators(start) if start is not node else []
    decorator_nodes += child_decorators(node)
    info = trusted(
        ClassInfo,
        name=name,
        line_start=start_line(start),
        line_end=end_line(node),
        extends=extends,
        implements=implements,
        is_exported=exported,
        is_abstract=node.type == "abstract_class_declaration",
        decorators=decorators(source, decorator_nodes),
    )
    collected.classes.append(info)
    collected.symbol(name, "class", info.line_start, info.line_end, container)
    collected.scopes.append(Scope(start.start_byte, node.end_byte, name))
    body = node.child_by_field_name("body")
    if body is not None:
        _Members(source, collected, info).read(body)


def _heritage(source: Source, node: Node) -> tuple[str | None, list[str]]:
    """``extends`` and ``implements`` as bare names (type arguments dropped)."""
    extends: str | None = None
    implements: list[str] = []
    for child in node.children:
        if child.type != "class_heritage":
            continue
        for clause in child.named_children:
            if clause.type == "extends_clause":
                value = clause.child_by_field_name("value")
                if value is not None:
                    extends = shorten(source.text(value), 120)
            elif clause.type == "implements_clause":
                for implemented in clause.named_children:
                    base = implemented.child_by_field_name("name") or implemented
                    implements.append(shorten(source.text(base), 120))
            elif clause.type != "comment" and extends is None:
                extends = shorten(source.text(clause), 120)  # JavaScript: `extends <expr>`
    return extends, implements


class _Members:
    """Walks one class body; decorators are siblings before the member they decorate."""

    def __init__(self, source: Source, collected: Collected, info: ClassInfo) -> None:
        self.source = source
        self.collected = collected
        self.info = info
        self.signatures: list[tuple[Node, list[Node]]] = []

    def read(self, body: Node) -> None:
        pending: list[Node] = []
        for member in body.named_children:
            kind = member.type
            if kind == "decorator":
                pending.append(member)
                continue
            if kind == "comment":
                continue
            member_decorators = pending + child_decorators(member)
            pending = []
            if kind in _SIGNATURES:
                self._signature(member, member_decorators)
                continue
            if kind == "method_definition":
                self._definition(member, member_decorators)
                continue
            self._flush()
            if kind in _FIELDS:
                self._field(member, member_decorators)
        self._flush()

    def _signature(self, member: Node, member_decorators: list[Node]) -> None:
        if self.signatures and self._key(self.signatures[0][0]) != self._key(member):
            self._flush()
        self.signatures.append((member, member_decorators))
        if member.type == "abstract_method_signature":
            self._flush()  # abstract members have no implementation to wait for

    def _definition(self, member: Node, member_decorators: list[Node]) -> None:
        if self.signatures and self._key(self.signatures[0][0]) == self._key(member):
            self.signatures = []  # the implementation stands for its overloads
        self._flush()
        self._method(member, member, member_decorators)

    def _flush(self) -> None:
        if self.signatures:
            first, first_decorators = self.signatures[0]
            self._method(first, self.signatures[-1][0], first_decorators)
            self.signatures = []

    def _key(self, member: Node) -> tuple[str, frozenset[str]]:
        name = name_of(self.source, member, "")
        stop = member.child_by_field_name("name")
        keywords, _ = modifiers(self.source, member, stop.start_byte if stop else 0)
        return name, frozenset(keywords & {"get", "set", "static"})

    def _method(self, member: Node, last: Node, member_decorators: list[Node]) -> None:
        source = self.source
        name_node = member.child_by_field_name("name")
        name = source.text(name_node) if name_node is not None else ""
        keywords, visibility = modifiers(
            source, member, name_node.start_byte if name_node else member.end_byte
        )
        kind: MethodKind
        if name == "constructor":
            kind = "constructor"
            self._parameter_properties(member)
        elif "get" in keywords:
            kind = "getter"
        elif "set" in keywords:
            kind = "setter"
        else:
            kind = "method"
        self._add_method(
            name,
            member,
            member_decorators[0] if member_decorators else member,
            last,
            visibility or ("private" if name.startswith("#") else "public"),
            is_static="static" in keywords,
            is_async="async" in keywords,
            kind=kind,
            decorator_nodes=member_decorators,
        )

    def _add_method(
        self,
        name: str,
        code: Node,
        first: Node,
        last: Node,
        visibility: Visibility,
        *,
        is_static: bool,
        is_async: bool,
        kind: MethodKind,
        decorator_nodes: list[Node],
    ) -> None:
        names, defaults = parameters(self.source, code)
        method = trusted(
            MethodInfo,
            name=name,
            line_start=start_line(first),
            line_end=end_line(last),
            params=names,
            defaults=defaults,
            return_type=type_text(self.source, code.child_by_field_name("return_type")),
            visibility=visibility,
            is_static=is_static,
            is_async=is_async,
            kind=kind,
            decorators=decorators(self.source, decorator_nodes),
        )
        self.info.methods.append(method)
        class_name = self.info.name
        self.collected.symbol(name, "method", method.line_start, method.line_end, class_name)
        self.collected.scopes.append(Scope(first.start_byte, last.end_byte, f"{class_name}.{name}"))

    def _field(self, member: Node, member_decorators: list[Node]) -> None:
        """A field; one initialised with an arrow or function expression is a method."""
        source = self.source
        name_node = member.child_by_field_name("name") or member.child_by_field_name("property")
        if name_node is None:
            return
        name = source.text(name_node)
        keywords, visibility = modifiers(source, member, name_node.start_byte)
        visibility = visibility or ("private" if name.startswith("#") else "public")
        value = member.child_by_field_name("value")
        if value is not None and value.type in FUNCTION_VALUES:
            keywords_value, _ = modifiers(source, value, _params_start(value))
            self._add_method(
                name,
                value,
                member_decorators[0] if member_decorators else member,
                member,
                visibility,
                is_static="static" in keywords,
                is_async="async" in keywords_value,
                kind="method",
                decorator_nodes=member_decorators,
            )
            return
        self.info.properties.append(
            trusted(
                PropertyInfo,
                name=name,
                line=start_line(name_node),
                type=type_text(source, member.child_by_field_name("type")),
                visibility=visibility,
                is_static="static" in keywords,
                is_readonly="readonly" in keywords,
            )
        )

    def _parameter_properties(self, constructor: Node) -> None:
        """``constructor(private readonly svc: Svc)`` declares the property ``svc``."""
        parameters = constructor.child_by_field_name("parameters")
        if parameters is None:
            return
        for parameter in parameters.named_children:
            if parameter.type not in _PARAMETER_WRAPPERS:
                continue
            pattern = parameter.child_by_field_name("pattern")
            if pattern is None:
                continue
            keywords, visibility = modifiers(self.source, parameter, pattern.start_byte)
            if visibility is None and "readonly" not in keywords:
                continue
            self.info.properties.append(
                trusted(
                    PropertyInfo,
                    name=self.source.text(pattern),
                    line=start_line(pattern),
                    type=type_text(self.source, parameter.child_by_field_name("type")),
                    visibility=visibility or "public",
                    is_readonly="readonly" in keywords,
                )
            )
