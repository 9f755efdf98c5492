"""The index line the TUI and ACP show names the files with parse errors (real indexer, real
tree-sitter, real SQLite store)."""

from __future__ import annotations

from pathlib import Path

from ipuaro.config.schema import Config
from ipuaro.core.indexing import report_of
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore


def test_the_index_line_names_the_files_that_did_not_parse(tmp_path: Path) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / "good.py").write_text("def ok():\n    return 1\n", encoding="utf-8")
    (root / "bad.py").write_text("def broken(:\n  x = = 2\n", encoding="utf-8")
    store = SqliteStore(tmp_path / "data" / "index.db", "app")
    try:
        summary = Indexer(root, Config(), store).index(workers=1)
    finally:
        store.close()
    assert "1 parse error (bad.py)" in report_of(summary).line()
