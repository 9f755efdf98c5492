"""The check after every applied edit, per language family, with the real indexer, a real
SQLite store and the real tools: a replace that breaks the syntax names the line, a signature
change lists the call sites in the two other files, a rename lists the uses, a broken import is
named — in the text the model reads and in the typed ``check`` of the result's data."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ipuaro.config.schema import Config
from ipuaro.domain import ToolResult
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ToolContext
from ipuaro.tools.context import build_context
from ipuaro.tools.registry import ToolRegistry


@dataclass
class Lang:
    files: dict[str, str]
    defining: str
    """The file that defines the function both other files call."""
    break_syntax: tuple[str, str, int]
    """old, new, and the line the syntax error is on."""
    signature: tuple[str, str]
    rename: tuple[str, str]
    importer: str
    break_import: tuple[str, str, str]
    """old, new (in ``importer``), and the name the finding says."""
    callers: tuple[str, str]


PY = Lang(
    files={
        "shop/lib.py": 'def format_price(amount):\n    return f"{amount:.2f}"\n',
        "shop/a.py": "from shop.lib import format_price\n\nprint(format_price(1))\n",
        "shop/b.py": (
            "from shop.lib import format_price\n\n\ndef total():\n    return format_price(2)\n"
        ),
        "shop/__init__.py": "",
    },
    defining="shop/lib.py",
    break_syntax=('return f"{amount:.2f}"', 'return (f"{amount:.2f}"', 2),
    signature=("def format_price(amount):", "def format_price(amount, currency):"),
    rename=("def format_price(", "def render_price("),
    importer="shop/a.py",
    break_import=(
        "from shop.lib import format_price",
        "from shop.lib import format_prize",
        "format_prize",
    ),
    callers=("shop/a.py:3", "shop/b.py:5"),
)

TS = Lang(
    files={
        "src/price.ts": (
            "export function formatPrice(amount: number): string {\n"
            "  return amount.toFixed(2);\n"
            "}\n"
        ),
        "src/a.ts": "import { formatPrice } from './price';\n\nexport const a = formatPrice(1);\n",
        "src/b.ts": (
            "import { formatPrice } from './price';\n\n"
            "export function b(): string {\n  return formatPrice(2);\n}\n"
        ),
    },
    defining="src/price.ts",
    break_syntax=("  return amount.toFixed(2);\n}", "  return amount.toFixed(2);\n", 2),
    signature=("formatPrice(amount: number)", "formatPrice(amount: number, currency: string)"),
    rename=("function formatPrice(", "function renderPrice("),
    importer="src/a.ts",
    break_import=("from './price'", "from './prices'", "./prices"),
    callers=("src/a.ts:3", "src/b.ts:4"),
)

GO = Lang(
    files={
        "go.mod": "module example.com/shop\n\ngo 1.21\n",
        "price/price.go": (
            'package price\n\nfunc FormatPrice(amount float64) string {\n\treturn ""\n}\n'
        ),
        "a/a.go": (
            'package a\n\nimport "example.com/shop/price"\n\n'
            "func A() string {\n\treturn price.FormatPrice(1)\n}\n"
        ),
        "b/b.go": (
            'package b\n\nimport "example.com/shop/price"\n\n'
            "func B() string {\n\treturn price.FormatPrice(2)\n}\n"
        ),
    },
    defining="price/price.go",
    break_syntax=('\treturn ""\n}', '\treturn ""\n', 4),
    signature=("FormatPrice(amount float64)", "FormatPrice(amount float64, currency string)"),
    rename=("func FormatPrice(", "func RenderPrice("),
    importer="a/a.go",
    break_import=(
        '"example.com/shop/price"',
        '"example.com/shop/prices"',
        "example.com/shop/prices",
    ),
    callers=("a/a.go:6", "b/b.go:6"),
)

RUST = Lang(
    files={
        "Cargo.toml": '[package]\nname = "shop"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod price;\npub mod a;\npub mod b;\n",
        "src/price.rs": "pub fn format_price(amount: f64) -> String {\n    String::new()\n}\n",
        "src/a.rs": (
            "use crate::price::format_price;\n\npub fn a() -> String {\n    format_price(1.0)\n}\n"
        ),
        "src/b.rs": (
            "use crate::price::format_price;\n\npub fn b() -> String {\n    format_price(2.0)\n}\n"
        ),
    },
    defining="src/price.rs",
    break_syntax=("    String::new()\n}", "    String::new(\n}", 2),
    signature=("format_price(amount: f64)", "format_price(amount: f64, currency: &str)"),
    rename=("fn format_price(", "fn render_price("),
    importer="src/a.rs",
    break_import=("crate::price::format_price", "crate::prices::format_price", "format_price"),
    callers=("src/a.rs:4", "src/b.rs:4"),
)

JAVA = Lang(
    files={
        "src/main/java/shop/Price.java": (
            "package shop;\n\npublic class Price {\n"
            '    public static String format(double amount) {\n        return "";\n    }\n}\n'
        ),
        "src/main/java/shop/cart/Cart.java": (
            "package shop.cart;\n\nimport shop.Price;\n\npublic class Cart {\n"
            "    String total() {\n        return Price.format(1);\n    }\n}\n"
        ),
        "src/main/java/shop/pay/Pay.java": (
            "package shop.pay;\n\nimport shop.Price;\n\npublic class Pay {\n"
            "    String pay() {\n        return Price.format(2);\n    }\n}\n"
        ),
    },
    defining="src/main/java/shop/Price.java",
    break_syntax=('        return "";\n    }\n}', '        return "";\n    }\n', 6),
    signature=("format(double amount)", "format(double amount, String currency)"),
    rename=("String format(", "String render("),
    importer="src/main/java/shop/cart/Cart.java",
    break_import=("import shop.Price;", "import shop.Prices;", "shop.Prices"),
    callers=("src/main/java/shop/cart/Cart.java:7", "src/main/java/shop/pay/Pay.java:7"),
)

LANGS = {"python": PY, "typescript": TS, "go": GO, "rust": RUST, "java": JAVA}


@dataclass
class Env:
    root: Path
    store: SqliteStore
    ctx: ToolContext
    registry: ToolRegistry

    async def replace(self, path: str, old: str, new: str) -> ToolResult:
        text = (self.root / path).read_text()
        assert old in text, (old, path)
        result = await self.registry.call(
            "replace", {"path": path, "old": old, "new": new}, self.ctx, call_id="t"
        )
        assert result.success, result.error
        return result

    def check(self, result: ToolResult) -> dict[str, Any]:
        assert result.details is not None
        check: dict[str, Any] = result.details["data"]["check"]
        return check


def text(result: ToolResult) -> str:
    """What the model reads of the result."""
    return str(result.data)


@pytest.fixture(params=list(LANGS))
def lang(request: pytest.FixtureRequest) -> Lang:
    return LANGS[request.param]


@pytest.fixture
def env(tmp_path: Path, lang: Lang) -> Iterator[Env]:
    root = tmp_path / "project"
    for rel, text in lang.files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    config = Config()
    store = SqliteStore(tmp_path / "store.db", "tests-aftercheck")
    indexer = Indexer(root, config, store)
    indexer.index()
    ctx = build_context(
        root,
        config,
        store,
        lambda changed, deleted: indexer.update_paths(changed, deleted),
        session_id="s",
        auto_apply=True,
    )
    yield Env(root, store, ctx, ToolRegistry.default())
    store.close()


async def test_a_replace_that_breaks_the_syntax_names_the_line(env: Env, lang: Lang) -> None:
    old, new, line = lang.break_syntax
    result = await env.replace(lang.defining, old, new)
    problems = env.check(result)["syntax"]
    assert problems, text(result)
    assert [p["line"] for p in problems] == [line]
    assert f"new syntax error at {lang.defining}:{line}:" in text(result)


async def test_a_signature_change_lists_the_call_sites_in_both_other_files(
    env: Env, lang: Lang
) -> None:
    result = await env.replace(lang.defining, *lang.signature)
    (item,) = env.check(result)["mayBreak"]
    assert item["change"] == "changed"
    uses = {f"{u['path']}:{u['line']}" for u in item["uses"]}
    assert set(lang.callers) <= uses
    for site in lang.callers:
        assert site in text(result)
    assert "signature changed in" in text(result)
    # the typed field the front ends and headless JSON read
    assert result.check is not None and result.check.lines == [
        line.removeprefix("- ") for line in text(result).splitlines() if line.startswith("- ")
    ]


async def test_a_rename_of_a_used_function_lists_its_uses(env: Env, lang: Lang) -> None:
    result = await env.replace(lang.defining, *lang.rename)
    (item,) = env.check(result)["mayBreak"]
    assert item["change"] == "removed"
    assert set(lang.callers) <= {f"{u['path']}:{u['line']}" for u in item["uses"]}
    assert "removed from" in text(result)


async def test_an_edit_that_breaks_an_import_names_it(env: Env, lang: Lang) -> None:
    old, new, named = lang.break_import
    result = await env.replace(lang.importer, old, new)
    broken = env.check(result)["imports"]
    assert [b["name"] if named == b["name"] else b["source"] for b in broken] == [named]
    assert "broken import at " + lang.importer in text(result)


async def test_an_edit_that_breaks_nothing_adds_nothing(env: Env, lang: Lang) -> None:
    # a comment-only change: the model is not told about problems that are not there
    first = (env.root / lang.defining).read_text().splitlines()[0]
    comment = "# note" if lang is PY else "// note"
    result = await env.replace(lang.defining, first, f"{first}\n{comment}")
    assert env.check(result) == {"syntax": [], "mayBreak": [], "imports": [], "lines": []}
    assert result.check is None
    assert "check after the edit" not in text(result)
