"""Python: imports, module-level functions and classes, exports.

Decisions: definitions under module-level ``if``/``try``/``with`` count as module level; nested
functions are not recorded, nested classes only as symbols (container = outer class). Spans include
decorators. Exports are the names in ``__all__`` when the module defines it, otherwise every
module-level function, class and variable whose name does not start with ``_``. Properties are
class-level assignments (a plain ``x = 1`` is a static class attribute; ``x: int`` is an instance
field unless annotated ``ClassVar``; ``Final`` is read-only) and ``self.x`` assignments in
``__init__``. ``extends`` is the first base class, ``implements`` the others; ``staticmethod`` and
``classmethod`` are static; ``property``/``cached_property`` are getters, ``@x.setter`` setters.
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Node

from ipuaro.domain.files import (
    ClassInfo,
    FunctionInfo,
    ImportInfo,
    MethodInfo,
    PropertyInfo,
    TypeInfo,
    Visibility,
)
from ipuaro.index.parsers._classify import classify_python
from ipuaro.index.parsers._source import (
    MAX_DEPTH,
    SHORT_PARAM,
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

_COMPOUND_CLAUSES: Final = frozenset(
    {"elif_clause", "else_clause", "except_clause", "except_group_clause", "finally_clause"}
)
_COMPOUND: Final = frozenset(
    {"if_statement", "try_statement", "with_statement", "for_statement", "while_statement"}
)
_STATIC_DECORATORS: Final = frozenset({"staticmethod", "classmethod"})
_GETTER_DECORATORS: Final = frozenset(
    {"property", "cached_property", "functools.cached_property", "abc.abstractproperty"}
)
_ABSTRACT_DECORATORS: Final = frozenset({"abstractmethod", "abc.abstractmethod"})
_ABSTRACT_MARKERS: Final = frozenset({"ABC", "abc.ABC", "ABCMeta", "abc.ABCMeta"})
_PARAMETER_NAMED: Final = frozenset({"default_parameter", "typed_default_parameter"})


def visibility(name: str) -> Visibility:
    """``__x`` private, ``_x`` protected, dunder and plain names public."""
    if name.startswith("__") and not name.endswith("__"):
        return "private"
    if name.startswith("_") and not name.startswith("__"):
        return "protected"
    return "public"


class PythonReader:
    """Reads one Python syntax tree into a :class:`Collected`."""

    def __init__(self, source: Source, collected: Collected) -> None:
        self.source = source
        self.collected = collected
        self.all_names: list[tuple[str, int]] | None = None
        self.public: list[tuple[str, int]] = []
        self.depth = 0

    def read(self, root: Node, imports: list[Node]) -> None:
        for statement in imports:
            self._import(statement)
        self._body(root.children)
        names = self.all_names if self.all_names is not None else self.public
        for name, line in names:
            self.collected.export(name, None, line, name)

    def _import(self, statement: Node) -> None:
        source = self.source
        line = start_line(statement)
        if statement.type == "import_statement":
            for target in statement.children_by_field_name("name"):
                if target.type == "aliased_import":
                    module_node = target.child_by_field_name("name")
                    alias = target.child_by_field_name("alias")
                    module = source.text(module_node) if module_node else ""
                    self._add_import(source.text(alias) if alias else module, module, line, "")
                else:
                    module = source.text(target)
                    self._add_import(module, module, line, "")
            return
        module_node = statement.child_by_field_name("module_name")
        module = source.text(module_node) if module_node is not None else "__future__"
        names = statement.children_by_field_name("name")
        if not names and any(child.type == "wildcard_import" for child in statement.children):
            self._add_import("*", module, line, "*")
        for target in names:
            if target.type == "aliased_import":
                original = target.child_by_field_name("name")
                alias = target.child_by_field_name("alias")
                imported = source.text(original) if original is not None else ""
                name = source.text(alias) if alias is not None else imported
            else:
                imported = name = source.text(target)
            self._add_import(name, module, line, imported)

    def _add_import(self, name: str, module: str, line: int, imported: str) -> None:
        self.collected.imports.append(
            trusted(
                ImportInfo,
                name=name,
                from_=module,
                line=line,
                type=classify_python(module),
                imported=imported,
            )
        )

    def _body(self, statements: list[Node]) -> None:
        if self.depth >= MAX_DEPTH:
            return  # pathological nesting: keep the stack bounded
        self.depth += 1
        try:
            self._statements(statements)
        finally:
            self.depth -= 1

    def _statements(self, statements: list[Node]) -> None:
        for statement in statements:
            kind = statement.type
            if kind in ("function_definition", "class_definition"):
                self._definition(statement, statement, [])
            elif kind == "decorated_definition":
                definition = statement.child_by_field_name("definition")
                if definition is not None:
                    self._definition(definition, statement, _decorators(statement))
            elif kind == "expression_statement":
                self._module_assignment(statement)
            elif kind == "type_alias_statement":
                self._type_alias(statement)
            elif kind in _COMPOUND:
                for child in statement.named_children:
                    if child.type == "block":
                        self._body(child.children)
                    elif child.type in _COMPOUND_CLAUSES:
                        for block in child.named_children:
                            if block.type == "block":
                                self._body(block.children)
            elif kind == "ERROR":
                self._body(statement.children)

    def _definition(self, node: Node, outer: Node, decorator_nodes: list[Node]) -> None:
        if node.type == "function_definition":
            self._function(node, outer, decorator_nodes)
        elif node.type == "class_definition":
            self._class(node, outer, decorator_nodes)

    def _function(self, node: Node, outer: Node, decorator_nodes: list[Node]) -> None:
        name = _name(self.source, node)
        line_start, line_end = start_line(outer), end_line(node)
        names, defaults = parameters(self.source, node)
        self.collected.functions.append(
            trusted(
                FunctionInfo,
                name=name,
                line_start=line_start,
                line_end=line_end,
                params=names,
                defaults=defaults,
                return_type=type_text(self.source, node.child_by_field_name("return_type")),
                is_async=_is_async(node),
                decorators=[self._decorator(item) for item in decorator_nodes],
            )
        )
        self.collected.symbol(name, "function", line_start, line_end)
        self.collected.scopes.append(Scope(outer.start_byte, node.end_byte, name))
        self._public(name, line_start)

    def _class(self, node: Node, outer: Node, decorator_nodes: list[Node]) -> None:
        source = self.source
        name = _name(source, node)
        bases: list[str] = []
        abstract = False
        superclasses = node.child_by_field_name("superclasses")
        if superclasses is not None:
            for base in superclasses.named_children:
                if base.type == "keyword_argument":
                    value = base.child_by_field_name("value")
                    abstract = abstract or (
                        value is not None and source.text(value) in _ABSTRACT_MARKERS
                    )
                elif base.type not in ("comment", "list_splat", "dictionary_splat"):
                    bases.append(shorten(source.text(base), 120))
        info = trusted(
            ClassInfo,
            name=name,
            line_start=start_line(outer),
            line_end=end_line(node),
            extends=bases[0] if bases else None,
            implements=bases[1:],
            is_abstract=abstract or any(base in _ABSTRACT_MARKERS for base in bases),
            decorators=[self._decorator(item) for item in decorator_nodes],
        )
        self.collected.classes.append(info)
        self.collected.symbol(name, "class", info.line_start, info.line_end)
        self.collected.scopes.append(Scope(outer.start_byte, node.end_byte, name))
        self._public(name, info.line_start)
        body = node.child_by_field_name("body")
        if body is not None:
            self._members(info, body)

    def _members(self, info: ClassInfo, body: Node) -> None:
        for member in body.named_children:
            kind = member.type
            outer, decorator_nodes = member, []
            if kind == "decorated_definition":
                definition = member.child_by_field_name("definition")
                if definition is None:
                    continue
                decorator_nodes = _decorators(member)
                member, kind = definition, definition.type
            if kind == "function_definition":
                self._method(info, member, outer, decorator_nodes)
            elif kind == "class_definition":
                self.collected.symbol(
                    _name(self.source, member),
                    "class",
                    start_line(outer),
                    end_line(member),
                    info.name,
                )
            elif kind == "expression_statement":
                self._class_attribute(info, member)

    def _method(
        self, info: ClassInfo, node: Node, outer: Node, decorator_nodes: list[Node]
    ) -> None:
        source = self.source
        name = _name(source, node)
        decorators = [self._decorator(item) for item in decorator_nodes]
        bare = {text.split("(", 1)[0] for text in decorators}
        kind: MethodKind = "method"
        if name == "__init__":
            kind = "constructor"
        elif bare:
            if bare & _GETTER_DECORATORS:
                kind = "getter"
            elif any(item.endswith(".setter") for item in bare):
                kind = "setter"
            if bare & _ABSTRACT_DECORATORS:
                info.is_abstract = True
        names, defaults = parameters(source, node)
        method = trusted(
            MethodInfo,
            name=name,
            line_start=start_line(outer),
            line_end=end_line(node),
            params=names,
            defaults=defaults,
            return_type=type_text(source, node.child_by_field_name("return_type")),
            visibility=visibility(name),
            is_static=bool(bare & _STATIC_DECORATORS),
            is_async=_is_async(node),
            kind=kind,
            decorators=decorators,
        )
        info.methods.append(method)
        self.collected.symbol(name, "method", method.line_start, method.line_end, info.name)
        self.collected.scopes.append(Scope(outer.start_byte, node.end_byte, f"{info.name}.{name}"))
        if kind == "constructor":
            body = node.child_by_field_name("body")
            if body is not None:
                self._instance_attributes(info, body)

    def _class_attribute(self, info: ClassInfo, statement: Node) -> None:
        assignment = statement.named_child(0)
        if assignment is None or assignment.type != "assignment":
            return
        target = assignment.child_by_field_name("left")
        if target is None or target.type != "identifier":
            return
        annotation = type_text(self.source, assignment.child_by_field_name("type"))
        name = self.source.text(target)
        info.properties.append(
            trusted(
                PropertyInfo,
                name=name,
                line=start_line(target),
                type=annotation,
                visibility=visibility(name),
                is_static=annotation is None
                or annotation.startswith(("ClassVar", "typing.ClassVar")),
                is_readonly=annotation is not None
                and annotation.startswith(("Final", "typing.Final")),
            )
        )

    def _instance_attributes(self, info: ClassInfo, block: Node) -> None:
        """``self.x = …`` in ``__init__`` (also under if/try/with), first assignment wins."""
        known = {item.name for item in info.properties}
        pending = [block]
        while pending:
            node = pending.pop()
            for statement in node.named_children:
                kind = statement.type
                if kind in _COMPOUND or kind in _COMPOUND_CLAUSES or kind == "block":
                    pending.append(statement)
                    continue
                if kind != "expression_statement":
                    continue
                assignment = statement.named_child(0)
                if assignment is None or assignment.type != "assignment":
                    continue
                left = assignment.child_by_field_name("left")
                if left is None:
                    continue
                targets = (
                    left.named_children
                    if left.type in ("pattern_list", "tuple_pattern")
                    else [left]
                )
                annotation = type_text(self.source, assignment.child_by_field_name("type"))
                for target in targets:
                    name = _self_attribute(self.source, target)
                    if name is None or name in known:
                        continue
                    known.add(name)
                    info.properties.append(
                        trusted(
                            PropertyInfo,
                            name=name,
                            line=start_line(target),
                            type=annotation,
                            visibility=visibility(name),
                            is_readonly=annotation is not None and annotation.startswith("Final"),
                        )
                    )
        info.properties.sort(key=lambda item: item.line)

    def _module_assignment(self, statement: Node) -> None:
        source = self.source
        node = statement.named_child(0)
        if node is None:
            return
        if node.type == "augmented_assignment":
            left = node.child_by_field_name("left")
            if left is not None and source.text(left) == "__all__":
                self._all(node.child_by_field_name("right"), extend=True)
            return
        current: Node | None = node
        while current is not None and current.type == "assignment":
            node = current
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            targets = (
                []
                if left is None
                else (
                    left.named_children
                    if left.type in ("pattern_list", "tuple_pattern")
                    else [left]
                )
            )
            for target in targets:
                if target.type != "identifier":
                    continue
                name = source.text(target)
                if name == "__all__":
                    self._all(right, extend=False)
                    continue
                self.collected.symbol(name, "variable", start_line(target), end_line(statement))
                self._public(name, start_line(target))
            current = right

    def _all(self, value: Node | None, *, extend: bool) -> None:
        if value is None or value.type not in ("list", "tuple"):
            return
        names = [] if not extend or self.all_names is None else self.all_names
        for item in value.named_children:
            if item.type == "string":
                content = next((c for c in item.named_children if c.type == "string_content"), None)
                if content is not None:
                    names.append((self.source.text(content), start_line(item)))
        self.all_names = names

    def _type_alias(self, statement: Node) -> None:
        name_node = statement.named_child(0)
        if name_node is None:
            return
        name = self.source.text(name_node).split("[", 1)[0]
        line_start, line_end = start_line(statement), end_line(statement)
        self.collected.types.append(
            trusted(TypeInfo, name=name, kind="type", line_start=line_start, line_end=line_end)
        )
        self.collected.symbol(name, "type", line_start, line_end)
        self._public(name, line_start)

    def _public(self, name: str, line: int) -> None:
        if not name.startswith("_"):
            self.public.append((name, line))

    def _decorator(self, node: Node) -> str:
        """The decorator expression (the node itself also holds a trailing comment)."""
        expression = next((c for c in node.named_children if c.type != "comment"), None)
        return shorten(self.source.text(expression if expression is not None else node), 120)


def parameters(source: Source, node: Node) -> tuple[list[str], dict[str, str]]:
    """Parameter names as written (``self``, ``*args``, ``**kwargs``), without types/defaults
    (the bare ``*`` and ``/`` separators are left out), and the defaults as written keyed by
    name (``{"name": "None"}`` for ``name=None`` / ``name: str | None = None``): one pass over
    the parameter list, which every function and method has."""
    parameters = node.child_by_field_name("parameters")
    if parameters is None:
        return [], {}
    data = source.data
    names: list[str] = []
    found: dict[str, str] = {}
    for child in parameters.named_children:
        kind = child.type
        if kind == "identifier":  # the usual case: its text has no whitespace to collapse
            text = data[child.start_byte : child.end_byte].decode("utf-8", "replace")
            names.append(text if len(text) <= SHORT_PARAM else shorten(text))
        elif kind in _PARAMETER_NAMED:
            name = child.child_by_field_name("name")
            value = child.child_by_field_name("value")
            names.append(source.text(name) if name is not None else source.text(child))
            if name is not None and value is not None:
                found[source.text(name)] = shorten(source.text(value))
        elif kind == "typed_parameter":
            first = child.named_child(0)
            names.append(source.text(first) if first is not None else source.text(child))
        elif kind not in ("keyword_separator", "positional_separator", "comment"):
            names.append(shorten(source.text(child)))
    return names, found


def _decorators(decorated: Node) -> list[Node]:
    return [child for child in decorated.children if child.type == "decorator"]


def _name(source: Source, node: Node) -> str:
    name = node.child_by_field_name("name")
    return source.text(name) if name is not None else ""


def _is_async(node: Node) -> bool:
    first = node.child(0)
    return first is not None and first.type == "async"


def _self_attribute(source: Source, target: Node) -> str | None:
    if target.type != "attribute":
        return None
    owner = target.child_by_field_name("object")
    attribute = target.child_by_field_name("attribute")
    if owner is None or attribute is None or source.text(owner) != "self":
        return None
    return source.text(attribute)
