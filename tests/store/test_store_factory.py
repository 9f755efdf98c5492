"""open_store / describe_store: the configured backend, at the configured place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import redis

from ipuaro.config.schema import Config
from ipuaro.store.factory import describe_store, open_store, sqlite_path
from ipuaro.store.naming import project_id
from ipuaro.store.protocol import IndexBatch, SchemaMismatch, Store, StoreUnavailable
from ipuaro.store.redis_store import RedisStore
from ipuaro.store.sqlite import SqliteStore

from .conftest import RedisServer, free_port
from .samples import full_session, text_file


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "projects" / "myapp"
    root.mkdir(parents=True)
    return root


def test_default_sqlite_database_is_named_after_the_project_in_the_data_dir(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data" / "not-yet"))
    store = open_store(Config(), project)
    name = project_id(project)

    assert isinstance(store, SqliteStore) and isinstance(store, Store)
    assert re.fullmatch(r"projects-myapp-[0-9a-f]{8}", name) and store.project_name == name
    assert store.path == tmp_path / "data" / "not-yet" / f"{name}.db"
    assert store.path.is_file() and store.notices == []
    store.close()
    assert describe_store(Config(), project) == f"sqlite {store.path} — project {name}"


def test_store_path_absolute_or_relative_to_the_project(project: Path, tmp_path: Path) -> None:
    absolute = Config.model_validate({"store": {"path": str(tmp_path / "elsewhere.db")}})
    relative = Config.model_validate({"store": {"path": ".ipuaro/index.db"}})

    assert sqlite_path(absolute, project) == tmp_path / "elsewhere.db"
    assert sqlite_path(relative, project) == project / ".ipuaro" / "index.db"
    store = open_store(relative, project)
    assert (project / ".ipuaro" / "index.db").is_file()
    store.close()


def test_rebuild_starts_an_empty_sqlite_store(project: Path, tmp_path: Path) -> None:
    config = Config.model_validate({"store": {"path": str(tmp_path / "p.db")}})
    store = open_store(config, project)
    store.apply_batch(IndexBatch(files={"a.py": text_file("a.py")}))
    store.save_session(full_session("s1", project_id(project)))
    store.close()

    rebuilt = open_store(config, project, rebuild=True)
    assert rebuilt.file_hashes() == {}
    assert rebuilt.list_sessions() == ["s1"]  # like Redis: the index goes, sessions stay
    rebuilt.close()
    assert not (tmp_path / "p.db.bak").exists()


@pytest.mark.redis
def test_redis_backend_from_config(project: Path, redis_server: RedisServer) -> None:
    config = Config.model_validate(
        {"store": {"backend": "redis"}, "redis": {"port": redis_server.port, "db": 2}}
    )
    store = open_store(config, project)
    name = project_id(project)
    assert isinstance(store, RedisStore) and isinstance(store, Store)
    store.save_session(full_session("s1", name))
    store.apply_batch(IndexBatch(files={"a.py": text_file("a.py")}))
    store.close()

    with redis.Redis(port=redis_server.port, db=2, decode_responses=True) as client:
        assert client.hexists(f"project:{name}:files", "a.py")
    assert describe_store(config, project) == (
        f"redis localhost:{redis_server.port} db 2 — keys project:{name}:*"
    )

    with redis.Redis(port=redis_server.port, db=2, decode_responses=True) as client:
        client.hset(f"project:{name}:config", "schema_version", "0")
    with pytest.raises(SchemaMismatch):
        open_store(config, project)
    rebuilt = open_store(config, project, rebuild=True)
    assert rebuilt.file_hashes() == {} and rebuilt.list_sessions() == ["s1"]
    rebuilt.close()


def test_redis_backend_that_is_not_running(project: Path) -> None:
    config = Config.model_validate({"store": {"backend": "redis"}, "redis": {"port": free_port()}})
    with pytest.raises(StoreUnavailable, match="appendonly yes"):
        open_store(config, project)
