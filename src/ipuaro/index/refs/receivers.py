"""The class of a member access's receiver, where the file says it, for the reference judge.

``obj.name`` means a member ``name`` of some class. When the symbol asked for is a member of
class ``C``, the access means it if ``obj`` is a ``C`` (or a subclass of one); if ``obj`` is
known to be of a class whose whole ancestry is indexed and never declares ``name``, it does
not (that walk through the index is ``ancestry``'s). What the file tells about ``obj``
(TypeScript/JavaScript, Python):

- ``this`` / ``self`` / ``cls``: the enclosing class (a JS ``function`` rebinds ``this``);
- a class name itself (``C.create()``, a static member);
- a cast (``x as C``), and ``b!`` / ``(b)`` as ``b``;
- a parameter with a type annotation (``p: C``, ``p?: C<T>``, ``p: ns.C``; Python ``p: C``);
- a local or module variable annotated (``const x: C``) or built by ``new C(…)`` / ``C(…)``;
- ``this.x`` / ``self.x`` whose field is annotated or built by a constructor in the class body
  (TS fields and constructor parameter properties, ``self.x = C(…)`` / ``self.x: C`` in any
  method).

Anything else (a call's result, a union type, an untyped parameter) is unknown: the access
stays ``name-only``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from tree_sitter import Node

from ipuaro.index.refs.ancestry import bare_type
from ipuaro.index.refs.builtin_types import literal_type, splat_type

_JS_CLASSES: Final = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_JS_THIS_BINDERS: Final = frozenset(
    {"function_declaration", "function_expression", "function", "generator_function"}
)
_JS_FUNCTIONS: Final = frozenset(
    {
        "function_declaration",
        "function_expression",
        "function",
        "generator_function_declaration",
        "generator_function",
        "arrow_function",
        "method_definition",
    }
)
_JS_DECLARATIONS: Final = frozenset({"lexical_declaration", "variable_declaration"})


class Receivers:
    """Receiver classes in one file's tree; ``text`` reads a node's source."""

    def __init__(
        self, language: str, text: Callable[[Node], str], is_class: Callable[[str], bool]
    ) -> None:
        self.python = language == "python"
        self.text = text
        self.is_class = is_class
        """Whether the index defines a class so named (a receiver written as a class name)."""
        self._fields: dict[tuple[int, str], str | None] = {}

    def type_of(self, obj: Node) -> str | None:
        """The class ``obj`` (the object of a member access) is an instance of, or names."""
        kind = obj.type
        if kind in ("non_null_expression", "parenthesized_expression") and obj.named_children:
            return self.type_of(obj.named_children[0])  # `b!`, `(b)`
        if kind in ("as_expression", "satisfies_expression") and len(obj.named_children) > 1:
            return self._js_type_name(obj.named_children[-1])  # `(x as C)`
        if self.python and kind == "call" and (called := obj.child_by_field_name("function")):
            name = self.text(called)  # `Session().get`: a new Session
            if called.type == "identifier" and name != "super" and self.is_class(name):
                return name
        if kind == "super" or (self.python and kind == "call" and self.text(obj) == "super()"):
            cls = self._enclosing_class(obj)
            return self._base(cls) if cls is not None else None
        if kind == "this" or (self.python and kind == "identifier" and self._is_self(obj)):
            cls = self._enclosing_class(obj)
            return self._class_name(cls) if cls is not None else None
        if kind == "identifier":
            name = self.text(obj)
            declared = self._declared(obj, name)
            if declared is not None:
                return declared or None
            return name if self.is_class(name) else None
        if kind in ("member_expression", "attribute"):
            inner = obj.child_by_field_name("object")
            prop = obj.child_by_field_name(
                "property" if kind == "member_expression" else "attribute"
            )
            if inner is None or prop is None:
                return None
            if inner.type == "this" or (
                self.python and inner.type == "identifier" and self._is_self(inner)
            ):
                cls = self._enclosing_class(inner)
                return self._field(cls, self.text(prop)) if cls is not None else None
        return None

    # --- classes ---------------------------------------------------------------------------
    def _enclosing_class(self, node: Node) -> Node | None:
        ancestor = node.parent
        while ancestor is not None:
            if self.python:
                if ancestor.type == "class_definition":
                    return ancestor
            elif ancestor.type in _JS_CLASSES:
                return ancestor
            elif ancestor.type in _JS_THIS_BINDERS:
                return None
            ancestor = ancestor.parent
        return None

    def _base(self, cls: Node) -> str | None:
        """The first base class written in ``cls``'s header (what ``super`` reaches first)."""
        if self.python:
            bases = cls.child_by_field_name("superclasses")
            first = bases.named_children[0] if bases and bases.named_children else None
            return bare_type(self.text(first)) if first is not None else None
        for part in cls.named_children:
            if part.type == "class_heritage":
                for clause in part.named_children:
                    value = clause.child_by_field_name("value")
                    if clause.type == "extends_clause" and value is not None:
                        return bare_type(self.text(value))
        return None

    def _class_name(self, cls: Node) -> str | None:
        named = cls.child_by_field_name("name")
        return self.text(named) if named is not None else None

    def _is_self(self, node: Node) -> bool:
        """``self``/``cls`` as the first parameter of the enclosing method."""
        name = self.text(node)
        if name not in ("self", "cls"):
            return False
        ancestor = node.parent
        while ancestor is not None and ancestor.type != "function_definition":
            ancestor = ancestor.parent
        if ancestor is None:
            return False
        parameters = ancestor.child_by_field_name("parameters")
        first = parameters.named_children[0] if parameters and parameters.named_children else None
        return first is not None and self.text(first).split(":", 1)[0].strip() == name

    def _field(self, cls: Node, name: str) -> str | None:
        key = (cls.start_byte, name)
        if key not in self._fields:
            self._fields[key] = (
                self._python_field(cls, name) if self.python else self._js_field(cls, name)
            )
        return self._fields[key]

    def _js_field(self, cls: Node, name: str) -> str | None:
        body = cls.child_by_field_name("body")
        if body is None:
            return None
        for member in body.named_children:
            if member.type == "public_field_definition":
                named = member.child_by_field_name("name")
                if named is not None and self.text(named) == name:
                    return self._js_typed(member)
            elif member.type == "method_definition":
                named = member.child_by_field_name("name")
                parameters = member.child_by_field_name("parameters")
                if named is None or parameters is None or self.text(named) != "constructor":
                    continue
                for parameter in parameters.named_children:
                    pattern = parameter.child_by_field_name("pattern")
                    if (
                        pattern is not None
                        and self.text(pattern) == name
                        and any(c.type == "accessibility_modifier" for c in parameter.children)
                    ):
                        return self._js_typed(parameter)
        return None

    def _python_field(self, cls: Node, name: str) -> str | None:
        """``self.name = C(…)`` or ``self.name: C`` in a method, ``name: C`` in the body."""
        found: str | None = None

        def visit(node: Node) -> None:
            nonlocal found
            for child in node.named_children:
                if found is not None:
                    return
                if child.type == "class_definition":
                    continue
                if child.type == "assignment":
                    left = child.child_by_field_name("left")
                    if left is not None and self._is_field(left, name):
                        found = self._python_typed(child) or found
                visit(child)

        visit(cls)
        return found

    def _is_field(self, left: Node, name: str) -> bool:
        if left.type == "attribute":
            obj = left.child_by_field_name("object")
            attr = left.child_by_field_name("attribute")
            return (
                obj is not None
                and attr is not None
                and self.text(obj) == "self"
                and self.text(attr) == name
            )
        return left.type == "identifier" and self.text(left) == name

    # --- declarations ------------------------------------------------------------------------
    def _declared(self, node: Node, name: str) -> str | None:
        """The declared class of ``name`` where ``node`` uses it: "" when a declaration binds
        it with no class the file tells, None when nothing in the file binds it."""
        ancestor = node.parent
        while ancestor is not None:
            found = (
                self._python_binding(ancestor, name)
                if self.python
                else self._js_binding(ancestor, name)
            )
            if found is not None:
                return found
            ancestor = ancestor.parent
        return None

    def _js_binding(self, scope: Node, name: str) -> str | None:
        if scope.type in _JS_FUNCTIONS:
            parameters = scope.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else ():
                pattern = parameter.child_by_field_name("pattern")
                if pattern is None or pattern.type != "identifier":
                    continue
                if self.text(pattern) == name:
                    return self._js_typed(parameter) or ""
            single = scope.child_by_field_name("parameter")
            if single is not None and self.text(single) == name:
                return ""
            return None
        if scope.type not in ("statement_block", "program"):
            return None
        for statement in scope.named_children:
            inner = statement
            if inner.type == "export_statement":
                inner = inner.child_by_field_name("declaration") or inner
            if inner.type not in _JS_DECLARATIONS:
                continue
            for declarator in inner.named_children:
                named = declarator.child_by_field_name("name")
                if named is not None and named.type == "identifier" and self.text(named) == name:
                    return self._js_typed(declarator) or ""
        return None

    def _js_typed(self, node: Node) -> str | None:
        """The class a declaration gives its name: its annotation, else ``new C(…)``."""
        annotation = node.child_by_field_name("type")
        if annotation is not None:
            named = annotation.named_children[0] if annotation.named_children else None
            return self._js_type_name(named) if named is not None else None
        value = node.child_by_field_name("value")
        if value is not None and value.type == "new_expression":
            constructor = value.child_by_field_name("constructor")
            if constructor is not None and constructor.type in ("identifier", "member_expression"):
                return bare_type(self.text(constructor))
        return None

    def _js_type_name(self, node: Node) -> str | None:
        if node.type == "union_type":  # `C | undefined`, `C | null`: still a C
            names = {
                self._js_type_name(part)
                for part in node.named_children
                if part.type not in ("predefined_type", "literal_type")
            }
            return names.pop() if len(names) == 1 else None
        if node.type == "type_identifier":
            return self.text(node)
        if node.type == "generic_type":
            named = node.child_by_field_name("name")
            return self._js_type_name(named) if named is not None else None
        if node.type == "nested_type_identifier":
            named = node.child_by_field_name("name")
            return self.text(named) if named is not None else None
        return None

    def _python_binding(self, scope: Node, name: str) -> str | None:
        if scope.type == "function_definition":
            parameters = scope.child_by_field_name("parameters")
            for parameter in parameters.named_children if parameters is not None else ():
                splat = splat_type(parameter)
                if splat is not None:
                    inner = parameter.named_children[0] if parameter.named_children else None
                    if inner is not None and self.text(inner) == name:
                        return splat  # `**kwargs`: a dict
                elif parameter.type in ("typed_parameter", "typed_default_parameter"):
                    named = parameter.child_by_field_name("name") or (
                        parameter.named_children[0] if parameter.named_children else None
                    )
                    if named is not None and (splat := splat_type(named)) is not None:
                        inner = named.named_children[0] if named.named_children else None
                        if inner is not None and self.text(inner) == name:
                            return splat  # `**kwargs: Any`: still a dict
                    elif named is not None and self.text(named) == name:
                        annotation = parameter.child_by_field_name("type")
                        return self._python_type(annotation) or ""
                elif self.text(parameter).split("=", 1)[0].strip() == name:
                    return ""
            body = scope.child_by_field_name("body")
            return self._python_assigned(body, name) if body is not None else None
        if scope.type == "module":
            return self._python_assigned(scope, name)
        return None

    def _python_assigned(self, block: Node, name: str) -> str | None:
        """The class of the first plain assignment to ``name`` directly in ``block``."""
        for statement in block.named_children:
            child = statement.named_children[0] if statement.named_children else None
            if statement.type != "expression_statement" or child is None:
                continue
            if child.type == "assignment":
                left = child.child_by_field_name("left")
                if left is not None and left.type == "identifier" and self.text(left) == name:
                    return self._python_typed(child) or ""
        return None

    def _python_typed(self, assignment: Node) -> str | None:
        annotation = assignment.child_by_field_name("type")
        if annotation is not None:
            return self._python_type(annotation)
        value = assignment.child_by_field_name("right")
        if value is None:
            return None
        function = value.child_by_field_name("function") if value.type == "call" else None
        made = literal_type(value, self.text(function) if function is not None else "")
        if made is not None:
            return made  # `x = {}`, `x = dict(…)`
        if function is not None and function.type in ("identifier", "attribute"):
            called = bare_type(self.text(function))
            if called[:1].isupper():
                return called
        return None

    def _python_type(self, annotation: Node | None) -> str | None:
        if annotation is None:
            return None
        text = self.text(annotation).strip().strip("\"'")
        if text.startswith(("Optional[", "typing.Optional[")) and text.endswith("]"):
            text = text.split("[", 1)[1][:-1].strip()  # `Optional[C]`: still a C
        if "|" in text and "[" not in text:
            parts = {part.strip() for part in text.split("|")} - {"None"}
            text = parts.pop() if len(parts) == 1 else ""  # `C | None`: still a C
        head = text.split("[", 1)[0]  # `dict[str, int]`: a dict
        if not head or any(mark in head for mark in "|,( ]"):
            return None  # unions of classes: not one class
        return bare_type(head)
