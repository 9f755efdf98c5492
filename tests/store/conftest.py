"""Fixtures: real SQLite files in tmp_path and real redis-server processes on loopback ports."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from ipuaro.store.redis_store import RedisStore
from ipuaro.store.sqlite import SqliteStore

PROJECT = "tests-proj"

AnyStore = SqliteStore | RedisStore
OpenStore = Callable[..., AnyStore]
REDIS_BINARY = "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A real redis-server with AOF in its own directory; can be killed and restarted."""

    def __init__(self, directory: Path, *, appendonly: bool = True) -> None:
        self.directory = directory
        self.appendonly = appendonly
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = REDIS_BINARY if Path(REDIS_BINARY).exists() else shutil.which("redis-server")
        if binary is None:
            # CI installs redis-server: a missing binary is a broken environment, not a skip.
            pytest.fail(f"redis-server not found at {REDIS_BINARY}; install it (apt redis-server)")
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--appendonly",
                "yes" if self.appendonly else "no",
                "--appendfsync",
                "everysec",
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--logfile",
                str(self.directory / "redis.log"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 15
        with self.client() as client:
            while True:
                try:
                    client.ping()
                    return
                except (redis.ConnectionError, redis.BusyLoadingError):
                    if self.process.poll() is not None or time.monotonic() > deadline:
                        log = (self.directory / "redis.log").read_text(errors="replace")
                        pytest.fail(f"redis-server on port {self.port} did not start:\n{log}")
                    time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL: no shutdown hook, no final AOF flush beyond what was already written."""
        assert self.process is not None
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        """SIGTERM (a clean shutdown). Redis refuses it while writing its first AOF, so ask
        again, then SIGKILL as the last resort."""
        if self.process is None:
            return
        for _ in range(3):
            if self.process.poll() is not None:
                return
            self.process.terminate()
            try:
                self.process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                continue
        self.kill()

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, decode_responses=True, socket_connect_timeout=2)

    def store(self, project: str = PROJECT, **options: object) -> RedisStore:
        return RedisStore(project, port=self.port, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def shared_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis-shared"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A private server for tests that kill or reconfigure it."""
    server = RedisServer(tmp_path / "redis")
    server.start()
    yield server
    server.stop()


@pytest.fixture(
    params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)],
)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def open_store(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[OpenStore]:
    """``open_store(project)`` opens another handle on the same backing data."""
    opened: list[AnyStore] = []
    if backend == "redis":
        server: RedisServer = request.getfixturevalue("shared_redis")
        with server.client() as client:
            client.flushall()

    def make(project: str = PROJECT) -> AnyStore:
        if backend == "redis":
            store: AnyStore = server.store(project)
        else:
            store = SqliteStore(tmp_path / f"{project}.db", project)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: OpenStore) -> AnyStore:
    return open_store()
