"""Names a Python function or comprehension binds, for the reference judge (``references``).

A function binds its parameters and every name its body assigns, imports, defines or catches
(``global``/``nonlocal`` names excepted); nested functions, classes, lambdas and
comprehensions are scopes of their own. A comprehension binds its ``for`` targets.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Final

from tree_sitter import Node

from ipuaro.domain.files import FileAST

PY_FUNCTIONS: Final = frozenset({"function_definition", "lambda"})
PY_COMPREHENSIONS: Final = frozenset(
    {"list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"}
)


def python_modules(ast: FileAST) -> set[str]:
    """Local names a Python file binds to a module: ``import m [as a]``, and ``from p import m``
    when the import resolved to ``p/m.py`` or ``p/m/__init__.py`` (else ``m`` is an object)."""
    names: set[str] = set()
    for info in ast.imports:
        if info.imported == "":
            names.add(info.name.split(".", 1)[0])
        elif info.imported and info.resolved:
            module = "/" + info.resolved.removesuffix(".py").removesuffix("/__init__")
            source = "/" + info.from_.lstrip(".").replace(".", "/")
            # `from django.core.cache import cache` resolves to the package itself: an object
            if module.endswith("/" + info.imported) and not module.endswith(source):
                names.add(info.name)
    return names


def foreign_names(ast: FileAST) -> frozenset[str]:
    """Local names a Python file binds only by importing from the standard library or another
    package (``import os``, ``from urllib3.util import Timeout as T``): they are never the
    project's symbols (a name also imported from the project is not foreign)."""
    outside = {info.name.split(".", 1)[0] for info in ast.imports if info.type != "internal"}
    inside = {info.name.split(".", 1)[0] for info in ast.imports if info.type == "internal"}
    return frozenset(outside - inside)


def foreign_modules(ast: FileAST) -> frozenset[str]:
    """Modules outside the project that the file's ``from M import …`` statements name."""
    return frozenset(info.from_ for info in ast.imports if info.type != "internal" and info.from_)


class PythonScopes(ABC):
    """Mixed into the file judge, which reads node text and caches each scope's names."""

    @abstractmethod
    def _text(self, node: Node) -> str: ...

    @abstractmethod
    def _bound(self, scope: Node, names_of: Callable[[Node], set[str]]) -> set[str]: ...

    def _python_local(self, node: Node, name: str) -> Node | None:
        ancestor = node.parent
        while ancestor is not None:
            kind = ancestor.type
            if kind in PY_FUNCTIONS and name in self._bound(ancestor, self._python_scope):
                return ancestor
            if kind in PY_COMPREHENSIONS and name in self._bound(
                ancestor, self._comprehension_names
            ):
                return ancestor
            ancestor = ancestor.parent
        return None

    def _python_scope(self, function: Node) -> set[str]:
        names: set[str] = set()
        parameters = function.child_by_field_name("parameters")
        if parameters is not None:
            for parameter in parameters.named_children:
                self._python_targets(parameter, names)
        body = function.child_by_field_name("body")
        if body is not None:
            declared: set[str] = set()
            self._python_body(body, names, declared)
            names -= declared
        return names

    def _python_body(self, node: Node, names: set[str], declared: set[str]) -> None:
        for child in node.named_children:
            kind = child.type
            if kind in ("function_definition", "class_definition"):
                named = child.child_by_field_name("name")
                if named is not None:
                    names.add(self._text(named))
                continue  # their bodies are scopes of their own
            if kind == "decorated_definition":
                self._python_body(child, names, declared)
                continue
            if kind in ("lambda", *PY_COMPREHENSIONS):
                continue
            if kind in ("global_statement", "nonlocal_statement"):
                declared.update(self._text(c) for c in child.named_children)
                continue
            if kind in ("assignment", "augmented_assignment", "for_statement", "for_in_clause"):
                left = child.child_by_field_name("left")
                if left is not None:
                    self._python_targets(left, names)
            elif kind == "named_expression":
                named = child.child_by_field_name("name")
                if named is not None:
                    names.add(self._text(named))
            elif kind == "as_pattern":
                alias = child.child_by_field_name("alias")
                if alias is not None:
                    self._python_targets(alias, names)
            elif kind in ("import_statement", "import_from_statement"):
                for imported in child.children_by_field_name("name"):
                    alias = imported.child_by_field_name("alias")
                    target = alias or imported
                    names.add(self._text(target).split(".", 1)[0])
            elif kind == "except_clause":
                for part in child.named_children:
                    if part.type == "as_pattern":
                        alias = part.child_by_field_name("alias")
                        if alias is not None:
                            self._python_targets(alias, names)
            self._python_body(child, names, declared)

    def _python_targets(self, target: Node, names: set[str]) -> None:
        kind = target.type
        if kind == "identifier":
            names.add(self._text(target))
        elif kind in ("default_parameter", "typed_default_parameter"):
            named = target.child_by_field_name("name")
            if named is not None:
                names.add(self._text(named))
        elif kind in (
            "typed_parameter",
            "list_splat_pattern",
            "dictionary_splat_pattern",
            "pattern_list",
            "tuple_pattern",
            "list_pattern",
            "as_pattern_target",
            "parenthesized_expression",
        ):
            for child in target.named_children:
                if child.type != "type":
                    self._python_targets(child, names)

    def _comprehension_names(self, comprehension: Node) -> set[str]:
        names: set[str] = set()
        for child in comprehension.named_children:
            if child.type == "for_in_clause":
                left = child.child_by_field_name("left")
                if left is not None:
                    self._python_targets(left, names)
        return names
