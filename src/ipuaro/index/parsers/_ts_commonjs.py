"""CommonJS exports: ``module.exports = …``, ``module.exports.x = …``, ``exports.x = …``, and
methods written as property assignments.

``module.exports = X`` is the default export (named by X when X is a name or a named function or
class); ``module.exports = {a, b: c}`` exports each key and records its function values;
``exports.x = …`` exports ``x``. ``Route.prototype.dispatch = function…`` and ``app.use =
function…`` at module level are functions named ``Route.dispatch`` / ``app.use``, whose symbols
are methods ``dispatch`` / ``use`` in ``Route`` / ``app`` (as a Go method outside its type).
"""

from __future__ import annotations

from tree_sitter import Node

from ipuaro.domain.files import ExportKind
from ipuaro.index.parsers._source import Collected, Source, start_line
from ipuaro.index.parsers._ts_members import (
    CLASS_NODES,
    FUNCTION_VALUES,
    class_info,
    function_info,
    name_of,
)
from ipuaro.index.parsers._ts_values import function_value


def read_commonjs(source: Source, collected: Collected, assignment: Node, statement: Node) -> None:
    """``module.exports = …``, ``module.exports.x = …`` and ``exports.x = …``."""
    left = assignment.child_by_field_name("left")
    right = function_value(assignment.child_by_field_name("right"))
    if left is None or right is None or left.type != "member_expression":
        return
    target = source.text(left)
    line = start_line(statement)
    if target == "module.exports":
        _exported_value(source, collected, right, statement, "default", line)
        return
    owner = left.child_by_field_name("object")
    prop = left.child_by_field_name("property")
    if owner is None or prop is None:
        return
    if source.text(owner) in ("exports", "module.exports"):
        _exported_value(source, collected, right, statement, source.text(prop), line)
    elif right.type in FUNCTION_VALUES and prop.type == "property_identifier":
        if owner.type == "member_expression" and source.text(owner).endswith(".prototype"):
            owner = owner.child_by_field_name("object") or owner
        if owner.type == "identifier":
            assigned_method(
                source, collected, source.text(owner), source.text(prop), right, statement
            )


def assigned_method(
    source: Source, collected: Collected, owner: str, name: str, value: Node, statement: Node
) -> None:
    """``owner.name = function…``: a function ``owner.name``, a method ``name`` in ``owner``."""
    function_info(
        source, collected, f"{owner}.{name}", value, start=statement, exported=False, container=None
    )
    recorded = collected.symbols.pop()
    collected.symbol(name, "method", recorded.line, recorded.line_end, owner)


def _exported_value(
    source: Source, collected: Collected, value: Node, statement: Node, name: str, line: int
) -> None:
    kind = value.type
    export_kind: ExportKind | None = "default" if name == "default" else None
    if kind in FUNCTION_VALUES or kind in CLASS_NODES:
        if name == "default":
            name = name_of(source, value)
        if kind in CLASS_NODES:
            class_info(
                source, collected, name, value, start=statement, exported=True, container=None
            )
        else:
            function_info(
                source, collected, name, value, start=statement, exported=True, container=None
            )
        collected.export(
            name, export_kind or ("class" if kind in CLASS_NODES else "function"), line
        )
    elif kind == "identifier":
        local = source.text(value)
        collected.export(local if name == "default" else name, export_kind, line, local)
    elif kind == "object" and name == "default":  # module.exports = { a, b: c, d() {} }
        for entry in value.named_children:
            if entry.type == "shorthand_property_identifier":
                local = source.text(entry)
                collected.export(local, None, start_line(entry), local)
            elif entry.type in ("pair", "method_definition"):
                key_node = entry.child_by_field_name("key") or entry.child_by_field_name("name")
                if key_node is None:
                    continue
                key = source.text(key_node).strip("'\"")
                target = entry.child_by_field_name("value")
                if entry.type == "method_definition" or (
                    target is not None and target.type in FUNCTION_VALUES
                ):
                    code = entry if entry.type == "method_definition" else target
                    if code is not None:
                        function_info(
                            source, collected, key, code, start=entry, exported=True, container=None
                        )
                    collected.export(key, "function", start_line(entry))
                elif target is not None and target.type == "identifier":
                    collected.export(key, None, start_line(entry), source.text(target))
                else:
                    collected.export(key, "const", start_line(entry))
    else:
        collected.export(name, export_kind or "const", line)
