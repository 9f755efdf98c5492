"""Incremental re-indexing: hash skips, re-parses, deletions and dependents, by hash and by path."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

import ipuaro.index.parsers as parsers
from ipuaro.index.parsers import ParsedFile
from ipuaro.store.sqlite import SqliteStore
from tests.index.conftest import make_indexer, write

UTIL = "packages/app/src/util.ts"
MAIN = "packages/app/src/main.ts"
LOGGER = "packages/shared/src/logger.ts"


@pytest.fixture
def parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every path the real parser is asked to parse (in this process)."""
    seen: list[str] = []
    original: Callable[[str, str], ParsedFile] = parsers.parse_source

    def counting(path: str, text: str) -> ParsedFile:
        seen.append(path)
        return original(path, text)

    monkeypatch.setattr(parsers, "parse_source", counting)
    return seen


def test_unchanged_files_are_not_parsed(
    ts_project: Path, store: SqliteStore, parse_calls: list[str]
) -> None:
    indexer = make_indexer(ts_project, store)
    first = indexer.index(workers=1)
    assert len(parse_calls) == first.parsed > 10
    parse_calls.clear()

    again = indexer.index(workers=1)

    assert parse_calls == []
    assert again.parsed == 0 and again.unchanged == first.files
    assert (again.symbols, again.references) == (first.symbols, first.references)


def test_changed_file_is_reparsed_alone(
    ts_project: Path, store: SqliteStore, parse_calls: list[str]
) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    parse_calls.clear()
    write(
        ts_project,
        UTIL,
        "export function helper(v: string): string {\n  return v;\n}\n"
        "export function extra(): number {\n  return 1;\n}\n",
    )

    summary = indexer.index(workers=1)

    assert parse_calls == [UTIL]
    assert summary.parsed == 1
    ast = store.get_ast(UTIL)
    assert ast is not None and [f.name for f in ast.functions] == ["helper", "extra"]
    assert [d.path for d in store.find_definitions("extra")] == [UTIL]
    file = store.get_file(UTIL)
    assert file is not None and file.lines[3] == "export function extra(): number {"
    meta = store.get_meta(UTIL)
    assert meta is not None and meta.dependents == [MAIN, "packages/app/src/service.ts"]


def test_deleted_file_leaves_every_index(ts_project: Path, store: SqliteStore) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    assert store.find_references("Logger", path=LOGGER)
    os.remove(ts_project / LOGGER)

    summary = indexer.index(workers=1)

    assert summary.deleted == 1
    assert store.get_file(LOGGER) is None
    assert store.get_ast(LOGGER) is None
    assert store.get_meta(LOGGER) is None
    assert store.get_file_indexes(LOGGER) is None
    assert store.find_references("Logger", path=LOGGER) == []
    assert all(d.path != LOGGER for d in store.find_definitions("Logger"))
    assert all(c.path != LOGGER for c in store.find_calls())
    graph = store.get_project_index("deps_graph")
    assert LOGGER not in graph and all(LOGGER not in deps for deps in graph.values())
    # Importers are re-resolved: their import is now unresolved and their metas updated.
    main = store.get_ast(MAIN)
    assert main is not None
    logger_import = next(i for i in main.imports if i.from_ == "@shared/logger")
    assert logger_import.unresolved and logger_import.resolved is None
    index_meta = store.get_meta("packages/shared/src/index.ts")
    assert index_meta is not None and LOGGER not in index_meta.dependencies
    assert LOGGER not in store.get_meta(MAIN).dependencies  # type: ignore[union-attr]


def test_update_paths_new_importer_updates_dependents_meta(
    ts_project: Path, store: SqliteStore, parse_calls: list[str]
) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    parse_calls.clear()
    new = "packages/app/src/extra.ts"
    write(ts_project, new, "import { helper } from './util';\nexport const x = helper('a');\n")

    summary = indexer.update_paths([new])

    assert parse_calls == [new] and summary.parsed == 1
    meta = store.get_meta(UTIL)
    assert meta is not None and new in meta.dependents
    assert store.get_meta(new).dependencies == [UTIL]  # type: ignore[union-attr]
    calls = store.find_calls(caller="<module>")
    assert any(c.path == new and c.resolved == UTIL for c in calls)


def test_created_file_resolves_a_previously_unresolved_import(
    ts_project: Path, store: SqliteStore
) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    nope = "packages/app/src/nope.ts"
    write(ts_project, nope, "export const missing = 1;\n")

    indexer.update_paths([str(ts_project / nope)])  # absolute paths are accepted too

    main = store.get_ast(MAIN)
    assert main is not None
    info = next(i for i in main.imports if i.from_ == "./nope")
    assert (info.resolved, info.unresolved) == (nope, False)
    assert nope in store.get_meta(MAIN).dependencies  # type: ignore[union-attr]
    assert store.get_meta(nope).dependents == [MAIN]  # type: ignore[union-attr]
    assert MAIN not in store.get_project_index("stats")["unresolved"]


def test_removed_definition_unresolves_dependents_calls(
    ts_project: Path, store: SqliteStore
) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    before = {c.callee: c.resolved for c in store.find_calls(caller="main")}
    assert before["helper"] == UTIL
    write(ts_project, UTIL, "export function renamed(v: string): string {\n  return v;\n}\n")

    indexer.update_paths([UTIL])

    after = {c.callee: c.resolved for c in store.find_calls(caller="main")}
    assert after["helper"] is None
    assert after["add"] == "packages/shared/src/math.ts"  # untouched edges survive


def test_update_paths_deletes_folders_and_ignores_outside(
    ts_project: Path, store: SqliteStore, tmp_path: Path
) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    folder = ts_project / "packages/shared/src/strings"
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
    write(tmp_path, "elsewhere.ts", "export const y = 2;\n")

    summary = indexer.update_paths(
        [str(tmp_path / "elsewhere.ts")], ["packages/shared/src/strings"]
    )

    assert summary.deleted == 1
    assert store.get_file("packages/shared/src/strings/index.ts") is None
    assert all(not p.startswith("..") for p in store.file_hashes())


def test_gitignore_edit_reconciles_the_index(ts_project: Path, store: SqliteStore) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    assert store.get_file("packages/app/src/config.json") is not None
    with open(ts_project / ".gitignore", "a", encoding="utf-8") as handle:
        handle.write("*.json\n")

    indexer.update_paths([".gitignore"])

    assert store.get_file("packages/app/src/config.json") is None
    assert store.get_file("package.json") is None
    assert store.get_file(".gitignore") is not None


def test_file_turning_non_utf8_or_binary_leaves_the_parsed_indexes(
    ts_project: Path, store: SqliteStore
) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    write(ts_project, UTIL, "export const s = 'é';\n".encode("latin-1"))
    write(ts_project, LOGGER, b"\x00binary now")

    summary = indexer.update_paths([UTIL, LOGGER])

    assert summary.skipped_non_utf8 == 1
    assert store.get_file(UTIL) is None and store.get_ast(UTIL) is None
    logger = store.get_file(LOGGER)
    assert logger is not None and logger.kind == "binary"
    assert store.get_ast(LOGGER) is None and store.get_file_indexes(LOGGER) is None
    assert store.get_meta(LOGGER).file_type == "binary"  # type: ignore[union-attr]
    assert summary.binary == 1


def test_ignored_path_is_not_indexed(ts_project: Path, store: SqliteStore) -> None:
    indexer = make_indexer(ts_project, store)
    indexer.index(workers=1)
    write(ts_project, "node_modules/pkg/index.js", "module.exports = 1;\n")
    write(ts_project, "packages/app/dist/main.js", "x\n")

    summary = indexer.update_paths(["node_modules/pkg/index.js", "packages/app/dist/main.js"])

    assert summary.parsed == 0
    assert not any(p.startswith(("node_modules", "packages/app/dist")) for p in store.file_hashes())


def test_an_index_limited_to_a_subfolder_stays_there(ts_project: Path, store: SqliteStore) -> None:
    """The large-project question's "index a subfolder": the first index, the re-index and the
    watcher's updates all keep to that folder."""
    indexer = make_indexer(ts_project, store)
    indexer.limit_to("packages/shared")
    indexer.index(workers=1)
    assert set(store.file_hashes()) and all(
        p.startswith("packages/shared/") for p in store.file_hashes()
    )
    write(ts_project, UTIL, "export const changed = 1;\n")
    indexer.update_paths([UTIL])
    assert UTIL not in store.file_hashes()
    indexer.index(workers=1)
    assert UTIL not in store.file_hashes() and LOGGER in store.file_hashes()
