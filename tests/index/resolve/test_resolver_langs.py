"""Imports of the tags languages resolved to project files, on small real-shaped projects
(a Go module, a Cargo crate, a Maven tree, a C library, a Ruby gem, a composer package, a C#
solution), then through a full index: dependencies, dependents and hub flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.index.resolve.resolver import ProjectLayout
from ipuaro.index.scan.scanner import scan
from ipuaro.store.sqlite import SqliteStore
from tests.index.conftest import make_indexer, write

GO = {
    "go.mod": "module example.com/shapes\n\ngo 1.22\n",
    "main.go": (
        'package main\n\nimport (\n\t"fmt"\n\t"example.com/shapes/internal/units"\n'
        '\tgeo "example.com/shapes/geo"\n\t"github.com/spf13/cobra"\n)\n\n'
        "func main() { fmt.Println(units.Meter(1), geo.Area()); cobra.Command{} }\n"
    ),
    "internal/units/units.go": "package units\n\ntype Meter float64\n",
    "internal/units/units_test.go": "package units\n",
    "geo/area.go": 'package geo\n\nimport "example.com/shapes/internal/units"\n\n'
    "func Area() units.Meter { return 0 }\n",
    "geo/doc.go": "// Package geo.\npackage geo\n",
}
RUST = {
    "Cargo.toml": '[package]\nname = "geometry"\n',
    "src/lib.rs": "pub mod units;\nmod shapes;\nuse crate::units::Meter;\nuse serde::Serialize;\n",
    "src/units.rs": "pub struct Meter(f64);\n",
    "src/shapes/mod.rs": "mod circle;\nuse super::units::Meter;\nuse self::circle::Circle;\n",
    "src/shapes/circle.rs": "use crate::units;\npub struct Circle;\n",
}
JAVA = {
    "src/main/java/com/example/money/Money.java": (
        "package com.example.money;\npublic class Money {}\n"
    ),
    "src/main/java/com/example/money/Rates.java": (
        "package com.example.money;\npublic class Rates { public static int ONE = 1; }\n"
    ),
    "src/main/java/com/example/shop/Cart.java": (
        "package com.example.shop;\nimport com.example.money.Money;\n"
        "import static com.example.money.Rates.ONE;\nimport java.util.List;\n"
        "public class Cart {}\n"
    ),
    "src/main/kotlin/com/example/shop/Orders.kt": (
        "package com.example.shop\nimport com.example.money.Money as Cash\n"
        "import com.example.money.*\nclass Orders\n"
    ),
}
JDK_UTIL = {  # a source tree rooted inside its packages, as a JDK src.zip's java/util
    "ArrayList.java": (
        "package java.util;\nimport java.util.function.Consumer;\nimport jdk.internal.Misc;\n"
        "public class ArrayList {}\n"
    ),
    "List.java": "package java.util;\npublic interface List {}\n",
    "function/Consumer.java": "package java.util.function;\nimport java.util.List;\n",
}
C = {
    "include/store/store.h": "int store_open(void);\n",
    "src/store.c": '#include <stdio.h>\n#include "store/store.h"\n#include "internal.h"\n'
    "int store_open(void) { return 0; }\n",
    "src/internal.h": "#define X 1\n",
    "src/missing.c": '#include "gone.h"\n',
}
RUBY = {
    "lib/shop.rb": 'require "json"\nrequire "shop/cart"\nrequire_relative "shop/ledger"\n',
    "lib/shop/cart.rb": "class Cart; end\n",
    "lib/shop/ledger.rb": "class Ledger; end\n",
}
PHP = {
    "composer.json": json.dumps({"autoload": {"psr-4": {"App\\": "src/"}}}),
    "src/Models/Product.php": "<?php\nnamespace App\\Models;\nclass Product {}\n",
    "src/Cart.php": (
        "<?php\nnamespace App;\nuse App\\Models\\Product;\nuse Psr\\Log\\LoggerInterface;\n"
        "require_once __DIR__ . '/helpers.php';\nclass Cart {}\n"
    ),
    "src/helpers.php": "<?php\nfunction h() {}\n",
}
CSHARP = {
    "Shop/Models/Item.cs": "namespace Shop.Models { public class Item {} }\n",
    "Shop/Services/Stock.cs": (
        "using System;\nusing Shop.Models;\nnamespace Shop.Services { public class Stock {} }\n"
    ),
}


def _layout(root: Path, files: dict[str, str]) -> ProjectLayout:
    for rel, text in files.items():
        write(root, rel, text)
    return ProjectLayout.load(root, scan(root, Config()).paths())


@pytest.mark.parametrize(
    ("project", "from_path", "specifier", "language", "expected"),
    [
        (GO, "main.go", "example.com/shapes/internal/units", "go", "internal/units/units.go"),
        (GO, "main.go", "example.com/shapes/geo", "go", "geo/area.go"),
        (GO, "main.go", "fmt", "go", None),
        (GO, "main.go", "github.com/spf13/cobra", "go", None),
        (RUST, "src/lib.rs", "crate::units::Meter", "rust", "src/units.rs"),
        (RUST, "src/lib.rs", "units", "rust", "src/units.rs"),  # `pub mod units;`
        (RUST, "src/lib.rs", "shapes", "rust", "src/shapes/mod.rs"),
        (RUST, "src/lib.rs", "serde::Serialize", "rust", None),
        (RUST, "src/shapes/mod.rs", "super::units::Meter", "rust", "src/units.rs"),
        (RUST, "src/shapes/mod.rs", "self::circle::Circle", "rust", "src/shapes/circle.rs"),
        (RUST, "src/shapes/mod.rs", "circle", "rust", "src/shapes/circle.rs"),
        (RUST, "src/shapes/circle.rs", "crate::units", "rust", "src/units.rs"),
        (RUST, "src/lib.rs", "std::fmt::{self, Display}", "rust", None),
        (RUST, "src/shapes/circle.rs", "super::*", "rust", "src/shapes/mod.rs"),
        (RUST, "src/shapes/mod.rs", "crate::helper", "rust", "src/lib.rs"),  # an item of lib.rs
        (RUST, "src/lib.rs", "serde", "rust", None),
        (
            JAVA,
            "src/main/java/com/example/shop/Cart.java",
            "com.example.money.Money",
            "java",
            "src/main/java/com/example/money/Money.java",
        ),
        (
            JAVA,
            "src/main/java/com/example/shop/Cart.java",
            "com.example.money.Rates.ONE",  # static import: the class's file
            "java",
            "src/main/java/com/example/money/Rates.java",
        ),
        (JAVA, "src/main/java/com/example/shop/Cart.java", "java.util.List", "java", None),
        (
            JAVA,
            "src/main/kotlin/com/example/shop/Orders.kt",
            "com.example.money",  # `import com.example.money.*`: the package folder
            "kotlin",
            "src/main/java/com/example/money/Money.java",
        ),
        (
            JDK_UTIL,
            "ArrayList.java",
            "java.util.function.Consumer",
            "java",
            "function/Consumer.java",
        ),
        (JDK_UTIL, "function/Consumer.java", "java.util.List", "java", "List.java"),
        (JDK_UTIL, "ArrayList.java", "jdk.internal.Misc", "java", None),
        (C, "src/store.c", "internal.h", "c", "src/internal.h"),
        (C, "src/store.c", "store/store.h", "c", "include/store/store.h"),
        (C, "src/store.c", "stdio.h", "c", None),
        (RUBY, "lib/shop.rb", "shop/ledger", "ruby", "lib/shop/ledger.rb"),
        (RUBY, "lib/shop.rb", "shop/cart", "ruby", "lib/shop/cart.rb"),
        (RUBY, "lib/shop.rb", "json", "ruby", None),
        (PHP, "src/Cart.php", "App\\Models\\Product", "php", "src/Models/Product.php"),
        (PHP, "src/Cart.php", "/helpers.php", "php", "src/helpers.php"),
        (PHP, "src/Cart.php", "Psr\\Log\\LoggerInterface", "php", None),
        (CSHARP, "Shop/Services/Stock.cs", "Shop.Models", "c_sharp", "Shop/Models/Item.cs"),
        (CSHARP, "Shop/Services/Stock.cs", "System", "c_sharp", None),
    ],
)
def test_each_module_system(
    tmp_path: Path,
    project: dict[str, str],
    from_path: str,
    specifier: str,
    language: str,
    expected: str | None,
) -> None:
    resolution = _layout(tmp_path, project).resolve(from_path, specifier, language)
    assert resolution.path == expected
    assert resolution.internal == (expected is not None)


def test_full_index_fills_dependencies_dependents_and_hubs(
    tmp_path: Path, store: SqliteStore
) -> None:
    files = dict(GO)
    for n in range(6):  # six importers make `units` a hub (more than five dependents)
        files[f"cmd/tool{n}/main.go"] = (
            f'package main\n\nimport "example.com/shapes/internal/units"\n\n'
            f"func main() {{ _ = units.Meter({n}) }}\n"
        )
    for rel, text in {**files, **{f"c/{k}": v for k, v in C.items()}}.items():
        write(tmp_path, rel, text)
    make_indexer(tmp_path, store).index(workers=1)

    main = store.get_ast("main.go")
    assert main is not None
    kinds = {i.from_: (i.type, i.resolved) for i in main.imports}
    assert kinds["example.com/shapes/geo"] == ("internal", "geo/area.go")
    assert kinds["fmt"] == ("external", None)
    units = store.get_meta("internal/units/units.go")
    assert units is not None and units.is_hub
    assert units.dependents == sorted(
        ["main.go", "geo/area.go", *(f"cmd/tool{n}/main.go" for n in range(6))]
    )
    assert store.get_meta("main.go").dependencies == [  # type: ignore[union-attr]
        "geo/area.go",
        "internal/units/units.go",
    ]
    # a quoted include with no file stays internal and is marked unresolved
    missing = store.get_ast("c/src/missing.c")
    assert missing is not None
    assert [(i.type, i.resolved, i.unresolved) for i in missing.imports] == [
        ("internal", None, True)
    ]
    store_c = store.get_meta("c/src/store.c")
    assert store_c is not None
    assert store_c.dependencies == ["c/include/store/store.h", "c/src/internal.h"]


def test_editing_go_mod_re_resolves_importers(tmp_path: Path, store: SqliteStore) -> None:
    for rel, text in GO.items():
        write(tmp_path, rel, text.replace("example.com/shapes", "example.com/old"))
    write(tmp_path, "main.go", GO["main.go"])  # imports the new module path: unresolved
    indexer = make_indexer(tmp_path, store)
    indexer.index(workers=1)
    assert store.get_meta("main.go").dependencies == []  # type: ignore[union-attr]
    write(tmp_path, "go.mod", GO["go.mod"])
    indexer.index(workers=1)
    assert store.get_meta("main.go").dependencies == [  # type: ignore[union-attr]
        "geo/area.go",
        "internal/units/units.go",
    ]
