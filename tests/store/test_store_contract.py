"""One contract, two backends: every test runs against SQLite and against a real redis-server."""

from __future__ import annotations

import threading

import pytest

from ipuaro.domain import CallEdge, FileData, FileIndexes, Reference, SymbolDef
from ipuaro.store.protocol import IndexBatch, Store

from .conftest import PROJECT, AnyStore, OpenStore
from .samples import (
    all_file_kinds,
    file_indexes,
    full_ast,
    full_meta,
    full_session,
    text_file,
    undo_entry,
)


def test_backend_satisfies_the_store_protocol(store: AnyStore) -> None:
    assert isinstance(store, Store)
    assert store.project_name == PROJECT


# --- files, ASTs, metas -----------------------------------------------------------------------
def test_every_file_kind_round_trips(store: AnyStore) -> None:
    files = all_file_kinds()
    store.apply_batch(IndexBatch(files=files))

    for path, data in files.items():
        assert store.get_file(path) == data
    assert store.get_file("src/absent.ts") is None
    assert store.get_files([*files, "src/absent.ts"]) == files
    assert store.file_hashes() == {path: data.hash for path, data in files.items()}


def test_ast_and_meta_with_every_nested_type_round_trip(store: AnyStore) -> None:
    ast, meta = full_ast(), full_meta()
    store.apply_batch(IndexBatch(asts={"src/auth.ts": ast}, metas={"src/auth.ts": meta}))

    loaded = store.get_ast("src/auth.ts")
    assert loaded == ast
    assert loaded is not None and loaded.imports[0].from_ == "jsonwebtoken"
    assert store.get_meta("src/auth.ts") == meta
    assert store.get_ast("nope") is None and store.get_meta("nope") is None


def test_get_asts_and_metas_return_all_or_the_requested_paths(store: AnyStore) -> None:
    asts = {f"src/m{i}.ts": full_ast() for i in range(5)}
    metas = {f"src/m{i}.ts": full_meta() for i in range(5)}
    store.apply_batch(IndexBatch(asts=asts, metas=metas))

    assert store.get_asts() == asts
    assert store.get_metas() == metas
    assert store.get_asts(["src/m1.ts", "src/missing.ts"]) == {"src/m1.ts": asts["src/m1.ts"]}
    assert store.get_metas(["src/m4.ts"]) == {"src/m4.ts": metas["src/m4.ts"]}
    assert store.get_asts([]) == {}


def test_files_containing_keeps_every_file_that_holds_the_text(store: AnyStore) -> None:
    def file(*lines: str) -> FileData:
        return FileData(lines=list(lines), hash="h", size=1, last_modified=1.0)

    files = {
        "a.py": file("from django.db import transaction", "    with Transaction.Atomic():"),
        "b.py": file("nothing here"),
        "c.txt": file("café transaction.atomic ünïcode"),
        "d.py": file('quoted = "transaction.atomic"', "tab\there"),
        "e.py": file("transaction.", "atomic"),  # across lines: never a match, may be kept
    }
    store.apply_batch(IndexBatch(files=files))
    paths = ["e.py", "d.py", "c.txt", "b.py", "a.py", "absent.py"]

    found = store.files_containing(paths, "transaction.atomic", case_sensitive=False)
    assert {"a.py", "c.txt", "d.py"} <= set(found)
    assert "b.py" not in found and "absent.py" not in found
    assert found == [p for p in paths if p in found]  # the caller's order
    exact = store.files_containing(paths, "Transaction.Atomic", case_sensitive=True)
    assert "a.py" in exact and not {"b.py", "c.txt", "d.py"} & set(exact)
    assert store.files_containing(paths, "xyz-nowhere", case_sensitive=False) == []
    # Characters IGNORECASE folds to ASCII letters (which SQL's lower() does not touch).
    odd = {"k.py": file("\u212aelvin"), "s.py": file("cla\u017f\u017f"), "i.py": file("\u0130f")}
    store.apply_batch(IndexBatch(files=odd))
    assert store.files_containing(["k.py", "b.py"], "KELVIN", case_sensitive=False) == ["k.py"]
    assert store.files_containing(["s.py", "b.py"], "class", case_sensitive=False) == ["s.py"]
    assert store.files_containing(["i.py"], "IF", case_sensitive=False) == ["i.py"]
    assert store.files_containing(["k.py"], "kelvin", case_sensitive=True) == []
    # Text the stored form escapes (quotes, backslashes, tabs, non-ASCII) is not pre-searched.
    for text in ('"transaction', "tab\there", "tab\\there", "café"):
        assert store.files_containing(paths, text, case_sensitive=False) == paths


def test_an_upsert_replaces_the_previous_value(store: AnyStore) -> None:
    store.apply_batch(IndexBatch(files={"a.py": text_file("a.py", "v1")}))
    store.apply_batch(IndexBatch(files={"a.py": text_file("a.py", "v2")}))

    assert store.get_file("a.py") == text_file("a.py", "v2")
    assert store.file_hashes() == {"a.py": "hash-a.py-v2"}


def test_an_empty_batch_changes_nothing(store: AnyStore) -> None:
    store.apply_batch(IndexBatch(files={"a.py": text_file("a.py")}))
    store.apply_batch(IndexBatch())
    assert store.file_hashes() == {"a.py": "hash-a.py-x"}


# --- project-wide indexes ---------------------------------------------------------------------
def test_file_indexes_round_trip_and_answer_lookups(store: AnyStore) -> None:
    a = file_indexes("src/a.py", ["alpha", "beta"])
    b = file_indexes("lib/b.py", ["beta", "gamma"], refs_per_name=1)
    store.apply_batch(IndexBatch(file_indexes={"src/a.py": a, "lib/b.py": b}))

    assert store.get_file_indexes("src/a.py") == a
    assert store.get_file_indexes("lib/b.py") == b
    assert store.get_file_indexes("src/none.py") is None
    assert [(d.path, d.line) for d in store.find_definitions("beta")] == [
        ("lib/b.py", 1),
        ("src/a.py", 11),
    ]
    assert store.find_definitions("beta")[1] == a.symbols[1]
    assert store.find_references("beta") == [
        Reference(name="beta", path="lib/b.py", line=2, column=1),
        Reference(name="beta", path="src/a.py", line=12, column=1),
        Reference(name="beta", path="src/a.py", line=13, column=2),
    ]
    assert store.find_references("nothing") == []
    assert store.symbol_names() == ["alpha", "beta", "gamma"]


def test_an_empty_contribution_reads_back_as_empty_not_missing(store: AnyStore) -> None:
    store.apply_batch(IndexBatch(file_indexes={"empty.json": FileIndexes()}))
    assert store.get_file_indexes("empty.json") == FileIndexes()


def test_find_calls_by_callee_caller_both_and_none(store: AnyStore) -> None:
    a = file_indexes("src/a.py", ["alpha", "beta"])
    b = file_indexes("lib/b.py", ["beta", "gamma"])
    store.apply_batch(IndexBatch(file_indexes={"src/a.py": a, "lib/b.py": b}))

    assert store.find_calls(callee="beta") == [
        CallEdge(path="lib/b.py", caller="<module>", callee="beta", line=3),
        CallEdge(path="src/a.py", caller="alpha", callee="beta", line=13, resolved="src/a.py"),
    ]
    assert [c.callee for c in store.find_calls(caller="beta")] == ["gamma"]
    assert store.find_calls(callee="beta", caller="alpha") == [a.calls[1]]
    assert store.find_calls(callee="beta", caller="gamma") == []
    assert store.find_calls() == sorted(
        [*a.calls, *b.calls], key=lambda c: (c.path, c.line, c.caller, c.callee)
    )


def test_find_references_is_limited_to_a_file_or_folder(store: AnyStore) -> None:
    paths = ["src/a.py", "src/sub/b.py", "src2/c.py", "srcx.py", "lib/src/d.py"]
    store.apply_batch(IndexBatch(file_indexes={p: file_indexes(p, ["shared"]) for p in paths}))

    def where(path: str | None) -> list[str]:
        return sorted({r.path for r in store.find_references("shared", path)})

    assert where("src") == ["src/a.py", "src/sub/b.py"]
    assert where("src/") == ["src/a.py", "src/sub/b.py"]
    assert where("src/sub") == ["src/sub/b.py"]
    assert where("src/a.py") == ["src/a.py"]
    assert where("sr") == []
    assert where(None) == sorted(paths)
    assert where(".") == sorted(paths)
    assert where("") == sorted(paths)


def test_replacing_one_files_indexes_leaves_the_others(store: AnyStore) -> None:
    store.apply_batch(
        IndexBatch(
            file_indexes={
                "a.py": file_indexes("a.py", ["old_name", "kept"]),
                "b.py": file_indexes("b.py", ["kept", "other"]),
            }
        )
    )
    new_a = file_indexes("a.py", ["kept", "new_name"], refs_per_name=3)
    store.apply_batch(IndexBatch(file_indexes={"a.py": new_a}))

    assert store.get_file_indexes("a.py") == new_a
    assert store.find_definitions("old_name") == []
    assert store.find_references("old_name") == []
    assert store.find_calls(callee="old_name") == []
    assert [d.path for d in store.find_definitions("new_name")] == ["a.py"]
    assert len(store.find_references("kept", "a.py")) == 3
    assert len(store.find_references("kept", "b.py")) == 2
    assert store.symbol_names() == ["kept", "new_name", "other"]
    assert {c.callee for c in store.find_calls()} == {"kept", "new_name", "other"}


def test_a_delete_removes_the_path_from_every_table_and_index(store: AnyStore) -> None:
    paths = ["a.py", "b.py"]
    store.apply_batch(
        IndexBatch(
            files={p: text_file(p) for p in paths},
            asts={p: full_ast() for p in paths},
            metas={p: full_meta() for p in paths},
            file_indexes={
                "a.py": file_indexes("a.py", ["only_in_a", "both"]),
                "b.py": file_indexes("b.py", ["both"]),
            },
        )
    )
    store.apply_batch(IndexBatch(deletes={"a.py"}))

    assert store.get_file("a.py") is None
    assert store.get_ast("a.py") is None
    assert store.get_meta("a.py") is None
    assert store.get_file_indexes("a.py") is None
    assert store.file_hashes() == {"b.py": "hash-b.py-x"}
    assert store.find_definitions("only_in_a") == []
    assert store.find_references("only_in_a") == []
    assert {r.path for r in store.find_references("both")} == {"b.py"}
    assert {c.path for c in store.find_calls()} == {"b.py"}
    assert store.find_calls(caller="only_in_a") == []
    assert store.symbol_names() == ["both"]
    assert store.get_files(paths) == {"b.py": text_file("b.py")}


def test_deletes_apply_before_upserts_in_one_batch(store: AnyStore) -> None:
    store.apply_batch(
        IndexBatch(
            files={"a.py": text_file("a.py", "v1")},
            file_indexes={"a.py": file_indexes("a.py", ["gone"])},
        )
    )
    store.apply_batch(
        IndexBatch(
            deletes={"a.py", "never-existed.py"},
            files={"a.py": text_file("a.py", "v2")},
            file_indexes={"a.py": file_indexes("a.py", ["fresh"])},
        )
    )
    assert store.get_file("a.py") == text_file("a.py", "v2")
    assert store.symbol_names() == ["fresh"]


def test_thousands_of_files_in_one_batch(store: AnyStore) -> None:
    count = 3000
    names = [f"name{i}" for i in range(200)]
    batch = IndexBatch(
        files={
            f"pkg{i % 30}/m{i}.py": text_file(f"pkg{i % 30}/m{i}.py", lines=20)
            for i in range(count)
        },
        metas={f"pkg{i % 30}/m{i}.py": full_meta() for i in range(count)},
        file_indexes={
            f"pkg{i % 30}/m{i}.py": file_indexes(
                f"pkg{i % 30}/m{i}.py", [f"def{i}", names[i % 200], names[(i * 7) % 200]]
            )
            for i in range(count)
        },
        project_indexes={"stats": {"files": count}},
    )
    store.apply_batch(batch)

    assert len(store.file_hashes()) == count
    assert store.get_file("pkg7/m1237.py") == batch.files["pkg7/m1237.py"]
    assert store.get_file_indexes("pkg7/m1237.py") == batch.file_indexes["pkg7/m1237.py"]
    assert len(store.symbol_names()) == count + 200

    def expected_refs(folder: str) -> int:
        return sum(
            2 * [s.name for s in fi.symbols].count("name5")
            for path, fi in batch.file_indexes.items()
            if path.startswith(folder)
        )

    assert len(store.find_references("name5")) == expected_refs("") > 0
    in_pkg5 = store.find_references("name5", "pkg5")
    assert len(in_pkg5) == expected_refs("pkg5/") > 0
    assert {r.path.split("/")[0] for r in in_pkg5} == {"pkg5"}
    assert store.get_project_index("stats") == {"files": count}


def test_project_indexes_round_trip_and_clear_project_keeps_sessions(store: AnyStore) -> None:
    graph = {"src/a.ts": ["src/b.ts"], "src/b.ts": []}
    store.apply_batch(IndexBatch(project_indexes={"deps_graph": graph, "stats": [1, 2.5, None]}))
    store.apply_batch(
        IndexBatch(
            files={"a.py": text_file("a.py")},
            file_indexes={"a.py": file_indexes("a.py", ["x"])},
            project_indexes={"stats": {"files": 1}},
        )
    )
    store.set_config("settings", {"theme": "dark"})
    store.save_session(full_session("s1", PROJECT))

    assert store.get_project_index("deps_graph") == graph
    assert store.get_project_index("stats") == {"files": 1}
    assert store.get_project_index("call_graph") is None

    store.clear_project()
    assert store.file_hashes() == {}
    assert store.get_file("a.py") is None
    assert store.get_file_indexes("a.py") is None
    assert store.symbol_names() == []
    assert store.find_references("x") == []
    assert store.get_project_index("deps_graph") is None
    assert store.get_config("settings") == {"theme": "dark"}
    assert store.list_sessions() == ["s1"]


# --- config -----------------------------------------------------------------------------------
def test_config_keys_round_trip(store: AnyStore) -> None:
    assert store.get_config("settings") is None
    store.set_config("settings", {"nested": {"a": [1, 2]}, "flag": True})
    store.set_config("whitelist", ["git", "npm"])
    store.set_config("last_indexed", 1_705_312_200.5)
    store.set_config("root", "/home/user/projects/myapp")
    store.set_config("whitelist", ["git"])

    assert store.get_config("settings") == {"nested": {"a": [1, 2]}, "flag": True}
    assert store.get_config("whitelist") == ["git"]
    assert store.get_config("last_indexed") == 1_705_312_200.5
    assert store.get_config("root") == "/home/user/projects/myapp"


# --- sessions ---------------------------------------------------------------------------------
def test_a_full_session_round_trips(store: AnyStore) -> None:
    session = full_session("s1", PROJECT)
    store.save_session(session)

    assert store.load_session("s1") == session
    assert store.load_session("missing") is None


def test_sessions_list_in_save_order_and_only_this_project(open_store: OpenStore) -> None:
    store = open_store()
    for session_id in ("s1", "s2", "s3"):
        store.save_session(full_session(session_id, PROJECT))
    store.save_session(full_session("foreign", "other-project"))
    store.save_session(full_session("s1", PROJECT).model_copy(update={"title": "resumed"}))

    assert store.list_sessions() == ["s2", "s3", "s1"]
    loaded = store.load_session("s1")
    assert loaded is not None and loaded.title == "resumed"


def test_delete_session_removes_it_with_its_undo_and_input_history(store: AnyStore) -> None:
    store.save_session(full_session("s1", PROJECT))
    store.save_session(full_session("s2", PROJECT))
    store.push_undo("s1", undo_entry(1), limit=10)
    store.push_undo("s1", undo_entry(2), limit=10, stack="redo")
    store.append_input_history("s1", "hello")

    assert store.delete_session("s1") is True
    assert store.delete_session("s1") is False
    assert store.load_session("s1") is None
    assert store.list_sessions() == ["s2"]
    assert store.list_undo("s1") == []
    assert store.list_undo("s1", "redo") == []
    assert store.get_input_history("s1") == []


def test_undo_push_pop_limit_and_a_separate_redo_stack(store: AnyStore) -> None:
    assert store.pop_undo("s1") is None
    for n in range(1, 8):
        store.push_undo("s1", undo_entry(n), limit=5)
    store.push_undo("s1", undo_entry(100), limit=5, stack="redo")
    store.push_undo("other", undo_entry(200), limit=5)

    assert [e.id for e in store.list_undo("s1")] == ["u3", "u4", "u5", "u6", "u7"]
    assert store.pop_undo("s1") == undo_entry(7)
    assert store.pop_undo("s1") == undo_entry(6)
    assert [e.id for e in store.list_undo("s1")] == ["u3", "u4", "u5"]
    assert store.list_undo("s1", "redo") == [undo_entry(100)]
    assert store.pop_undo("s1", "redo") == undo_entry(100)
    assert store.pop_undo("s1", "redo") is None
    store.push_undo("s1", undo_entry(8), limit=5)
    assert [e.id for e in store.list_undo("s1")] == ["u3", "u4", "u5", "u8"]
    store.clear_undo("s1")
    assert store.list_undo("s1") == []
    assert store.list_undo("other") == [undo_entry(200)]


def test_settle_undo_confirms_and_drops_pending_entries_by_id(store: AnyStore) -> None:
    pending = [undo_entry(n).model_copy(update={"pending": 4242}) for n in range(1, 5)]
    for entry in pending:
        store.push_undo("s1", entry, limit=10)
    store.push_undo("s1", undo_entry(9), limit=10, stack="redo")
    store.settle_undo("s1", confirmed=["u2", "u4"], dropped=["u1", "u9"])

    assert [(e.id, e.pending) for e in store.list_undo("s1")] == [
        ("u2", None),
        ("u3", 4242),
        ("u4", None),
    ]
    assert store.list_undo("s1")[0] == undo_entry(2)  # nothing but the mark changed
    assert store.list_undo("s1", "redo") == [undo_entry(9)]  # the redo stack is not touched
    store.settle_undo("s1", confirmed=[], dropped=[])
    store.push_undo("s1", undo_entry(5), limit=10)
    assert [e.id for e in store.list_undo("s1")] == ["u2", "u3", "u4", "u5"]


def test_a_smaller_limit_trims_the_oldest_entries(store: AnyStore) -> None:
    for n in range(6):
        store.push_undo("s1", undo_entry(n), limit=10)
    store.push_undo("s1", undo_entry(6), limit=2)
    assert [e.id for e in store.list_undo("s1")] == ["u5", "u6"]


def test_bad_limits_are_refused_with_a_clear_message(store: AnyStore) -> None:
    with pytest.raises(ValueError, match="undo limit must be at least 1, got 0"):
        store.push_undo("s1", undo_entry(1), limit=0)
    with pytest.raises(ValueError, match="input history limit"):
        store.append_input_history("s1", "x", limit=0)


def test_input_history_keeps_the_most_recent_lines_in_order(store: AnyStore) -> None:
    assert store.get_input_history("s1") == []
    for n in range(5):
        store.append_input_history("s1", f"line {n}", limit=3)
    store.append_input_history("s2", "elsewhere")
    store.append_input_history("s1", "multi\nline ✓", limit=3)

    assert store.get_input_history("s1") == ["line 3", "line 4", "multi\nline ✓"]
    assert store.get_input_history("s2") == ["elsewhere"]


# --- concurrency and reopening ----------------------------------------------------------------
def test_data_survives_closing_and_reopening(open_store: OpenStore) -> None:
    first = open_store()
    first.apply_batch(IndexBatch(files={"a.py": text_file("a.py")}))
    first.save_session(full_session("s1", PROJECT))
    first.close()

    second = open_store()
    assert second.get_file("a.py") == text_file("a.py")
    assert second.list_sessions() == ["s1"]


def test_threads_sharing_a_store_and_two_handles_writing_at_once(open_store: OpenStore) -> None:
    """Worker threads share one store object; a second handle writes the same names at once
    (Redis: concurrent read-modify-write of the same index fields must not lose entries)."""
    shared, other = open_store(), open_store()
    errors: list[BaseException] = []

    def work(store: AnyStore, tag: str) -> None:
        try:
            for n in range(15):
                path = f"{tag}/f{n}.py"
                store.apply_batch(
                    IndexBatch(
                        files={path: text_file(path)},
                        file_indexes={path: file_indexes(path, ["common", f"{tag}{n}"])},
                    )
                )
                store.find_references("common")
                store.push_undo(tag, undo_entry(n), limit=100)
        except BaseException as err:
            errors.append(err)

    threads = [
        threading.Thread(target=work, args=(shared, "t1")),
        threading.Thread(target=work, args=(shared, "t2")),
        threading.Thread(target=work, args=(other, "t3")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(shared.file_hashes()) == 45
    assert len(shared.find_references("common")) == 2 * 45
    assert len(shared.find_definitions("common")) == 45
    assert len(shared.symbol_names()) == 46
    assert [e.id for e in other.list_undo("t1")] == [f"u{n}" for n in range(15)]


def test_entries_keyed_under_a_path_report_that_path(store: AnyStore) -> None:
    """The batch key owns the entries (what a later delete of that key removes)."""
    stray = FileIndexes(
        symbols=[SymbolDef(name="f", path="elsewhere.py", line=1, kind="function")],
        references=[Reference(name="f", path="elsewhere.py", line=2, column=1)],
    )
    store.apply_batch(IndexBatch(file_indexes={"owner.py": stray}))
    assert [d.path for d in store.find_definitions("f")] == ["owner.py"]
    store.apply_batch(IndexBatch(deletes={"owner.py"}))
    assert store.find_definitions("f") == [] and store.find_references("f") == []


def test_compact_reference_table_reads_back_as_references(store: AnyStore) -> None:
    """The parsers' compact form (name -> [line, column, ...]) and models mean the same."""
    compact = FileIndexes(reference_table={"b": [1, 5, 3, 2], "a": [1, 1, 2, 7, 9, 3]})
    store.apply_batch(IndexBatch(file_indexes={"src/c.py": compact}))

    loaded = store.get_file_indexes("src/c.py")
    assert loaded is not None and loaded.reference_table == {}
    assert [(r.name, r.path, r.line, r.column) for r in loaded.references] == [
        ("a", "src/c.py", 1, 1),
        ("b", "src/c.py", 1, 5),
        ("a", "src/c.py", 2, 7),
        ("b", "src/c.py", 3, 2),
        ("a", "src/c.py", 9, 3),
    ]
    assert loaded.reference_count() == compact.reference_count() == 5
    assert store.find_references("a") == [
        Reference(name="a", path="src/c.py", line=line, column=column)
        for line, column in ((1, 1), (2, 7), (9, 3))
    ]
    # Replacing the file with the model form drops every compact row.
    store.apply_batch(
        IndexBatch(
            file_indexes={
                "src/c.py": FileIndexes(references=[Reference(name="b", path="", line=4, column=4)])
            }
        )
    )
    assert store.find_references("a") == []
    assert [(r.path, r.line) for r in store.find_references("b")] == [("src/c.py", 4)]


def test_references_in_both_forms_merge_per_name(store: AnyStore) -> None:
    mixed = FileIndexes(
        references=[Reference(name="a", path="m.py", line=5, column=1)],
        reference_table={"a": [2, 4], "b": [3, 3]},
    )
    assert mixed.reference_count() == 3
    store.apply_batch(IndexBatch(file_indexes={"m.py": mixed}))
    assert [(r.line, r.column) for r in store.find_references("a")] == [(2, 4), (5, 1)]
    loaded = store.get_file_indexes("m.py")
    assert loaded is not None
    assert [(r.name, r.line) for r in loaded.references] == [("a", 2), ("b", 3), ("a", 5)]
