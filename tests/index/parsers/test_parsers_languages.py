"""The languages read from their query alone (``_tags``): a marked fixture per language with
exact spans, and what each records beyond spans (containers, imports, calls, TODOs)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ipuaro.index.parsers import parse_source
from ipuaro.index.parsers._languages import LANGUAGES, language_for
from ipuaro.index.parsers._tags import type_name

from .support import FIXTURES, marked_spans, parsed_spans

LANGS = FIXTURES / "langs"
FIXTURE_LANGUAGES = {
    "shapes.go": "go",
    "geometry.rs": "rust",
    "Library.java": "java",
    "store.c": "c",
    "matrix.cpp": "cpp",
    "Inventory.cs": "c_sharp",
    "account.rb": "ruby",
    "Cart.php": "php",
    "Orders.kt": "kotlin",
    "Shapes.swift": "swift",
    "Routes.scala": "scala",
    "queue.lua": "lua",
    "deploy.sh": "bash",
    "inventory.ex": "elixir",
    "Geometry.hs": "haskell",
    "stats.jl": "julia",
    "ledger.ml": "ocaml",
    "ledger.mli": "ocaml_interface",
    "list.zig": "zig",
    "network.tf": "hcl",
    "Vault.sol": "solidity",
    "queue.lisp": "commonlisp",
    "solver.f90": "fortran",
    "blink.ino": "arduino",
    "smooth.m": "matlab",
    "shapes.dart": "dart",
    "sales.R": "r",
    "cart.clj": "clojure",
    "Cart.elm": "elm",
    "cart.d": "d",
    "cart.rkt": "racket",
    "cart.el": "elisp",
    "cart.gleam": "gleam",
    "cart.pony": "pony",
    "app.properties": "properties",
    "70-shop.rules": "udev",
    "orders.chatito": "chatito",
}
# Data-like languages: their entries are `const` symbols and keys, checked by exact spans in
# test_data_languages_record_their_entries (a trailing marker would change a value).
DATA = {"app.properties", "70-shop.rules", "orders.chatito"}
NO_CALLS = {"ledger.mli"} | DATA  # an interface declares, it never calls; nor does data


def _parse(name: str):  # type: ignore[no-untyped-def]
    return parse_source(f"src/{name}", (LANGS / name).read_text(encoding="utf-8"))


def test_every_tags_language_has_a_fixture() -> None:
    tags = {name for name, spec in LANGUAGES.items() if spec.reader == "tags"}
    assert set(FIXTURE_LANGUAGES.values()) == tags
    assert {path.name for path in LANGS.iterdir()} == set(FIXTURE_LANGUAGES)


@pytest.mark.parametrize("name", sorted(set(FIXTURE_LANGUAGES) - DATA))
def test_every_definition_has_its_exact_span(name: str) -> None:
    parsed = _parse(name)
    assert parsed.ast.language == FIXTURE_LANGUAGES[name]
    assert not parsed.ast.parse_error
    expected = marked_spans((LANGS / name).read_text(encoding="utf-8"))
    assert len(expected) >= 2
    assert parsed_spans(parsed) == expected


@pytest.mark.parametrize("name", sorted(FIXTURE_LANGUAGES))
def test_todos_references_and_calls(name: str) -> None:
    parsed = _parse(name)
    assert [todo.tag for todo in parsed.ast.todos] == ["TODO"]
    assert len(parsed.indexes.reference_table) >= (4 if name in DATA else 10)
    assert bool(parsed.indexes.calls) != (name in NO_CALLS), "every fixture calls something"
    # every recorded function or method is a symbol, with its container for methods
    symbols = {(s.name, s.container) for s in parsed.indexes.symbols}
    for cls in parsed.ast.classes:
        assert (cls.name, None) in symbols or any(s[0] == cls.name for s in symbols)
        for method in cls.methods:
            assert (method.name, cls.name) in symbols


def test_methods_outside_their_type() -> None:
    go = _parse("shapes.go")
    stack = next(c for c in go.ast.classes if c.name == "Stack")
    assert [m.name for m in stack.methods] == ["Push", "Pop"]  # pointer receiver, generic type
    # a receiver whose type is not a struct of this file: a function named Type.method
    assert [f.name for f in go.ast.functions] == ["Map", "Celsius.String"]
    assert ("String", "method", "Celsius") in {
        (s.name, s.kind, s.container) for s in go.indexes.symbols
    }
    rust = _parse("geometry.rs")
    methods = {c.name: [m.name for m in c.methods] for c in rust.ast.classes}
    assert methods["Point"] == ["new"]  # impl<T: Copy> Point<T>
    assert methods["Shape"] == ["area"]  # impl Area for Shape
    assert methods["Area"] == ["area", "describe"]  # trait items
    assert "Meter.fmt" in [f.name for f in rust.ast.functions]  # impl Display for Meter
    assert "inner" not in [f.name for f in rust.ast.functions]  # nested in a function body
    cpp = _parse("matrix.cpp")
    matrix = next(c for c in cpp.ast.classes if c.name == "Matrix")
    assert [(m.name, m.kind) for m in matrix.methods] == [
        ("at", "method"),
        ("Matrix", "constructor"),
    ]
    swift = _parse("Shapes.swift")
    circle = next(c for c in swift.ast.classes if c.name == "Circle")
    assert [m.name for m in circle.methods] == ["init", "area", "scaled"]  # extension Circle


def test_overloads_and_same_named_types_stay_apart() -> None:
    java = _parse("Library.java")
    library = next(c for c in java.ast.classes if c.name == "Library")
    finds = [(m.line_start, m.params) for m in library.methods if m.name == "find"]
    assert finds == [(15, ["String isbn"]), (19, ["String author", "int limit"])]
    scala = _parse("Routes.scala")
    routers = [(c.line_start, [m.name for m in c.methods]) for c in scala.ast.classes]
    assert (13, ["handle", "add", "add"]) in routers
    assert (22, ["empty"]) in routers  # the companion object keeps its own method


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "shapes.go",
            [("fmt", "fmt"), ("m", "math"), ("units", "example.com/shapes/internal/units")],
        ),
        (
            "geometry.rs",
            [
                ("HashMap", "std::collections::HashMap"),
                ("{self, Display}", "std::fmt::{self, Display}"),
                ("Meter", "crate::units::Meter"),
            ],
        ),
        ("store.c", [("stdio", "stdio.h"), ("stdlib", "stdlib.h"), ("store", "store.h")]),
        ("account.rb", [("json", "json"), ("ledger", "ledger")]),
        (
            "Cart.php",
            [("Product", "App\\Models\\Product"), ("Logger", "Psr\\Log\\LoggerInterface")],
        ),
        ("Orders.kt", [("max", "kotlin.math.max"), ("Cash", "com.example.money.Money")]),
        ("queue.lua", [("json", "json"), ("util", "lib.util")]),
        (
            "inventory.ex",
            [("Repo", "Shop.Repo"), ("Query", "Ecto.Query"), ("Logger", "Logger")],
        ),
        (
            "Geometry.hs",
            [("Map", "Data.Map"), ("List", "Data.List"), ("Units", "Geometry.Units")],
        ),
        (
            "stats.jl",
            [("LinearAlgebra", "LinearAlgebra"), ("Base", "Base"), ("helpers", "helpers.jl")],
        ),
        ("ledger.ml", [("Printf", "Printf")]),
        ("list.zig", [("std", "std"), ("util", "util.zig")]),
        ("network.tf", [("vpc", "./modules/vpc")]),
        (
            "Vault.sol",
            [("IERC20", "./IERC20.sol"), ("Ownable", "@openzeppelin/contracts/access/Ownable.sol")],
        ),
        ("queue.lisp", [("uiop", "uiop")]),
        ("solver.f90", [("iso_fortran_env", "iso_fortran_env"), ("solver", "solver")]),
        ("blink.ino", [("Servo", "Servo.h"), ("pins", "pins.h")]),
        (
            "shapes.dart",
            [
                ("dart:math", "dart:math"),
                ("models", "package:shop/models.dart"),
                ("units", "src/units.dart"),
            ],
        ),
        ("sales.R", [("dplyr", "dplyr"), ("stats", "stats"), ("helpers", "helpers.R")]),
        (
            "cart.clj",
            [("string", "clojure.string"), ("tax", "shop.tax"), ("time", "java.time")],
        ),
        (
            "Cart.elm",
            [("Html", "Html"), ("Events", "Html.Events"), ("Item", "Shop.Item")],
        ),
        (
            "cart.d",
            [("stdio", "std.stdio"), ("algorithm", "std.algorithm"), ("item", "shop.item")],
        ),
        (
            "cart.rkt",
            [
                ("class", "racket/class"),
                ("list", "racket/list"),
                ("pricing", "pricing.rkt"),
                ("string", "racket/string"),
                ("rackunit", "rackunit"),
            ],
        ),
        ("cart.el", [("cl-lib", "cl-lib"), ("subr-x", "subr-x")]),
        (
            "cart.gleam",
            [
                ("float", "gleam/float"),
                ("io", "gleam/io"),
                ("list", "gleam/list"),
                ("shop_item", "shop/item"),  # `as shop_item`
            ],
        ),
        ("cart.pony", [("collections", "collections"), ("fmt", "format")]),
        ("70-shop.rules", [("env", "/etc/shop/till.env")]),
        ("orders.chatito", [("greetings", "./common/greetings.chatito")]),
    ],
)
def test_imports(name: str, expected: list[tuple[str, str]]) -> None:
    imports = _parse(name).ast.imports
    assert [(i.name, i.from_) for i in imports] == expected


def test_the_query_tells_internal_imports() -> None:
    kinds = {i.from_: i.type for i in _parse("geometry.rs").ast.imports}
    assert kinds["crate::units::Meter"] == "internal"
    assert kinds["std::collections::HashMap"] == "external"
    kinds = {i.from_: i.type for i in _parse("store.c").ast.imports}
    assert (kinds["store.h"], kinds["stdio.h"]) == ("internal", "external")
    kinds = {i.from_: i.type for i in _parse("account.rb").ast.imports}
    assert (kinds["ledger"], kinds["json"]) == ("internal", "external")
    kinds = {
        i.from_: i.type
        for name in ("list.zig", "network.tf", "Vault.sol", "stats.jl")
        for i in _parse(name).ast.imports
    }
    assert (kinds["util.zig"], kinds["std"]) == ("internal", "external")
    assert kinds["./modules/vpc"] == kinds["./IERC20.sol"] == kinds["helpers.jl"] == "internal"
    assert kinds["@openzeppelin/contracts/access/Ownable.sol"] == "external"


def test_calls_are_attributed_to_the_qualified_method() -> None:
    calls = {(c.caller, c.callee) for c in _parse("shapes.go").indexes.calls}
    assert ("Stack.Push", "append") in calls
    assert ("Map", "Println") in calls  # a closure's calls count for its function


@pytest.mark.parametrize(
    ("text", "expected"),
    [("*Stack[T]", "Stack"), ("ns::Box<T>", "Box"), ("&'a mut Point", "Point"), ("Vec", "Vec")],
)
def test_type_name(text: str, expected: str) -> None:
    assert type_name(text) == expected


@pytest.mark.parametrize("name", sorted(FIXTURE_LANGUAGES))
def test_broken_files_never_raise(name: str) -> None:
    text = (LANGS / name).read_text(encoding="utf-8")
    for cut in (len(text) // 3, len(text) // 2, len(text) - 7):
        parsed = parse_source(f"src/{name}", text[:cut] + "\n}}} ((( <<<\n" + text[cut:])
        assert parsed.ast.language == FIXTURE_LANGUAGES[name]


def test_language_for_the_new_extensions() -> None:
    assert [language_for(p) for p in ("a.go", "b.rs", "C.java", "d.h", "e.hpp", "f.kts")] == [
        "go",
        "rust",
        "java",
        "c",
        "cpp",
        "kotlin",
    ]


def test_grammars_load_lazily() -> None:
    code = (
        "import sys\nfrom ipuaro.index.parsers import parse_source\n"
        "parse_source('a.go', 'package a\\nfunc F() {}\\n')\n"
        "print(sorted(m for m in sys.modules if m.startswith('tree_sitter_') and '.' not in m))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['tree_sitter_go']"


def test_the_languages_added_after_the_first_thirteen() -> None:
    """What the newer rows record beyond spans: containers, clauses, names of labelled blocks."""
    haskell = _parse("Geometry.hs")
    classes = {c.name: [m.name for m in c.methods] for c in haskell.ast.classes}
    assert classes["Shape"] == ["scale", "scale"]  # instance Scalable Shape: one per equation
    assert classes["Scalable"] == ["scale"]
    area = [(f.line_start, f.line_end) for f in haskell.ast.functions if f.name == "area"]
    assert area == [(23, 24), (25, 25)]  # the first equation takes its type signature
    elixir = _parse("inventory.ex")
    assert ("Report", "class", "Shop.Inventory") in {
        (s.name, s.kind, s.container) for s in elixir.indexes.symbols
    }
    calls = {(c.caller, c.callee) for c in elixir.indexes.calls}
    assert ("Report.summary", "total_of") in calls
    assert not any(callee in ("def", "defp", "summary") for _, callee in calls)
    solidity = _parse("Vault.sol")
    vault = next(c for c in solidity.ast.classes if c.name == "Vault")
    assert [(m.name, m.kind) for m in vault.methods] == [
        ("Deposited", "method"),
        ("positive", "method"),
        ("constructor", "constructor"),
        ("deposit", "method"),
    ]
    assert [c.name for c in _parse("network.tf").ast.classes] == [
        "region",
        "vpc",
        "ubuntu",
        "web",
        "web_ip",
    ]
    ocaml = _parse("ledger.ml")
    assert ("Report", "namespace") in {(t.name, t.kind) for t in ocaml.ast.types}


def test_grammars_from_older_bindings_load_without_a_warning() -> None:
    """solidity and commonlisp wheels hand back a bare address; tree-sitter warns on those."""
    code = (
        "import warnings\nwarnings.simplefilter('error')\n"
        "from ipuaro.index.parsers import parse_source\n"
        "print(len(parse_source('a.sol', 'contract A { function f() public {} }').ast.classes),"
        " len(parse_source('a.lisp', '(defun f () 1)').ast.functions))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["1", "1"]


def test_interfaces_are_interface_symbols() -> None:
    kinds = {
        (s.name, s.kind)
        for name in ("Orders.kt", "Library.java", "shapes.go", "Inventory.cs")
        for s in _parse(name).indexes.symbols
    }
    assert {("Repository", "interface"), ("Loan", "interface"), ("Shape", "interface")} <= kinds
    assert ("IStock", "interface") in kinds and ("Order", "class") in kinds


def test_the_languages_from_the_language_pack() -> None:
    """What the pack's rows record beyond spans: containers, receivers, namespaces, calls."""
    dart = _parse("shapes.dart")
    circle = next(c for c in dart.ast.classes if c.name == "Circle")
    assert [(m.name, m.kind) for m in circle.methods][-1] == ("scaled", "method")  # extension
    assert ("Circle.compareTo", "area") in {(c.caller, c.callee) for c in dart.indexes.calls}
    r = _parse("sales.R")
    assert {c.name: [m.name for m in c.methods] for c in r.ast.classes} == {
        "Account": ["deposit"],  # setRefClass(methods = list(deposit = function…))
        "Person": ["greet"],  # setMethod("greet", "Person", …)
    }
    clojure = _parse("cart.clj")
    assert ("shop.cart", "namespace") in {(t.name, t.kind) for t in clojure.ast.types}
    assert ("Priced", "interface") in {(s.name, s.kind) for s in clojure.indexes.symbols}
    assert ("price", "method", "Instant") in {
        (s.name, s.kind, s.container) for s in clojure.indexes.symbols
    }
    elisp_calls = {(c.caller, c.callee) for c in _parse("cart.el").indexes.calls}
    assert ("cart-line-total", "cart-line-cost") in elisp_calls
    assert ("cart-line-total", "line") not in elisp_calls  # a parameter list is not a call
    pony = {c.name: [(m.name, m.kind) for m in c.methods] for c in _parse("cart.pony").ast.classes}
    assert pony["Cart"] == [("create", "constructor"), ("add", "method"), ("report", "method")]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "app.properties",
            [
                ("app.name", 3, 3),
                ("app.title", 4, 5),  # a continuation line
                ("db.url", 6, 6),
                ("db.host", 7, 7),
                ("db.port", 8, 8),
                ("feature.beta", 10, 10),  # a key with no value
                ("greeting", 11, 11),
                ("mail.from", 12, 12),
            ],
        ),
        (
            "70-shop.rules",
            [
                ("SHOP_SCANNER", 6, 6),  # ENV{…}= sets it; ENV{…}== only matches
                ("SHOP_ROLE", 9, 9),  # :=
                ("shop_till", 13, 13),  # LABEL
                ("SHOP_TILL_ID", 15, 15),
                ("shop_end", 17, 17),
            ],
        ),
        (
            "orders.chatito",
            [
                ("order_item", 5, 7),
                ("cancel_order", 9, 11),
                ("item", 13, 15),
                ("quantity", 17, 19),
                ("want", 21, 23),
            ],
        ),
    ],
)
def test_data_languages_record_their_entries(
    name: str, expected: list[tuple[str, int, int]]
) -> None:
    parsed = _parse(name)
    assert not parsed.ast.parse_error
    symbols = [(s.name, s.kind, s.line, s.line_end) for s in parsed.indexes.symbols]
    assert symbols == [(entry, "const", start, end) for entry, start, end in expected]
    assert parsed.ast.keys == [entry for entry, _, _ in expected]
    assert not parsed.ast.functions and not parsed.ast.classes


def test_data_language_references() -> None:
    rules = _parse("70-shop.rules").indexes.reference_table
    assert {"shop_end", "shop_till", "SHOP_SCANNER", "ID_SERIAL"} <= set(rules)  # GOTO, ENV{}
    chatito = _parse("orders.chatito").indexes.reference_table
    assert {"item", "quantity", "want"} <= set(chatito)  # @[slot], ~[alias] uses
    properties = _parse("app.properties").indexes.reference_table
    assert {"db.host", "user.name"} <= set(properties)  # ${…} substitutions
