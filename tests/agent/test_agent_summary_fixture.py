"""The project summary of a real indexed project (real tree-sitter, real SQLite file): what the
model reads must name each file under its own folder, rank code (not prose) as complex, and not
call a declaration file the entry point."""

from __future__ import annotations

import re
from pathlib import Path

from ipuaro.agent.context.project import ProjectSummary
from ipuaro.agent.context.ranking import RankSignals
from ipuaro.config.schema import Config
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.llm.tokens import estimate_tokens
from ipuaro.store.sqlite import SqliteStore

_CART = (
    """\
const tax = require("./tax");

function total(items) {
  let sum = 0;
  for (const item of items) {
    if (item.price > 0) {
      sum += item.price;
    }
  }
  return sum;
}
"""
    + "\n" * 60
    + """\
function withTax(items) {
  return tax.apply(total(items));
}

module.exports = { total, withTax };
"""
)

_TAX = """\
function apply(amount) {
  return amount * 1.2;
}
module.exports = { apply };
"""


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _project(root: Path) -> None:
    _write(root, "lib/cart.js", _CART)
    _write(root, "lib/tax.js", _TAX)
    _write(root, "bin/shop.js", 'const { total } = require("../lib/cart");\ntotal([]);\n')
    _write(root, "logs/server.log", "".join(f"GET /item/{n} 200\n" for n in range(900)))
    # Root files sort after the folders above: they must still be listed at the root.
    _write(root, "package.json", '{"name": "shop", "main": "lib/cart.js"}\n')
    _write(root, "index.d.ts", "export declare function total(items: unknown[]): number;\n")
    _write(root, "History.md", "".join(f"* {n}.0.0: changes\n" for n in range(600)))
    _write(root, "HISTORY.md", "".join(f"- release {n}\n" for n in range(400)))
    _write(root, "tests/cart.test.js", 'const { total } = require("../lib/cart");\n')
    _write(root, "tsconfig.json", '{"compilerOptions": {"strict": true}}\n')


def _render(tmp_path: Path) -> str:
    root = tmp_path / "shop"
    _project(root)
    store = SqliteStore(tmp_path / "data" / "index.db", "shop")
    try:
        Indexer(root, Config(), store).index(workers=1)
        summary = ProjectSummary(store, estimate_tokens)
        summary.refresh()
        text, stats = summary.render(RankSignals(), 20_000, "shop")
    finally:
        store.close()
    assert not stats.folded
    return text


def _listed_under(text: str) -> dict[str, str]:
    """File name → the folder heading it is listed under ("" for the root)."""
    files = text.split("## Files", 1)[1]
    folder = ""
    placed: dict[str, str] = {}
    for line in files.splitlines()[1:]:
        if not line.startswith(" ") and line.endswith("/"):
            folder = line[:-1]
        elif line.startswith("  ") and not line.startswith("   "):
            placed[line.split()[0]] = folder
    return placed


def test_root_files_after_folders_are_listed_at_the_root(tmp_path: Path) -> None:
    placed = _listed_under(_render(tmp_path))
    for name in ("package.json", "index.d.ts", "History.md", "HISTORY.md", "tsconfig.json"):
        assert placed[name] == "", f"{name} listed under {placed[name]}/"
    assert placed["cart.js"] == "lib"
    assert placed["server.log"] == "logs"
    assert placed["cart.test.js"] == "tests"


def test_prose_and_logs_are_not_the_most_complex_files(tmp_path: Path) -> None:
    text = _render(tmp_path)
    complex_line = next(line for line in text.splitlines() if line.startswith("most complex:"))
    assert "lib/cart.js" in complex_line
    for prose in ("History.md", "HISTORY.md", "logs/server.log", "package.json"):
        assert prose not in complex_line


def test_a_declaration_file_is_not_an_entry_point(tmp_path: Path) -> None:
    text = _render(tmp_path)
    entry_line = next(line for line in text.splitlines() if line.startswith("entry points:"))
    assert entry_line == "entry points: bin/shop.js"  # nothing imports it: a reader starts here
    heading = next(line for line in text.splitlines() if line.startswith("  index.d.ts "))
    assert "entry" not in heading


def test_the_line_count_says_it_counts_non_blank_lines(tmp_path: Path) -> None:
    text = _render(tmp_path)
    # cart.js is 76 lines long with 14 non-blank ones; withTax sits past line 14.
    heading = next(line for line in text.splitlines() if line.startswith("  cart.js "))
    assert "14 loc" in heading
    assert not re.search(r"\b\d+L\b", heading)
    assert "loc = non-blank lines" in text
    assert re.search(r"fn withTax\(items\) L7\d-7\d", text)
