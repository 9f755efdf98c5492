"""Full indexing of the fixture projects into a real SQLite store."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.index.pipeline.pool import process_context
from ipuaro.index.pipeline.state import mark_incomplete
from ipuaro.store.protocol import IndexBatch
from ipuaro.store.sqlite import SqliteStore
from tests.index.conftest import make_indexer, write


def test_ts_monorepo_full_index(ts_project: Path, store: SqliteStore) -> None:
    summary = make_indexer(ts_project, store).index(workers=1)

    assert summary.files == len(store.file_hashes())
    assert summary.parse_errors == 0
    assert summary.symbols > 0 and summary.references > 0
    main = store.get_ast("packages/app/src/main.ts")
    assert main is not None
    by_from = {i.from_: i for i in main.imports}
    assert by_from["@acme/shared"].resolved == "packages/shared/src/index.ts"
    assert by_from["@acme/shared"].type == "internal"  # re-classified: workspace package
    assert by_from["@shared/logger"].type == "internal"  # re-classified: tsconfig alias
    assert by_from["./nope"].unresolved and by_from["./nope"].resolved is None
    assert by_from["react"].type == "external" and not by_from["react"].unresolved
    assert by_from["node:fs"].type == "builtin"

    util = store.get_meta("packages/app/src/util.ts")
    assert util is not None
    assert util.dependents == ["packages/app/src/main.ts", "packages/app/src/service.ts"]
    graph = store.get_project_index("deps_graph")
    assert graph["packages/shared/src/index.ts"] == [
        "packages/shared/src/logger.ts",
        "packages/shared/src/math.ts",
    ]
    # `add` is imported from the barrel file and defined behind its `export *`.
    calls = {c.callee: c.resolved for c in store.find_calls(caller="main")}
    assert calls["add"] == "packages/shared/src/math.ts"
    assert calls["helper"] == "packages/app/src/util.ts"
    assert calls["String"] is None
    assert store.get_config("root") == str(ts_project.resolve())


def test_python_package_calls_and_metas(py_project: Path, store: SqliteStore) -> None:
    make_indexer(py_project, store).index(workers=1)

    calls = {c.callee: c.resolved for c in store.find_calls(caller="run")}
    assert calls["helper"] == "src/acme/utils.py"  # from .utils import helper
    assert calls["slug"] == "src/acme/utils.py"  # from . import utils; utils.slug()
    assert calls["User"] == "src/acme/models/user.py"  # re-exported by models/__init__.py
    core = store.get_meta("src/acme/core.py")
    assert core is not None
    assert core.dependencies == [
        "src/acme/models/__init__.py",
        "src/acme/utils.py",
    ]
    assert core.file_type == "python"
    assert store.get_meta("src/acme/__main__.py").is_entry_point  # type: ignore[union-attr]
    deep = store.get_ast("src/acme/sub/deep.py")
    assert deep is not None
    outside = next(i for i in deep.imports if i.from_ == "...outside")
    assert outside.unresolved and outside.type == "internal"
    tests = store.get_ast("tests/test_core.py")
    assert tests is not None
    kinds = {i.from_: (i.type, i.resolved, i.unresolved) for i in tests.imports}
    assert kinds["acme.core"] == ("internal", "src/acme/core.py", False)
    assert kinds["acme.missing"] == ("internal", None, True)
    assert kinds["requests"] == ("external", None, False)


def test_counts_binary_symlink_and_non_utf8(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "proj"
    write(root, "a.ts", "export const a = 1;\n")
    write(root, "logo.png", b"\x89PNG\r\n")
    write(root, "blob.dat", b"\x00\x01\x02")
    write(root, "latin.txt", "olé".encode("latin-1"))
    write(root, "notes.md", "# notes\n\ntext\n")
    os.symlink("a.ts", root / "link.ts")
    os.symlink("/etc/passwd", root / "outside")

    summary = make_indexer(root, store).index(workers=1)

    assert (summary.binary, summary.symlinks, summary.skipped_non_utf8) == (2, 2, 1)
    assert summary.parsed == 1
    assert summary.files == 6
    assert store.get_file("latin.txt") is None
    link = store.get_file("outside")
    assert link is not None and link.kind == "symlink" and link.target == "/etc/passwd"
    assert link.lines == []
    png = store.get_file("logo.png")
    assert png is not None and png.kind == "binary" and png.size == 6 and png.lines == []
    notes = store.get_file("notes.md")
    assert notes is not None and notes.lines == ["# notes", "", "text"]
    assert store.get_ast("notes.md") is None  # no parser: stored and searchable, no AST
    meta = store.get_meta("notes.md")
    assert meta is not None and meta.file_type == "text" and meta.complexity.loc == 2
    assert summary.to_json()["skippedNonUtf8"] == 1


def test_pool_and_single_process_give_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Small write batches, so files are written while others are still being parsed.
    monkeypatch.setattr("ipuaro.index.pipeline.pool.WRITE_BATCH_FILES", 8)
    caplog.set_level(logging.DEBUG, logger="ipuaro.index.pipeline.pool")
    root = tmp_path / "proj"
    for i in range(70):
        imports = f"import {{ f{i - 1} }} from './m{i - 1}';\n" if i else ""
        call = f"f{i - 1}(x) + " if i else ""
        body = f"export function f{i}(x: number): number {{ return {call}x; }}\n"
        write(root, f"src/m{i}.ts", imports + body)
    single = SqliteStore(tmp_path / "single.db", "p")
    pooled = SqliteStore(tmp_path / "pooled.db", "p")
    Indexer(root, Config(), single).index(workers=1)
    summary = Indexer(root, Config(), pooled).index(workers=2)

    assert summary.parsed == 70
    assert "while parsing goes on" in caplog.text
    assert single.get_asts() == pooled.get_asts()
    assert single.get_metas() == pooled.get_metas()
    assert single.find_calls() == pooled.find_calls()
    assert pooled.find_calls(caller="f5")[0].resolved == "src/m4.ts"
    assert single.get_file_indexes("src/m3.ts") == pooled.get_file_indexes("src/m3.ts")
    assert pooled.get_project_index("stats")["complete"] is True
    single.close()
    pooled.close()


def test_interrupted_run_is_redone(ts_project: Path, store: SqliteStore) -> None:
    indexer = make_indexer(ts_project, store)
    first = indexer.index(workers=1)
    mark_incomplete(store)
    again = indexer.index(workers=1)
    assert again.parsed == first.parsed and again.unchanged == 0


def test_rebuild_reparses_everything(ts_project: Path, store: SqliteStore) -> None:
    indexer = make_indexer(ts_project, store)
    first = indexer.index(workers=1)
    assert indexer.index(workers=1).parsed == 0
    assert indexer.index(rebuild=True, workers=1).parsed == first.parsed


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_reaches_total(ts_project: Path, store: SqliteStore, workers: int) -> None:
    seen: list[tuple[int, int]] = []
    indexer = make_indexer(ts_project, store)
    total = indexer.count_files()
    indexer.index(progress=lambda done, all_: seen.append((done, all_)), workers=workers)
    assert seen[-1] == (total, total)
    assert all(all_ == total for _, all_ in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_store_inside_the_project_and_ipuaro_dir_are_not_indexed(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write(root, "a.ts", "export const a = 1;\n")
    write(root, ".ipuaro/project.json", '{"test": "npm test"}')
    write(root, ".ipuaro/traces/t1.json", "{}")
    store = SqliteStore(root / "var" / "index.db", "p")
    indexer = Indexer(root, Config(), store)
    indexer.index(workers=1)
    indexer.index(workers=1)  # the database now exists on disk, with its -wal file

    assert sorted(store.file_hashes()) == ["a.ts"]
    assert indexer.update_paths(["var/index.db", "var/index.db-wal"]).parsed == 0
    assert sorted(store.file_hashes()) == ["a.ts"]
    store.close()


def test_pool_works_when_other_threads_run(tmp_path: Path) -> None:
    """With threads alive (the TUI, a watcher) pool processes start by forkserver."""
    root = tmp_path / "proj"
    for i in range(60):
        write(root, f"src/m{i}.ts", f"export const v{i} = {i};\n")
    release = threading.Event()
    waiter = threading.Thread(target=release.wait, daemon=True)
    waiter.start()
    try:
        assert process_context().get_start_method() != "fork"
        store = SqliteStore(tmp_path / "t.db", "p")
        summary = Indexer(root, Config(), store).index(workers=2)
    finally:
        release.set()
        waiter.join()
    assert summary.parsed == 60 and len(store.file_hashes()) == 60
    assert [d.path for d in store.find_definitions("v7")] == ["src/m7.ts"]
    store.close()


def test_aliased_relative_import_resolves_to_the_submodule(
    tmp_path: Path, store: SqliteStore
) -> None:
    root = tmp_path / "proj"
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/views.py", "def index():\n    return 1\n")
    write(root, "pkg/helpers.py", "X = 1\n")
    write(root, "pkg/helpers/__init__.py", "")  # never probed for a plain import
    write(root, "pkg/urls.py", "from . import views as auth_views\nimport pkg as helpers\n")

    make_indexer(root, store).index(workers=1)

    ast = store.get_ast("pkg/urls.py")
    assert ast is not None
    assert [(i.name, i.resolved) for i in ast.imports] == [
        ("auth_views", "pkg/views.py"),
        ("helpers", "pkg/__init__.py"),
    ]
    meta = store.get_meta("pkg/urls.py")
    assert meta is not None and sorted(meta.dependencies) == ["pkg/__init__.py", "pkg/views.py"]


def test_a_full_index_ends_with_every_row_index_built(py_project: Path, store: SqliteStore) -> None:
    """A cold index writes the row tables without indexes; its last batch must build them."""
    import sqlite3

    summary = make_indexer(py_project, store).index(workers=1)
    assert summary.references > 0
    with sqlite3.connect(store.path) as raw:
        names = {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        plan = " ".join(
            str(row[3])
            for row in raw.execute("EXPLAIN QUERY PLAN SELECT * FROM ref_groups WHERE name = 'x'")
        )
    raw.close()
    assert {"ref_groups_name", "ref_groups_file", "symbols_name", "calls_callee"} <= names
    assert "ref_groups_name" in plan
    name = store.find_references(store.symbol_names()[0])
    assert name and all(r.line > 0 and r.column > 0 for r in name)


def test_files_without_a_parser_are_written_in_slices_while_the_pool_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A slice per parsed chunk (the pool gets its next chunks between slices); whatever the
    parse leaves unwritten goes into the final batch: every file ends stored."""
    monkeypatch.setattr("ipuaro.index.pipeline.run.OTHERS_SLICE_BYTES", 30)
    monkeypatch.setattr("ipuaro.index.pipeline.run.CHUNK_FILES", 4)  # 15 parsed chunks
    root = tmp_path / "proj"
    for i in range(60):
        write(root, f"src/m{i}.ts", f"export const v{i} = {i};\n")
    for i in range(80):
        write(root, f"docs/n{i}.md", f"# note {i}\n\nline {i}\n")
    store = SqliteStore(tmp_path / "s.db", "p")
    slices: list[int] = []
    apply = store.apply_batch

    def counting(batch: IndexBatch) -> None:
        if batch.files and all(p.startswith("docs/") for p in batch.files):
            slices.append(len(batch.files))
        apply(batch)

    monkeypatch.setattr(store, "apply_batch", counting)
    summary = Indexer(root, Config(), store).index(workers=2)

    assert summary.parsed == 60 and summary.files == 140
    early, final = slices[:-1], slices[-1]
    assert len(early) >= 10 and max(early) <= 2  # 30 bytes: one or two notes per slice
    assert sum(early) + final == 80
    for i in range(80):
        stored = store.get_file(f"docs/n{i}.md")
        assert stored is not None and stored.lines == [f"# note {i}", "", f"line {i}"]
        assert store.get_meta(f"docs/n{i}.md") is not None
    store.close()
