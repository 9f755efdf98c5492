"""Reaching a Redis server for the store: the client, the connect-time checks, and turning
every redis-py exception into a ``StoreError`` that says what to do."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from ipuaro.store.protocol import StoreError, StoreUnavailable


def make_client(host: str, port: int, db: int, password: str | None) -> redis.Redis:
    return redis.Redis(
        host=host,
        port=port,
        db=db,
        password=password,
        decode_responses=True,
        socket_connect_timeout=5.0,
        socket_timeout=120.0,  # a first index of a large project is one big EXEC
        # No silent retries: a re-sent MULTI/EXEC or RPUSH could apply twice.
        retry=Retry(NoBackoff(), 0),
    )


@dataclass
class Server:
    """Where the store talks to, for messages."""

    host: str
    port: int
    db: int
    notices: list[str] = field(default_factory=list)
    aof_enabled: bool = False

    @property
    def where(self) -> str:
        return f"Redis at {self.host}:{self.port} (db {self.db})"

    @contextmanager
    def guard(self, action: str) -> Iterator[None]:
        """Run redis calls; connection trouble leaves as ``StoreUnavailable``, the rest as
        ``StoreError`` (``WatchError`` is caught by the caller inside this block)."""
        try:
            yield
        except redis.BusyLoadingError as err:
            raise StoreUnavailable(
                f"{self.where} is still loading its data while {action}; retry in a moment"
            ) from err
        except (redis.ConnectionError, redis.TimeoutError) as err:
            raise StoreUnavailable(
                f"lost the connection to {self.where} while {action} ({err}); check that "
                f"redis-server is running (`redis-cli -h {self.host} -p {self.port} ping`) "
                "and retry"
            ) from err
        except redis.RedisError as err:
            raise StoreError(f"{self.where} failed while {action}: {err}") from err

    def check(self, client: redis.Redis, enforce_aof: bool) -> None:
        """PING, then AOF: report it off in ``notices``, or turn it on when enforced."""
        try:
            client.ping()
        except redis.AuthenticationError as err:
            raise StoreUnavailable(
                f"{self.where} refused the password ({err}); set redis.password in the config"
            ) from err
        except redis.RedisError as err:
            raise StoreUnavailable(
                f"{self.where} is not reachable ({err}). Start it with "
                f"`redis-server --port {self.port} --appendonly yes --appendfsync everysec`, "
                "or use the embedded store (store.backend: sqlite)"
            ) from err
        with self.guard("checking AOF persistence"):
            try:
                appendonly = client.config_get("appendonly").get("appendonly")
            except redis.ResponseError:  # CONFIG disabled (managed Redis): cannot tell
                self.notices.append(
                    f"{self.where} does not allow CONFIG GET; make sure AOF persistence "
                    "(appendonly yes) is on, or sessions may be lost on a restart"
                )
                return
            self.aof_enabled = appendonly == "yes"
            if self.aof_enabled:
                return
            if not enforce_aof:
                self.notices.append(
                    f"{self.where} has AOF persistence off: a restart loses the index and "
                    f"sessions. Turn it on with `redis-cli -h {self.host} -p {self.port} CONFIG "
                    "SET appendonly yes` (and `appendonly yes` in redis.conf), or set "
                    "redis.enforceAof to true"
                )
                return
            try:
                client.config_set("appendonly", "yes")
                client.config_set("appendfsync", "everysec")
            except redis.ResponseError as err:
                raise StoreError(
                    f"{self.where}: redis.enforceAof is on but AOF could not be enabled ({err}); "
                    "set `appendonly yes` in redis.conf and restart Redis"
                ) from err
            self.aof_enabled = True
            self.notices.append(f"{self.where}: turned on AOF persistence (appendonly yes)")
