"""TypeScript extraction: imports, exports, functions, classes and members, types, ambient code."""

from __future__ import annotations

from ipuaro.domain.files import ClassInfo, FileAST, FunctionInfo, MethodInfo, PropertyInfo

from .support import parse_fixture


def _function(ast: FileAST, name: str) -> FunctionInfo:
    matches = [item for item in ast.functions if item.name == name]
    assert len(matches) == 1, f"{name}: {matches}"
    return matches[0]


def _class(ast: FileAST, name: str) -> ClassInfo:
    matches = [item for item in ast.classes if item.name == name]
    assert len(matches) == 1, f"{name}: {matches}"
    return matches[0]


def _methods(cls: ClassInfo, name: str) -> list[MethodInfo]:
    return [method for method in cls.methods if method.name == name]


def _property(cls: ClassInfo, name: str) -> PropertyInfo:
    matches = [item for item in cls.properties if item.name == name]
    assert len(matches) == 1, f"{name}: {cls.properties}"
    return matches[0]


# --- spans.ts: functions -------------------------------------------------------------------


def test_language_and_clean_parse() -> None:
    ast = parse_fixture("spans.ts").ast
    assert ast.language == "typescript"
    assert ast.parse_error is False


def test_async_generic_function_with_default_param() -> None:
    fn = _function(parse_fixture("spans.ts").ast, "withTimeout")
    assert fn.params == ["work", "ms"]
    assert fn.return_type == "Promise<T>"
    assert fn.is_async and fn.is_exported


def test_overloads_are_one_function_with_the_implementation_signature() -> None:
    ast = parse_fixture("spans.ts").ast
    fn = _function(ast, "parseHeader")
    assert (fn.line_start, fn.line_end) == (50, 54)
    assert fn.params == ["raw", "lower"]
    assert [e.name for e in ast.exports].count("parseHeader") == 1


def test_generator_rest_and_destructured_params() -> None:
    ast = parse_fixture("spans.ts").ast
    assert _function(ast, "chunks").return_type == "Generator<T[]>"
    assert _function(ast, "joinUrl").params == ["base", "...parts"]
    fetch_json = _function(ast, "fetchJson")
    assert fetch_json.params == ["{ url, init }"]
    assert fetch_json.is_async
    assert fetch_json.return_type == "Promise<T>"


def test_arrow_and_function_expression_constants() -> None:
    ast = parse_fixture("spans.ts").ast
    sleep = _function(ast, "sleep")
    assert sleep.is_exported is False
    assert sleep.return_type == "Promise<void>"
    assert _function(ast, "identity").params == ["value"]
    assert _function(ast, "logged").params == ["target", "key", "descriptor"]
    assert _function(ast, "compose").is_exported


def test_functions_inside_function_bodies_are_not_recorded() -> None:
    names = {fn.name for fn in parse_fixture("spans.ts").ast.functions}
    assert "original" not in names and "timeout" not in names


# --- spans.ts: classes ---------------------------------------------------------------------


def test_class_heritage_uses_bare_names() -> None:
    ast = parse_fixture("spans.ts").ast
    transport = _class(ast, "FetchTransport")
    assert transport.extends == "Transport"
    assert transport.implements == ["Disposable"]
    assert transport.decorators == ["sealed"]
    assert _class(ast, "TtlCache").implements == ["Iterable"]
    assert _class(ast, "EventBus").extends == "EventEmitter"


def test_abstract_class_and_abstract_members() -> None:
    transport = _class(parse_fixture("spans.ts").ast, "Transport")
    assert transport.is_abstract and transport.is_exported
    (send,) = _methods(transport, "send")
    assert send.visibility == "protected"
    assert send.return_type == "Promise<TResponse>"
    (name,) = _methods(transport, "name")
    assert name.kind == "getter"
    (constructor,) = _methods(transport, "constructor")
    assert constructor.kind == "constructor"
    assert constructor.visibility == "protected"
    assert _property(transport, "logger").visibility == "protected"


def test_field_modifiers() -> None:
    transport = _class(parse_fixture("spans.ts").ast, "FetchTransport")
    instances = _property(transport, "instances")
    assert (instances.is_static, instances.is_readonly, instances.visibility) == (
        True,
        True,
        "public",
    )
    assert _property(transport, "#inflight").visibility == "private"
    agent = _property(transport, "agent")
    assert (agent.visibility, agent.type, agent.line) == ("private", "Agent", 137)
    assert _property(transport, "retries").visibility == "protected"
    kind = _property(transport, "kind")
    assert kind.is_readonly and kind.type == '"fetch"'


def test_constructor_parameter_properties() -> None:
    ast = parse_fixture("spans.ts").ast
    base_url = _property(_class(ast, "FetchTransport"), "baseUrl")
    assert (base_url.visibility, base_url.is_readonly, base_url.type) == ("private", True, "string")
    status = _property(_class(ast, "HttpError"), "status")
    assert (status.visibility, status.is_readonly) == ("public", True)
    body = _property(_class(ast, "HttpError"), "body")
    assert body.is_readonly and body.type == "string"
    # `logger: Logger` without a modifier is a plain parameter, not a property
    assert not [p for p in _class(ast, "FetchTransport").properties if p.name == "logger"]


def test_getters_setters_static_private_and_generators() -> None:
    transport = _class(parse_fixture("spans.ts").ast, "FetchTransport")
    getter, setter = _methods(transport, "inflight")
    assert (getter.kind, setter.kind) == ("getter", "setter")
    assert setter.params == ["value"]
    (send,) = _methods(transport, "send")
    assert send.decorators == ["logged"]
    assert send.is_async and send.visibility == "protected"
    (resolve,) = _methods(transport, "#resolve")
    assert resolve.visibility == "private"
    (ids,) = _methods(transport, "ids")
    assert ids.is_static and ids.visibility == "private"
    (create,) = _methods(transport, "create")
    assert create.is_static and create.params == ["logger", "baseUrl"]
    (dispose,) = _methods(transport, "[Symbol.dispose]")
    assert dispose.return_type == "void"


def test_overloaded_method_is_recorded_once() -> None:
    transport = _class(parse_fixture("spans.ts").ast, "FetchTransport")
    (request,) = _methods(transport, "request")
    assert request.params == ["url", "init"]
    assert (request.line_start, request.line_end) == (173, 180)


def test_arrow_function_field_is_a_method() -> None:
    transport = _class(parse_fixture("spans.ts").ast, "FetchTransport")
    (on_error,) = _methods(transport, "onError")
    assert on_error.params == ["error"]
    assert not [p for p in transport.properties if p.name == "onError"]


def test_static_getter_and_static_private_field() -> None:
    bus = _class(parse_fixture("spans.ts").ast, "EventBus")
    (global_,) = _methods(bus, "global")
    assert global_.kind == "getter" and global_.is_static
    field = _property(bus, "#global")
    assert field.is_static and field.visibility == "private"
    (emit,) = _methods(bus, "emitAsync")
    assert emit.is_async and emit.params == ["name", "event"]


def test_class_expression_bound_to_const() -> None:
    queue = _class(parse_fixture("spans.ts").ast, "Queue")
    assert queue.is_exported
    assert [m.name for m in queue.methods] == ["push", "shift"]


def test_default_exported_class() -> None:
    ast = parse_fixture("spans.ts").ast
    client = _class(ast, "Client")
    assert client.is_exported
    assert ("Client", "default") in {(e.name, e.type) for e in ast.exports}


# --- spans.ts: types and namespaces ----------------------------------------------------------


def test_types_enums_interfaces_namespaces() -> None:
    ast = parse_fixture("spans.ts").ast
    types = {(t.name, t.kind, t.line_start, t.line_end, t.is_exported) for t in ast.types}
    assert ("Headers", "type", 12, 12, True) in types
    assert ("RequestOptions", "interface", 14, 19, True) in types
    assert ("RetryPolicy", "enum", 21, 25, True) in types
    assert ("Listener", "type", 200, 200, False) in types
    assert ("Retry", "namespace", 237, 264, True) in types
    assert ("CacheEntry", "interface", 325, 328, False) in types


def test_namespace_members_carry_their_container() -> None:
    parsed = parse_fixture("spans.ts")
    symbols = {(s.name, s.kind): s.container for s in parsed.indexes.symbols}
    assert symbols[("delayFor", "function")] == "Retry"
    assert symbols[("Budget", "class")] == "Retry"
    assert symbols[("MAX_ATTEMPTS", "const")] == "Retry"
    assert symbols[("take", "method")] == "Budget"
    # namespace members are exported from the namespace, not from the file
    assert "delayFor" not in {e.name for e in parsed.ast.exports}


def test_exports_of_spans_fixture() -> None:
    exports = {(e.name, e.type) for e in parse_fixture("spans.ts").ast.exports}
    assert {
        ("Headers", "type"),
        ("RequestOptions", "interface"),
        ("RetryPolicy", "enum"),
        ("DEFAULT_TIMEOUT", "const"),
        ("withTimeout", "function"),
        ("chunks", "function"),
        ("HttpError", "class"),
        ("Retry", "namespace"),
        ("Queue", "class"),
        ("compose", "function"),
        ("Client", "default"),
        ("once", "function"),
    } <= exports
    assert "sleep" not in {name for name, _ in exports}


# --- module.ts: imports and exports -----------------------------------------------------------


def test_import_forms() -> None:
    ast = parse_fixture("module.ts").ast
    imports = [(i.name, i.from_, i.line, i.type, i.is_default) for i in ast.imports]
    assert imports == [
        ("Default", "ui-core", 2, "external", True),
        ("named", "ui-core", 2, "external", False),
        ("renamed", "ui-core", 2, "external", False),
        ("TypeOnly", "ui-core", 2, "external", False),
        ("utils", "./utils", 3, "internal", False),
        ("Theme", "../theme", 4, "internal", False),
        ("", "./polyfills", 5, "internal", False),
        ("readFile", "fs/promises", 6, "builtin", False),
        ("join", "node:path", 7, "builtin", False),
        ("config", "./config.json", 8, "internal", True),
        ("*", "./button", 10, "internal", False),
        ("icons", "./icons", 11, "internal", False),
        ("Card", "./card", 12, "internal", False),
        ("CardProps", "./card", 12, "internal", False),
        ("default", "./modal", 13, "internal", True),
        ("default", "./app", 14, "internal", True),
        ("", "./lazy-theme", 30, "internal", False),
    ]


def test_export_forms() -> None:
    ast = parse_fixture("module.ts").ast
    exports = [(e.name, e.type, e.line) for e in ast.exports]
    assert exports == [
        ("*", "namespace", 10),
        ("icons", "namespace", 11),
        ("Card", "const", 12),
        ("Props", "const", 12),
        ("Modal", "const", 13),
        ("default", "default", 14),
        ("VERSION", "const", 24),
        ("buildPath", "function", 24),
        ("Registry", "class", 24),
        ("Internal", "interface", 25),
        ("width", "const", 26),
        ("tall", "const", 26),
        ("loadTheme", "function", 28),
    ]


def test_export_clause_marks_local_declarations_exported() -> None:
    ast = parse_fixture("module.ts").ast
    assert _function(ast, "helper").is_exported
    assert _class(ast, "Registry").is_exported
    assert [t.is_exported for t in ast.types if t.name == "Internal"] == [True]


def test_module_symbols_include_constants_and_variables() -> None:
    symbols = {(s.name, s.kind) for s in parse_fixture("module.ts").indexes.symbols}
    assert {("VERSION", "const"), ("mutable", "variable"), ("width", "const")} <= symbols
    assert ("tall", "const") in symbols


# --- ambient.d.ts ----------------------------------------------------------------------------


def test_declaration_file_is_typescript() -> None:
    parsed = parse_fixture("ambient.d.ts")
    assert parsed.ast.language == "typescript"
    assert parsed.ast.parse_error is False


def test_ambient_modules_and_signature_only_overloads() -> None:
    ast = parse_fixture("ambient.d.ts").ast
    render = _function(ast, "render")
    assert (render.line_start, render.line_end) == (7, 8)
    assert render.params == ["el"]
    legacy = _function(ast, "legacyFormat")
    assert (legacy.line_start, legacy.line_end) == (29, 30)
    assert legacy.return_type == "string"
    chart = _class(ast, "Chart")
    (update,) = _methods(chart, "update")
    assert (update.line_start, update.line_end) == (11, 12)
    assert _property(chart, "id").is_readonly
    types = {(t.name, t.kind) for t in ast.types}
    assert {("chart-kit", "namespace"), ("Window", "interface"), ("Legacy", "namespace")} <= types


def test_export_equals() -> None:
    ast = parse_fixture("ambient.d.ts").ast
    assert [(e.name, e.type, e.line) for e in ast.exports] == [("LegacyApi", "default", 33)]


# --- default exports -------------------------------------------------------------------------


def test_default_exports_are_named_by_their_local_binding() -> None:
    from ipuaro.index.parsers import parse_source

    cases = {
        "export default async function () {\n}\n": [("default", "default")],
        "export default () => {};\n": [("default", "default")],
        "export default { a: 1 };\n": [("default", "default")],
        "export default class extends Base {}\n": [("default", "default")],
        "function main() {}\nexport default main;\n": [("main", "default")],
        "const x = 1;\nexport { x as default };\n": [("x", "default")],
    }
    for text, expected in cases.items():
        ast = parse_source("src/entry.ts", text).ast
        assert [(e.name, e.type) for e in ast.exports] == expected, text
    anonymous = parse_source("src/entry.ts", "export default async function () {\n}\n").ast
    assert [(f.name, f.line_start, f.line_end, f.is_async) for f in anonymous.functions] == [
        ("default", 1, 2, True)
    ]
    main = parse_source("src/entry.ts", "function main() {}\nexport default main;\n").ast
    assert main.functions[0].is_exported


def test_const_enum_declare_enum_and_declared_abstract_class() -> None:
    from ipuaro.index.parsers import parse_source

    text = (
        "export const enum E { A }\n"
        "declare enum D { B }\n"
        "export declare abstract class Q { abstract m(): void; }\n"
    )
    ast = parse_source("src/types.ts", text).ast
    assert [(t.name, t.kind, t.is_exported) for t in ast.types] == [
        ("E", "enum", True),
        ("D", "enum", False),
    ]
    (q,) = ast.classes
    assert q.is_abstract and [m.name for m in q.methods] == ["m"]


def test_parameter_forms() -> None:
    from ipuaro.index.parsers import parse_source

    text = (
        "export function f(this: Window, a?: number, [x, y]: number[] = [], "
        "{p: {q}}: Z = {}): asserts a is number {}\n"
    )
    (f,) = parse_source("src/f.ts", text).ast.functions
    assert f.params == ["this", "a?", "[x, y]", "{p: {q}}"]
    assert f.return_type == "asserts a is number"


def test_long_parameter_patterns_are_shortened() -> None:
    from ipuaro.index.parsers import parse_source

    names = ", ".join(f"field{index}" for index in range(30))
    (f,) = parse_source("src/f.ts", f"function f({{ {names} }}) {{}}\n").ast.functions
    (param,) = f.params
    assert len(param) == 60 and param.endswith("…") and param.startswith("{ field0, field1")
