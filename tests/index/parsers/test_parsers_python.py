"""Python extraction: imports and their classification, functions, classes, members, exports."""

from __future__ import annotations

from ipuaro.domain.files import ClassInfo, FileAST

from .support import parse_fixture


def _class(ast: FileAST, name: str) -> ClassInfo:
    (found,) = [item for item in ast.classes if item.name == name]
    return found


def test_imports_with_classification() -> None:
    ast = parse_fixture("models.py.txt").ast
    imports = [(i.name, i.from_, i.line, i.type) for i in ast.imports]
    assert imports == [
        ("annotations", "__future__", 6, "builtin"),
        ("asyncio", "asyncio", 8, "builtin"),
        ("logging", "logging", 9, "builtin"),
        ("osp", "os.path", 10, "builtin"),
        ("ABC", "abc", 11, "builtin"),
        ("abstractmethod", "abc", 11, "builtin"),
        ("Iterable", "collections.abc", 12, "builtin"),
        ("dataclass", "dataclasses", 13, "builtin"),
        ("field", "dataclasses", 13, "builtin"),
        ("TYPE_CHECKING", "typing", 14, "builtin"),
        ("ClassVar", "typing", 14, "builtin"),
        ("Final", "typing", 14, "builtin"),
        ("models", "django.db", 16, "external"),
        ("_", "django.utils.translation", 17, "external"),
        ("signals", ".", 19, "internal"),
        ("cached", "..core.cache", 20, "internal"),
        ("BookQuerySet", ".querysets", 21, "internal"),
        ("Mailer", ".services", 24, "internal"),
        ("json", "ujson", 144, "external"),
        ("json", "json", 146, "builtin"),
    ]
    assert not any(i.is_default for i in ast.imports)


def test_dunder_all_defines_the_exports() -> None:
    ast = parse_fixture("models.py.txt").ast
    assert [(e.name, e.type, e.line) for e in ast.exports] == [
        ("Book", "class", 26),
        ("Library", "class", 26),
        ("checkout", "function", 26),
        ("Repository", "class", 26),
    ]
    functions = {f.name: f for f in ast.functions}
    assert functions["checkout"].is_exported
    assert not functions["notify_due"].is_exported
    assert not _class(ast, "Loan").is_exported


def test_module_functions() -> None:
    ast = parse_fixture("models.py.txt").ast
    functions = {f.name: f for f in ast.functions}
    # nested `lend_one` is not a module-level function; `dumps` under try/except is
    assert list(functions) == ["checkout", "notify_due", "_load_fixtures", "dumps"]
    checkout = functions["checkout"]
    assert checkout.params == ["library", "*books", "member_id"]
    assert checkout.return_type == "list[Loan]"
    notify = functions["notify_due"]
    assert notify.is_async and notify.params == ["loans", "days_left"]


def test_class_bases_and_abstract() -> None:
    ast = parse_fixture("models.py.txt").ast
    book = _class(ast, "Book")
    assert (book.extends, book.implements, book.is_abstract) == ("models.Model", [], False)
    repository = _class(ast, "Repository")
    assert repository.extends == "ABC" and repository.is_abstract
    loan = _class(ast, "Loan")
    assert loan.decorators == ["dataclass(frozen=True)"]
    assert loan.extends is None


def test_abstractmethod_makes_a_class_abstract() -> None:
    from ipuaro.index.parsers import parse_source

    text = "class Shape(Base, Mixin):\n    @abstractmethod\n    def area(self): ...\n"
    (shape,) = parse_source("shapes.py", text).ast.classes
    assert (shape.extends, shape.implements, shape.is_abstract) == ("Base", ["Mixin"], True)


def test_metaclass_keyword_is_not_a_base() -> None:
    from ipuaro.index.parsers import parse_source

    text = "class Plugin(Base, metaclass=ABCMeta):\n    pass\n"
    (plugin,) = parse_source("plugins.py", text).ast.classes
    assert (plugin.extends, plugin.implements, plugin.is_abstract) == ("Base", [], True)


def test_methods_kinds_visibility_static_async() -> None:
    ast = parse_fixture("models.py.txt").ast
    book = _class(ast, "Book")
    assert [(m.name, m.kind, m.visibility) for m in book.methods] == [
        ("__str__", "method", "public"),
        ("slug", "getter", "public"),
        ("slug", "setter", "public"),
        ("_normalise_isbn", "method", "protected"),
    ]
    library = _class(ast, "Library")
    methods = {m.name: m for m in library.methods}
    assert methods["__init__"].kind == "constructor"
    assert methods["__init__"].params == ["self", "repository", "mailer"]
    assert methods["from_settings"].is_static and methods["from_settings"].decorators == [
        "classmethod"
    ]
    assert methods["loan_key"].is_static and methods["loan_key"].params == ["member_id", "isbn"]
    assert methods["available"].is_async and methods["available"].decorators == ["cached(ttl=60)"]
    assert methods["__loans_for"].visibility == "private"
    assert methods["_find"].visibility == "protected"
    assert methods["lend"].params == ["self", "book", "member_id", "**options"]
    assert methods["lend"].return_type == "Loan"


def test_class_and_instance_properties() -> None:
    ast = parse_fixture("models.py.txt").ast
    library = _class(ast, "Library")
    properties = [
        (p.name, p.line, p.type, p.visibility, p.is_static, p.is_readonly)
        for p in library.properties
    ]
    assert properties == [
        ("max_loans", 77, "ClassVar[int]", "public", True, False),
        ("name", 78, "Final[str]", "public", False, True),
        ("_registry", 79, None, "protected", True, False),
        ("repository", 84, None, "public", False, False),
        ("_mailer", 85, None, "protected", False, False),
        ("__loans", 86, "dict[int, list[Loan]]", "private", False, False),
        ("notify", 88, None, "public", False, False),
    ]
    book = _class(ast, "Book")
    assert [(p.name, p.is_static) for p in book.properties] == [
        ("title", True),
        ("isbn", False),
        ("objects", True),
    ]


def test_nested_class_is_a_symbol_of_its_container() -> None:
    parsed = parse_fixture("models.py.txt")
    assert ("Meta", "class", "Book") in {
        (s.name, s.kind, s.container) for s in parsed.indexes.symbols
    }
    assert "Meta" not in {c.name for c in parsed.ast.classes}


def test_docstring_todo_is_not_a_comment_todo() -> None:
    todos = parse_fixture("models.py.txt").ast.todos
    assert [(t.line, t.tag, t.text) for t in todos] == [
        (52, "FIXME", "ISBN-10 check digits can be X")
    ]


def test_calls_are_attributed_to_methods_classes_and_module() -> None:
    calls = {(c.caller, c.callee, c.line) for c in parse_fixture("models.py.txt").indexes.calls}
    assert ("<module>", "getLogger", 28) in calls
    assert ("Book", "CharField", 33) in calls  # class body
    assert ("Library.lend", "__loans_for", 112) in calls
    assert ("Library.from_settings", "cls", 94) in calls
    # a call inside a nested function belongs to the enclosing module-level function
    assert ("checkout", "lend", 124) in calls


def test_without_dunder_all_public_names_are_exported() -> None:
    ast = parse_fixture("helpers.py.txt").ast
    assert [(e.name, e.type) for e in ast.exports] == [
        ("PATTERN", "const"),
        ("width", "const"),
        ("height", "const"),
        ("parse_ints", "function"),
        ("Matrix", "class"),
        ("Vector", "type"),
    ]
    assert [(i.name, i.from_, i.type) for i in ast.imports] == [
        ("re", "re", "builtin"),
        ("np", "numpy", "external"),
        ("settings", "..", "internal"),
    ]
    assert [t.name for t in ast.types] == ["Vector"]
    (matrix,) = ast.classes
    assert [p.name for p in matrix.properties] == ["rows", "cols", "data"]


def test_module_variables_are_symbols() -> None:
    symbols = {(s.name, s.kind) for s in parse_fixture("helpers.py.txt").indexes.symbols}
    assert {("PATTERN", "variable"), ("_cache", "variable"), ("width", "variable")} <= symbols


def test_import_in_function_and_star_import() -> None:
    from ipuaro.index.parsers import parse_source

    text = "from os.path import *\n\ndef load():\n    import yaml as y\n    return y\n"
    ast = parse_source("pkg/load.py", text).ast
    assert [(i.name, i.from_, i.line, i.type) for i in ast.imports] == [
        ("*", "os.path", 1, "builtin"),
        ("y", "yaml", 4, "external"),
    ]


def test_pyi_stub_is_python() -> None:
    from ipuaro.index.parsers import parse_source

    ast = parse_source("pkg/api.pyi", "def get(url: str) -> bytes: ...\n").ast
    assert ast.language == "python"
    assert [(f.name, f.return_type) for f in ast.functions] == [("get", "bytes")]


def test_aliased_imports_keep_the_imported_name() -> None:
    from ipuaro.index.parsers import parse_source

    text = "from . import views as auth_views\nfrom .models import User\nimport os.path as osp\n"
    ast = parse_source("pkg/urls.py", text).ast
    assert [(i.name, i.imported, i.from_) for i in ast.imports] == [
        ("auth_views", "views", "."),
        ("User", "User", ".models"),
        ("osp", "", "os.path"),
    ]
