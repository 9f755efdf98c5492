"""One project, one store: identity is the resolved full path, old-named stores are taken over.

Two projects whose paths end in the same two folders (``A/same/proj``, ``B/same/proj``) used to
share ``same-proj.db`` / ``project:same-proj:*``; each index deleted the other's files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner

from ipuaro.cli.main import cli
from ipuaro.config.schema import Config
from ipuaro.store.factory import open_store, sqlite_path
from ipuaro.store.naming import data_dir, project_id, project_name
from ipuaro.store.sqlite import SqliteStore

from .conftest import RedisServer
from .samples import full_session

LEGACY = "same-proj"


@pytest.fixture
def twins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "user-config"))
    roots = []
    for side in ("A", "B"):
        root = tmp_path / side / "same" / "proj"
        root.mkdir(parents=True)
        (root / ".git").mkdir()
        (root / f"only_{side.lower()}.py").write_text(f"def only_{side.lower()}():\n    return 1\n")
        (root / "shared.py").write_text(f"def shared():\n    return '{side}'\n")
        roots.append(root)
    return roots[0], roots[1]


def ipuaro(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def definitions(root: Path, symbol: str) -> list[str]:
    output = ipuaro(
        "tool", "find_definition", "--project", str(root), "--args", json.dumps({"symbol": symbol})
    )
    data = json.loads(output)
    assert data["success"], data
    return [f"{hit['path']}" for hit in data["details"]["data"]["definitions"]]


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def test_same_two_folder_names_keep_indexes_lookups_and_sessions_apart(
    twins: tuple[Path, Path],
    backend: str,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    a, b = twins
    if backend == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        monkeypatch.setenv("IPUARO_STORE__BACKEND", "redis")
        monkeypatch.setenv("IPUARO_REDIS__PORT", str(server.port))
    assert project_name(a) == project_name(b) == LEGACY
    assert project_id(a) != project_id(b)

    for root in (a, b):
        ipuaro("index", str(root), "--workers", "1")

    assert definitions(a, "only_a") == ["only_a.py"]
    assert definitions(b, "only_b") == ["only_b.py"]
    assert definitions(a, "only_b") == [] and definitions(b, "only_a") == []
    lines = json.loads(
        ipuaro("tool", "get_lines", "--project", str(b), "--args", '{"path": "shared.py"}')
    )
    assert "return 'B'" in lines["data"]

    config = Config.model_validate(
        {"store": {"backend": backend}, "redis": {"port": os.environ.get("IPUARO_REDIS__PORT", 1)}}
    )
    store = open_store(config, a)
    store.save_session(full_session("only-in-a", store.project_name))
    store.close()
    listed_a = json.loads(ipuaro("sessions", "list", "--project", str(a), "--json"))
    listed_b = json.loads(ipuaro("sessions", "list", "--project", str(b), "--json"))
    assert [s["id"] for s in listed_a] == ["only-in-a"] and listed_b == []

    ipuaro("index", str(b), "--rebuild", "--workers", "1")  # used to wipe A's files too
    assert definitions(a, "only_a") == ["only_a.py"]
    if backend == "sqlite":
        assert sorted(p.name for p in data_dir().glob("*.db")) == sorted(
            f"{project_id(root)}.db" for root in (a, b)
        )


def legacy_sqlite(owner: Path | None) -> Path:
    """A store as written before project ids: named ``same-proj``, last indexed from ``owner``."""
    path = data_dir() / f"{LEGACY}.db"
    store = SqliteStore(path, LEGACY)
    if owner is not None:
        store.set_config("root", str(owner))
    store.save_session(full_session("old-session", LEGACY))
    store.close()
    return path


def test_old_store_moves_to_the_project_it_was_indexed_from(twins: tuple[Path, Path]) -> None:
    a, b = twins
    old = legacy_sqlite(owner=a)

    other = open_store(Config(), b)  # B opens first: the old file is not B's
    assert other.list_sessions() == []
    assert len(other.notices) == 1 and f"last indexed from {a}" in other.notices[0]
    assert "indexed afresh" in other.notices[0] and old.is_file()
    other.close()

    mine = open_store(Config(), a)
    assert isinstance(mine, SqliteStore)
    assert mine.notices == [f"moved this project's store {old} to {mine.path} " + MOVED]
    assert mine.path == sqlite_path(Config(), a) and not old.exists()
    assert mine.list_sessions() == ["old-session"]
    resumed = mine.load_session("old-session")
    assert resumed is not None and resumed.project_name == project_id(a)
    mine.close()

    again = open_store(Config(), a)
    assert again.notices == [] and again.list_sessions() == ["old-session"]
    again.close()


MOVED = "(stores are now named by full path)"


def test_old_store_without_a_recorded_root_is_left_alone(twins: tuple[Path, Path]) -> None:
    a, _ = twins
    old = legacy_sqlite(owner=None)
    store = open_store(Config(), a)
    assert "records no project folder" in store.notices[0] and old.is_file()
    assert store.list_sessions() == []
    store.close()


def test_a_move_interrupted_after_relabelling_completes_next_time(
    twins: tuple[Path, Path],
) -> None:
    a, _ = twins
    old = legacy_sqlite(owner=a)
    from ipuaro.store.legacy import _relabel_sqlite

    _relabel_sqlite(old, LEGACY, project_id(a))  # killed before the rename
    store = open_store(Config(), a)
    assert store.notices[0].startswith("moved") and store.list_sessions() == ["old-session"]
    store.close()


def test_an_unreadable_old_file_is_reported_and_left(twins: tuple[Path, Path]) -> None:
    a, _ = twins
    old = data_dir() / f"{LEGACY}.db"
    old.parent.mkdir(parents=True)
    old.write_text("not a database")
    store = open_store(Config(), a)
    assert "could not take over the old store" in store.notices[0]
    assert old.read_text() == "not a database"
    store.close()


@pytest.mark.redis
def test_old_redis_keys_move_to_the_project_they_were_indexed_from(
    twins: tuple[Path, Path], redis_server: RedisServer
) -> None:
    a, b = twins
    config = Config.model_validate(
        {"store": {"backend": "redis"}, "redis": {"port": redis_server.port}}
    )
    old = redis_server.store(LEGACY)
    old.set_config("root", str(a))
    old.save_session(full_session("old-session", LEGACY))
    old.close()

    other = open_store(config, b)
    assert f"last indexed from {a}" in other.notices[-1] and other.list_sessions() == []
    other.close()
    mine = open_store(config, a)
    assert mine.notices[-1].startswith("moved this project's redis keys project:same-proj:*")
    assert mine.list_sessions() == ["old-session"] and mine.get_config("root") == str(a)
    mine.close()
    client: redis.Redis
    with redis_server.client() as client:
        assert client.keys(f"project:{LEGACY}:*") == []
