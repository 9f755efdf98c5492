"""Languages read from their query alone (Go, Rust, Java, C, C++, C#, Ruby, PHP, Kotlin, Swift,
Scala, Lua, Bash, Elixir, Haskell, Julia, OCaml, Zig, HCL, Solidity, Common Lisp, Fortran,
Arduino, MATLAB): adding one is a ``queries/<name>.scm`` file and a row in ``_languages``.

The query names what it finds with these captures (one match per definition or import)::

    @definition.function  a function, method, constructor: a method when it sits in a type or
                          names its type in @receiver (Go receivers, C++ ``Type::name``)
    @definition.class     a class, struct, enum, trait, interface, protocol, object
    @definition.interface like a class, recorded with the symbol kind ``interface``
    @definition.module    a namespace-like block (Rust ``mod``, C++/C# ``namespace``): recorded
                          as a namespace; functions inside stay functions
    @definition.constant  a named entry of a data-like language (a ``.properties`` key, a udev
                          ``LABEL``, a Chatito intent): a ``const`` symbol and one of the
                          file's keys, the way JSON and YAML files list theirs
    @definition.container a block that adds methods to a type named in @name and declares
                          none itself (Rust ``impl``, Swift/Kotlin ``extension``)
    @name                 the definition's name (for a container, its type)
    @body                 a body the grammar keeps as the definition's next sibling (Dart's
                          ``function_body`` after its signature): the span runs to its end
    @receiver             the type a function outside its type belongs to
    @import / @import.internal   an imported module or path (the query tells internal ones);
                          @import.name the local binding when the language has one
    @reference @call @comment @block   identifiers, called names, comments, nesting blocks

Decisions: spans are the definition node's lines, widened to attributes the grammar keeps
beside it (Rust ``#[...]``). Functions nested in function bodies are not recorded (their
calls count for the enclosing one). A method whose type is declared in the same file is listed
under that class; one whose type is not (a Go method in another file than its struct, ``impl
Display for T`` with ``T`` elsewhere) is listed as a function named ``Type.method`` — its
symbol is still ``method`` in ``Type``. Overloads are recorded one by one. When two patterns
give the same name node, the outermost definition wins (a C++ template over its class).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import tree_sitter
from tree_sitter import Node

from ipuaro.domain.files import ClassInfo, FunctionInfo, ImportInfo, MethodInfo, TypeInfo
from ipuaro.domain.indexes import SymbolKind
from ipuaro.index.parsers._source import (
    Collected,
    MethodKind,
    Scope,
    Source,
    end_line,
    shorten,
    type_text,
)
from ipuaro.index.parsers._trusted import trusted

BULK_CAPTURES: Final = ("reference", "call", "comment", "block")
_CLASS_KINDS: Final = frozenset({"class", "interface"})
_OWNER_KINDS: Final = frozenset({"class", "interface", "container"})
_ATTRIBUTES: Final = frozenset({"attribute_item"})
_SIGNATURES: Final = frozenset({"signature"})
"""A type signature written before its definition (Haskell ``area :: Shape -> Double``)."""
_CONSTRUCTOR_NAMES: Final = frozenset({"initialize", "__construct", "init", "constructor"})
_RETURN_FIELDS: Final = ("return_type", "result", "type")
_TYPE_NAME: Final = re.compile(r"[A-Za-z_$][\w$]*")
_QUOTES: Final = "\"'`<>"
_SOURCE_SUFFIX: Final = re.compile(
    r"\.(?:h|hh|hpp|hxx|h\+\+|inc|rb|php|sh|bash|lua|scala|sol|jl|zig|lisp|tf|dart|rkt|el|R|r|chatito)$"
)


@dataclass(slots=True)
class _Definition:
    kind: str
    node: Node
    name: str
    name_start: int
    receiver: str | None
    end: Node
    """The node the definition ends with: its own node, or its @body sibling."""
    parent: int = -1


def read(
    source: Source,
    collected: Collected,
    query: tree_sitter.Query,
    root: Node,
) -> dict[str, list[Node]]:
    """Record the definitions and imports of ``root``; return the bulk captures (references,
    calls, comments, blocks) by capture name, in document order."""
    bulk: dict[str, list[Node]] = {name: [] for name in BULK_CAPTURES}
    definitions: dict[int, _Definition] = {}
    cursor_type = getattr(tree_sitter, "QueryCursor", None)
    matches = (
        cursor_type(query).matches(root) if cursor_type is not None else query.matches(root)  # type: ignore[attr-defined]
    )
    for _pattern, captured in matches:
        names = captured.get("name")
        if names:
            _definition(source, captured, names[0], definitions)
            continue
        modules = captured.get("import") or captured.get("import.internal")
        if modules:
            internal = "import.internal" in captured
            alias = captured.get("import.name")
            _import(source, collected, modules[0], alias[0] if alias else None, internal)
            continue
        for capture, nodes in captured.items():
            found = bulk.get(capture)
            if found is not None:
                found += nodes
    # A definition's own name is not a call (Elixir `def total(items)`, Julia `f(x) = …`), nor
    # is a name heading a parameter list (Emacs Lisp `(defun f (line) …)`).
    bulk["call"] = [
        node
        for node in bulk["call"]
        if node.start_byte not in definitions and not _heads_parameters(node)
    ]
    for nodes in bulk.values():
        nodes.sort(key=lambda node: node.start_byte)
    _Reader(source, collected).record(list(definitions.values()))
    collected.imports.sort(key=lambda item: item.line)
    return bulk


def _heads_parameters(node: Node) -> bool:
    parent = node.parent
    holder = parent.parent if parent is not None else None
    return holder is not None and holder.child_by_field_name("parameters") == parent


def _definition(
    source: Source,
    captured: dict[str, list[Node]],
    name_node: Node,
    definitions: dict[int, _Definition],
) -> None:
    for capture, nodes in captured.items():
        if capture.startswith("definition."):
            node = nodes[0]
            kind = capture.removeprefix("definition.")
            break
    else:
        return
    receiver_nodes = captured.get("receiver")
    receiver = type_name(source.text(receiver_nodes[0])) if receiver_nodes else None
    name = source.text(name_node)
    if kind == "container":
        name = type_name(name)
    elif kind in _CLASS_KINDS or kind == "module":
        name = name.strip()
    if not name:
        return
    bodies = captured.get("body")
    end = bodies[0] if bodies else node
    known = definitions.get(name_node.start_byte)
    if known is not None:
        size, known_size = (
            end.end_byte - node.start_byte,
            known.end.end_byte - known.node.start_byte,
        )
        if known_size > size or (known_size == size and kind != "interface"):
            return  # the outermost definition wins (template<…> class X), then the narrower kind
    definitions[name_node.start_byte] = _Definition(
        kind, node, name, name_node.start_byte, receiver, end
    )


def type_name(text: str) -> str:
    """The bare type in a receiver or impl target: ``*Stack[T]`` -> ``Stack``,
    ``ns::Box<T>`` -> ``Box``, ``&'a mut Point`` -> ``Point``."""
    cut = min((i for i in (text.find("<"), text.find("[")) if i >= 0), default=len(text))
    head = text[:cut].replace("::", ".").rsplit(".", 1)[-1]
    words = [word for word in _TYPE_NAME.findall(head) if word not in ("mut", "const", "dyn")]
    return words[-1] if words else ""


def _import(
    source: Source, collected: Collected, module: Node, alias: Node | None, internal: bool
) -> None:
    text = " ".join(source.text(module).split()).removeprefix("import ").strip(_QUOTES)
    if not text:
        return
    if alias is not None:
        name = source.text(alias)
    else:
        path = _SOURCE_SUFFIX.sub("", text.rstrip("*;").rstrip(":./\\"))
        tail = re.split(r"::|[./\\]", path)
        name = tail[-1] if tail and tail[-1] else text
    internal = internal or text.startswith(("./", "../"))
    collected.imports.append(
        trusted(
            ImportInfo,
            name=name,
            from_=text,
            line=module.start_point[0] + 1,
            type="internal" if internal else "external",
        )
    )


class _Reader:
    """Turns the definitions found by the query into FileAST entries, symbols and scopes."""

    def __init__(self, source: Source, collected: Collected) -> None:
        self.source = source
        self.collected = collected
        self.classes: dict[str, ClassInfo] = {}
        """The first class of each name: where a receiver or container's methods go."""
        self.declared: dict[int, ClassInfo] = {}
        """Each class by its definition's start byte: where its own body's methods go."""

    def record(self, definitions: list[_Definition]) -> None:
        definitions.sort(key=lambda item: (item.node.start_byte, -item.end.end_byte))
        stack: list[int] = []
        for index, item in enumerate(definitions):
            while stack and definitions[stack[-1]].end.end_byte <= item.node.start_byte:
                stack.pop()
            item.parent = stack[-1] if stack else -1
            stack.append(index)
        for item in definitions:
            if item.kind in _CLASS_KINDS:
                self._class(item, definitions)
            elif item.kind == "module":
                self._module(item)
            elif item.kind == "constant":
                start, end = self._span(item.node, item.end)
                self.collected.symbol(item.name, "const", start, end)
                self.collected.keys.append(item.name)
        for item in definitions:
            if item.kind not in _CLASS_KINDS and item.kind not in (
                "module",
                "container",
                "constant",
            ):
                self._function(item, definitions)

    def _span(self, node: Node, last: Node | None = None) -> tuple[int, int]:
        first = node
        widen = _ATTRIBUTES if node.type in _SIGNATURES else _ATTRIBUTES | _SIGNATURES
        previous = node.prev_named_sibling
        while previous is not None and (previous.type in widen or "comment" in previous.type):
            if previous.type in widen:
                first = previous  # comments between attributes are passed over, not taken
                if previous.type in _SIGNATURES:
                    break  # one signature: the one before is another definition's
            previous = previous.prev_named_sibling
        return first.start_point[0] + 1, end_line(last or node)

    def _owner(self, item: _Definition, definitions: list[_Definition]) -> _Definition | None:
        parent = item.parent
        while parent >= 0 and definitions[parent].kind == "module":
            parent = definitions[parent].parent
        return definitions[parent] if parent >= 0 else None

    def _class(self, item: _Definition, definitions: list[_Definition]) -> None:
        start, end = self._span(item.node, item.end)
        owner = self._owner(item, definitions)
        if owner is not None and owner.kind not in _OWNER_KINDS:
            return  # a type declared inside a function body
        info = trusted(ClassInfo, name=item.name, line_start=start, line_end=end)
        self.collected.classes.append(info)
        self.classes.setdefault(item.name, info)
        self.declared[item.node.start_byte] = info
        kind: SymbolKind = "interface" if item.kind == "interface" else "class"
        container = owner.name if owner is not None else None
        self.collected.symbol(item.name, kind, start, end, container)

    def _module(self, item: _Definition) -> None:
        start, end = self._span(item.node)
        self.collected.types.append(
            trusted(TypeInfo, name=item.name, kind="namespace", line_start=start, line_end=end)
        )
        self.collected.symbol(item.name, "namespace", start, end)

    def _function(self, item: _Definition, definitions: list[_Definition]) -> None:
        owner_definition = self._owner(item, definitions)
        if owner_definition is not None and owner_definition.kind not in _OWNER_KINDS:
            return  # nested in a function body
        owner = item.receiver or (owner_definition.name if owner_definition else None)
        start, end = self._span(item.node, item.end)
        node = item.node
        params = self._params(node)
        returns = None
        for field in _RETURN_FIELDS:
            returned = node.child_by_field_name(field)
            if returned is not None:
                returns = type_text(self.source, returned)
                break
        if owner is None:
            self.collected.functions.append(
                trusted(
                    FunctionInfo,
                    name=item.name,
                    line_start=start,
                    line_end=end,
                    params=params,
                    return_type=returns,
                )
            )
            self.collected.symbol(item.name, "function", start, end)
            self.collected.scopes.append(Scope(node.start_byte, item.end.end_byte, item.name))
            return
        qualified = f"{owner}.{item.name}"
        if item.receiver is None and owner_definition is not None:
            cls = self.declared.get(owner_definition.node.start_byte) or self.classes.get(owner)
        else:
            cls = self.classes.get(owner)
        if cls is None:
            self.collected.functions.append(
                trusted(
                    FunctionInfo,
                    name=qualified,
                    line_start=start,
                    line_end=end,
                    params=params,
                    return_type=returns,
                )
            )
        else:
            kind: MethodKind = "method"
            if "constructor" in node.type or item.name == owner or item.name in _CONSTRUCTOR_NAMES:
                kind = "constructor"
            cls.methods.append(
                trusted(
                    MethodInfo,
                    name=item.name,
                    line_start=start,
                    line_end=end,
                    params=params,
                    return_type=returns,
                    kind=kind,
                )
            )
        self.collected.symbol(item.name, "method", start, end, owner)
        self.collected.scopes.append(Scope(node.start_byte, item.end.end_byte, qualified))

    def _params(self, node: Node) -> list[str]:
        parameters = node.child_by_field_name("parameters")
        if parameters is None:
            return []
        return [
            shorten(self.source.text(child))
            for child in parameters.named_children
            if "comment" not in child.type
        ]
