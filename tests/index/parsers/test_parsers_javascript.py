"""TSX/JSX components and CommonJS modules."""

from __future__ import annotations

from ipuaro.index.parsers import parse_source

from .support import parse_fixture


def test_tsx_components_function_arrow_and_wrapped() -> None:
    ast = parse_fixture("components.tsx").ast
    assert ast.language == "tsx" and not ast.parse_error
    functions = {f.name: f for f in ast.functions}
    assert set(functions) == {
        "TodoList",
        "TodoRow",
        "Button",
        "Badge",
        "Layout",
        "useToggle",
        "App",
    }
    assert functions["TodoList"].params == ["{ items, onToggle }"]
    assert functions["TodoRow"].is_exported is False
    # forwardRef(function Button(...)) and memo(() => ...) are components bound to a const
    assert functions["Button"].params == ['{ variant = "primary", className, ...rest }', "ref"]
    assert functions["Badge"].is_exported
    assert functions["useToggle"].return_type == "[boolean, () => void]"
    assert functions["useToggle"].params == ["initial"]


def test_tsx_default_export_and_class_component() -> None:
    ast = parse_fixture("components.tsx").ast
    exports = {(e.name, e.type) for e in ast.exports}
    assert {("App", "default"), ("Layout", "function"), ("ErrorBoundary", "class")} <= exports
    assert ("TodoItem", "interface") in exports
    (boundary,) = ast.classes
    assert boundary.extends == "React.Component"
    methods = {m.name: m for m in boundary.methods}
    assert methods["getDerivedStateFromError"].is_static
    assert methods["reset"].visibility == "private"
    assert [p.name for p in boundary.properties] == ["state"]
    assert boundary.properties[0].type == "{ error?: Error }"


def test_rendering_a_component_is_a_call() -> None:
    calls = {(c.caller, c.callee) for c in parse_fixture("components.tsx").indexes.calls}
    assert {("App", "Layout"), ("App", "Button"), ("App", "TodoList"), ("TodoList", "TodoRow")} <= (
        calls
    )
    assert not {callee for _, callee in calls} & {"ul", "li", "main", "h1", "button", "span"}


def test_jsx_is_parsed_with_the_javascript_grammar() -> None:
    parsed = parse_fixture("widgets.jsx")
    ast = parsed.ast
    assert ast.language == "jsx" and not ast.parse_error
    assert [(f.name, f.line_start, f.line_end) for f in ast.functions] == [
        ("Avatar", 4, 6),
        ("UserCard", 10, 16),
    ]
    assert ast.functions[0].params == ["{ user, size = 32 }"]
    (user_list,) = ast.classes
    assert (user_list.name, user_list.extends, user_list.is_exported) == (
        "UserList",
        "React.PureComponent",
        True,
    )
    assert [(m.name, m.line_start, m.line_end) for m in user_list.methods] == [
        ("handleSelect", 22, 24),
        ("render", 26, 30),
    ]
    default_props = next(p for p in user_list.properties if p.name == "defaultProps")
    assert default_props.is_static
    assert ("UserList", "default") in {(e.name, e.type) for e in ast.exports}
    assert [(t.line, t.text) for t in ast.todos] == [(13, "show the role badge")]
    assert ("UserList.render", "UserCard") in {(c.caller, c.callee) for c in parsed.indexes.calls}


def test_commonjs_requires() -> None:
    ast = parse_fixture("legacy.cjs").ast
    assert ast.language == "javascript"
    imports = [(i.name, i.from_, i.line, i.type, i.is_default) for i in ast.imports]
    assert imports == [
        ("fs", "fs", 3, "builtin", True),
        ("path", "node:path", 4, "builtin", True),
        ("promisify", "util", 5, "builtin", False),
        ("parseYaml", "yaml", 6, "external", False),
        ("", "debug", 7, "external", False),
        ("defaults", "./defaults.json", 8, "internal", True),
        ("", "./plugins", 69, "internal", False),
    ]


def test_commonjs_exports() -> None:
    ast = parse_fixture("legacy.cjs").ast
    assert [(e.name, e.type, e.line) for e in ast.exports] == [
        ("ConfigLoader", "class", 66),
        ("merge", "function", 66),
        ("loadAll", "function", 66),
        ("version", "const", 66),
        ("validate", "function", 67),
        ("watch", "function", 68),
    ]
    functions = {f.name: f for f in ast.functions}
    assert all(f.is_exported for f in functions.values())
    assert functions["loadAll"].is_async
    assert functions["merge"].params == ["target", "...sources"]
    assert ast.classes[0].is_exported


def test_commonjs_class_members() -> None:
    (loader,) = parse_fixture("legacy.cjs").ast.classes
    kinds = [(m.name, m.kind, m.is_static, m.is_async) for m in loader.methods]
    assert kinds == [
        ("constructor", "constructor", False, False),
        ("from", "method", True, False),
        ("load", "method", False, True),
        ("resolve", "method", False, False),
        ("env", "getter", False, False),
    ]
    assert loader.methods[0].params == ["root", "options"]


def test_commonjs_default_export_forms() -> None:
    from ipuaro.index.parsers import parse_source

    text = "\n".join(
        [
            "function main() {}",
            "module.exports = main;",
            "module.exports.Helper = class Helper {};",
            "exports.answer = 42;",
        ]
    )
    ast = parse_source("lib/index.js", text).ast
    assert [(e.name, e.type, e.line) for e in ast.exports] == [
        ("main", "default", 2),
        ("Helper", "class", 3),
        ("answer", "const", 4),
    ]
    assert ast.functions[0].is_exported
    assert [c.name for c in ast.classes] == ["Helper"]


def test_module_exports_of_anonymous_function() -> None:
    from ipuaro.index.parsers import parse_source

    ast = parse_source(
        "lib/plugin.js", "module.exports = async function () {\n  return 1;\n};\n"
    ).ast
    assert [(f.name, f.line_start, f.line_end, f.is_async) for f in ast.functions] == [
        ("default", 1, 3, True)
    ]
    assert [(e.name, e.type) for e in ast.exports] == [("default", "default")]


def test_methods_written_as_property_assignments() -> None:
    source = (
        "var app = exports = module.exports = {};\n"
        "function Route(path) {\n  this.path = path;\n}\n"
        "Route.prototype.dispatch = function dispatch(req, res, done) {\n  done();\n};\n"
        "app.use = function use(fn) {\n  return this;\n};\n"
        "res.send = (body) => body;\n"
        "exports.helper = function () {};\n"
        "function inner() {\n  local.skip = function () {};\n}\n"
    )
    parsed = parse_source("lib/route.js", source)
    spans = [(f.name, f.line_start, f.line_end) for f in parsed.ast.functions]
    assert spans == [
        ("Route", 2, 4),
        ("Route.dispatch", 5, 7),
        ("app.use", 8, 10),
        ("res.send", 11, 11),
        ("helper", 12, 12),
        ("inner", 13, 15),
    ]
    methods = {(s.name, s.kind, s.container) for s in parsed.indexes.symbols}
    assert {("dispatch", "method", "Route"), ("use", "method", "app")} <= methods
    assert ("send", "method", "res") in methods
    calls = {(c.caller, c.callee) for c in parsed.indexes.calls}
    assert ("Route.dispatch", "done") in calls


def test_object_literal_exports_record_their_functions() -> None:
    source = "module.exports = {\n  a() { return 1 },\n  b: function () {},\n  c: 1,\n};\n"
    parsed = parse_source("lib/x.js", source)
    assert [(f.name, f.line_start, f.line_end) for f in parsed.ast.functions] == [
        ("a", 2, 2),
        ("b", 3, 3),
    ]
    assert [(e.name, e.type) for e in parsed.ast.exports] == [
        ("a", "function"),
        ("b", "function"),
        ("c", "const"),
    ]
