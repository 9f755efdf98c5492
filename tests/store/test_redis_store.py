"""Redis-only behaviour against real redis-server processes: key layout, AOF, a server that dies."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import redis

from ipuaro.store.protocol import (
    SCHEMA_VERSION,
    CorruptRecord,
    IndexBatch,
    SchemaMismatch,
    StoreError,
    StoreUnavailable,
)
from ipuaro.store.redis_store import RedisStore

from .conftest import PROJECT, RedisServer, free_port
from .samples import file_indexes, full_ast, full_meta, full_session, text_file, undo_entry

pytestmark = pytest.mark.redis


def test_the_concepts_key_layout(redis_server: RedisServer) -> None:
    store = redis_server.store()
    store.apply_batch(
        IndexBatch(
            files={"src/a.ts": text_file("src/a.ts")},
            asts={"src/a.ts": full_ast()},
            metas={"src/a.ts": full_meta()},
            file_indexes={"src/a.ts": file_indexes("src/a.ts", ["login"])},
            project_indexes={"deps_graph": {"src/a.ts": []}},
        )
    )
    store.set_config("settings", {"k": 1})
    store.save_session(full_session("s1", PROJECT))
    store.push_undo("s1", undo_entry(1), limit=5)

    with redis_server.client() as client:
        assert sorted(client.keys("*")) == [
            f"project:{PROJECT}:ast",
            f"project:{PROJECT}:config",
            f"project:{PROJECT}:files",
            f"project:{PROJECT}:indexes",
            f"project:{PROJECT}:meta",
            "session:s1:data",
            "session:s1:undo",
            "sessions:list",
        ]
        assert client.type(f"project:{PROJECT}:files") == "hash"
        assert client.type("session:s1:undo") == "list"
        assert client.lrange("sessions:list", 0, -1) == ["s1"]
        assert (
            client.hget(f"project:{PROJECT}:files", "src/a.ts") == text_file("src/a.ts").to_json()
        )
        assert client.hget(f"project:{PROJECT}:config", "schema_version") == str(SCHEMA_VERSION)
        indexes = client.hgetall(f"project:{PROJECT}:indexes")
        assert indexes["deps_graph"] == '{"src/a.ts":[]}'
        assert {"sym:login", "ref:login", "callee:login", "file:src/a.ts", "hashes"} <= set(indexes)
        data = client.hgetall("session:s1:data")
        assert {"history", "context", "createdAt", "lastActivityAt", "stats"} <= set(data)
    store.close()


def test_two_projects_share_sessions_list_but_not_their_sessions(redis_server: RedisServer) -> None:
    one, two = redis_server.store("parent-one"), redis_server.store("parent-two")
    one.save_session(full_session("a", "parent-one"))
    two.save_session(full_session("b", "parent-two"))
    one.save_session(full_session("c", "parent-one"))

    assert one.list_sessions() == ["a", "c"]
    assert two.list_sessions() == ["b"]
    with redis_server.client() as client:
        assert client.lrange("sessions:list", 0, -1) == ["a", "b", "c"]
    one.close()
    two.close()


def test_an_unreachable_server_says_how_to_start_one() -> None:
    port = free_port()
    with pytest.raises(StoreUnavailable, match=r"not reachable") as caught:
        RedisStore(PROJECT, port=port)
    assert f"redis-server --port {port} --appendonly yes" in str(caught.value)


def test_aof_off_is_reported_and_enforce_aof_turns_it_on(tmp_path: Path) -> None:
    server = RedisServer(tmp_path / "noaof", appendonly=False)
    server.start()
    try:
        store = server.store()
        assert store.aof_enabled is False
        assert any("CONFIG SET appendonly yes" in notice for notice in store.notices)
        store.close()

        enforced = server.store(enforce_aof=True)
        assert enforced.aof_enabled is True
        assert any("turned on AOF" in notice for notice in enforced.notices)
        with server.client() as client:
            assert client.config_get("appendonly") == {"appendonly": "yes"}
        enforced.close()
    finally:
        server.stop()


def test_aof_on_gives_no_notice(redis_server: RedisServer) -> None:
    store = redis_server.store()
    assert store.aof_enabled is True and store.notices == []
    store.close()


def test_a_killed_server_raises_store_unavailable_and_keeps_data_after_restart(
    redis_server: RedisServer,
) -> None:
    store = redis_server.store()
    store.apply_batch(
        IndexBatch(
            files={"a.py": text_file("a.py")},
            file_indexes={"a.py": file_indexes("a.py", ["kept"])},
        )
    )
    store.save_session(full_session("s1", PROJECT))
    redis_server.kill()

    with pytest.raises(StoreUnavailable, match=r"lost the connection to Redis.*redis-server"):
        store.apply_batch(IndexBatch(files={"b.py": text_file("b.py")}))
    with pytest.raises(StoreUnavailable, match=r"while loading a session"):
        store.load_session("s1")

    redis_server.start()
    assert store.get_file("a.py") == text_file("a.py")
    assert [d.path for d in store.find_definitions("kept")] == ["a.py"]
    assert store.load_session("s1") == full_session("s1", PROJECT)
    assert store.get_file("b.py") is None
    store.close()


def test_a_server_killed_during_writes_keeps_whole_batches_only(redis_server: RedisServer) -> None:
    store = redis_server.store()
    per_batch = 150
    done: list[int] = []
    failures: list[BaseException] = []

    def write() -> None:
        try:
            for n in range(10_000):
                paths = [f"b{n}/f{i}.py" for i in range(per_batch)]
                store.apply_batch(
                    IndexBatch(
                        files={p: text_file(p, lines=40) for p in paths},
                        file_indexes={p: file_indexes(p, [f"batch{n}", "all"]) for p in paths},
                    )
                )
                done.append(n)
        except BaseException as err:
            failures.append(err)

    writer = threading.Thread(target=write)
    writer.start()
    while len(done) < 3:
        time.sleep(0.005)
    redis_server.kill()
    writer.join(timeout=60)

    assert len(failures) == 1 and isinstance(failures[0], StoreUnavailable)
    redis_server.start()
    hashes = store.file_hashes()
    batches = {path.split("/")[0] for path in hashes}
    assert len(batches) >= len(done) >= 3
    for batch in batches:
        n = int(batch[1:])
        assert sum(path.startswith(f"{batch}/") for path in hashes) == per_batch
        assert len(store.find_definitions(f"batch{n}")) == per_batch
        assert len(store.find_references(f"batch{n}")) == 2 * per_batch
    assert len(store.find_definitions("all")) == per_batch * len(batches)
    store.close()


def test_data_survives_a_normal_restart(redis_server: RedisServer) -> None:
    store = redis_server.store()
    store.apply_batch(IndexBatch(files={"a.py": text_file("a.py")}))
    store.push_undo("s1", undo_entry(1), limit=5)
    store.close()
    with redis_server.client() as client:
        client.config_set("appendfsync", "always")  # the shutdown below must not race fsync
    redis_server.stop()
    redis_server.start()

    reopened = redis_server.store()
    assert reopened.get_file("a.py") == text_file("a.py")
    assert reopened.list_undo("s1") == [undo_entry(1)]
    reopened.close()


def test_another_schema_version_asks_for_a_rebuild_which_keeps_sessions(
    redis_server: RedisServer,
) -> None:
    store = redis_server.store()
    store.apply_batch(IndexBatch(files={"a.py": text_file("a.py")}))
    store.save_session(full_session("s1", PROJECT))
    store.close()
    with redis_server.client() as client:
        client.hset(f"project:{PROJECT}:config", "schema_version", str(SCHEMA_VERSION + 1))

    with pytest.raises(SchemaMismatch, match=r"ipuaro index --rebuild"):
        redis_server.store()

    rebuilt = RedisStore.rebuild(PROJECT, port=redis_server.port)
    assert rebuilt.file_hashes() == {}
    assert rebuilt.list_sessions() == ["s1"]
    rebuilt.close()
    redis_server.store().close()  # the version is current again


def test_a_field_that_does_not_decode_names_key_and_fix(redis_server: RedisServer) -> None:
    store = redis_server.store()
    store.apply_batch(
        IndexBatch(
            files={"a.py": text_file("a.py")},
            file_indexes={"a.py": file_indexes("a.py", ["x"])},
        )
    )
    with redis_server.client() as client:
        client.hset(f"project:{PROJECT}:files", "a.py", "{broken")
        client.hset(f"project:{PROJECT}:indexes", "ref:x", "[1, 2]")
        client.hset(f"project:{PROJECT}:indexes", "sym:x", '{"a.py": [{"name": 5}]}')

    with pytest.raises(CorruptRecord, match=r"project:tests-proj:files field 'a.py'.*--rebuild"):
        store.get_file("a.py")
    with pytest.raises(CorruptRecord, match=r"field 'ref:x'"):
        store.find_references("x")
    with pytest.raises(CorruptRecord, match=r"field 'sym:x'"):
        store.find_definitions("x")
    with pytest.raises(CorruptRecord, match=r"field 'ref:x'"):
        store.apply_batch(IndexBatch(deletes={"a.py"}))
    store.save_session(full_session("s:1", PROJECT))
    with redis_server.client() as client:
        client.hset("session:s:1:data", "history", '[{"role": "nobody"}]')
    with pytest.raises(CorruptRecord, match=r"session:s:1:data.*`ipuaro sessions delete s:1`"):
        store.load_session("s:1")
    store.close()


def test_bad_arguments_are_refused_clearly(redis_server: RedisServer) -> None:
    with pytest.raises(ValueError, match="decode_responses=True"):
        RedisStore(PROJECT, client=redis.Redis(port=redis_server.port))
    store = redis_server.store()
    with pytest.raises(ValueError, match=r"project index name 'sym:x' is not allowed"):
        store.apply_batch(IndexBatch(project_indexes={"sym:x": 1}))
    with pytest.raises(StoreError, match=r"cannot store project index 'stats'"):
        store.apply_batch(IndexBatch(project_indexes={"stats": object()}))
    store.close()
