"""Indexing into a real redis-server, with pool processes opening their own connections."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from ipuaro.config.schema import Config
from ipuaro.index.pipeline.indexer import ConfigOpener, Indexer
from ipuaro.store.factory import open_store
from ipuaro.store.sqlite import SqliteStore
from tests.index.conftest import write

pytestmark = pytest.mark.redis


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def redis_port(tmp_path: Path) -> Iterator[int]:
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(binary).exists():
        pytest.fail("redis-server is not installed (apt install redis-server)")
    port = free_port()
    folder = tmp_path / "redis"
    folder.mkdir()
    process = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(folder),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                process.kill()
                pytest.fail("redis-server did not start")
            time.sleep(0.05)
    yield port
    client.close()
    process.terminate()
    process.wait(10)


def test_pool_index_into_redis_matches_sqlite(tmp_path: Path, redis_port: int) -> None:
    root = tmp_path / "proj"
    for i in range(60):
        head = f"import {{ f{i - 1} }} from './m{i - 1}';\n" if i else ""
        call = f"f{i - 1}(x) + " if i else ""
        write(
            root, f"src/m{i}.ts", head + f"export function f{i}(x: number) {{ return {call}x; }}\n"
        )
    config = Config.model_validate({"store": {"backend": "redis"}, "redis": {"port": redis_port}})
    store = open_store(config, root)
    summary = Indexer(root, config, store, opener=ConfigOpener(config, root)).index(workers=2)
    reference = SqliteStore(tmp_path / "ref.db", store.project_name)
    Indexer(root, Config(), reference).index(workers=1)

    assert summary.parsed == 60
    assert store.file_hashes() == reference.file_hashes()
    assert store.get_asts() == reference.get_asts()
    assert store.get_metas() == reference.get_metas()
    assert sorted(c.to_json() for c in store.find_calls()) == sorted(
        c.to_json() for c in reference.find_calls()
    )
    assert Indexer(root, config, store).index(workers=2).parsed == 0
    store.close()
    reference.close()


def test_index_cli_warns_when_redis_aof_is_off(
    tmp_path: Path, redis_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from ipuaro.cli.main import cli

    root = tmp_path / "proj"
    write(root, "a.py", "X = 1\n")
    off = redis.Redis(port=redis_port)
    off.config_set("appendonly", "no")
    off.close()
    for key in [k for k in os.environ if k.startswith("IPUARO_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))  # the settings cache
    monkeypatch.setenv("IPUARO_STORE__BACKEND", "redis")
    monkeypatch.setenv("IPUARO_REDIS__HOST", "127.0.0.1")
    monkeypatch.setenv("IPUARO_REDIS__PORT", str(redis_port))
    result = CliRunner().invoke(cli, ["index", str(root), "--json"])
    assert result.exit_code == 0, result.output
    assert "has AOF persistence off: a restart loses the index" in result.stderr
    assert '"parsed": 1' in result.stdout
