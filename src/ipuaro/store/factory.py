"""Open the configured store: the only place that picks a backend.

Backend modules are imported here, lazily, so ``import ipuaro.store`` stays cheap and a user on
SQLite never loads redis-py.
"""

from __future__ import annotations

from pathlib import Path

from ipuaro.config.schema import Config
from ipuaro.store.naming import data_dir, project_id, project_name
from ipuaro.store.protocol import Store


def sqlite_path(config: Config, project_root: Path) -> Path:
    """``store.path`` (relative paths are taken from the project root) or the default
    ``{data dir}/{project id}.db`` (readable name plus a hash of the full path)."""
    configured = config.store.path
    if configured is None:
        return data_dir() / f"{project_id(project_root)}.db"
    configured = configured.expanduser()
    return configured if configured.is_absolute() else project_root / configured


def open_store(config: Config, project_root: Path, *, rebuild: bool = False) -> Store:
    """The project's store, opened and checked (schema version; Redis: reachable, AOF).

    ``rebuild`` starts the project's index afresh (``ipuaro index --rebuild``), keeping
    sessions; a SQLite file that cannot be opened is moved to ``.bak``.
    A store under the name used before project ids (:mod:`ipuaro.store.legacy`) is taken over
    when it was indexed from this folder; either way the store's ``notices`` say what happened.
    Raises :class:`~ipuaro.store.protocol.StoreError` subclasses with instructions."""
    name, legacy_name = project_id(project_root), project_name(project_root)
    if config.store.backend == "redis":
        import redis

        from ipuaro.store.legacy import adopt_redis
        from ipuaro.store.redis_connect import make_client
        from ipuaro.store.redis_store import RedisStore

        redis_config = config.redis
        client = make_client(
            redis_config.host, redis_config.port, redis_config.db, redis_config.password
        )
        try:
            notice = adopt_redis(client, legacy_name, name, project_root)
        except redis.RedisError:
            notice = None  # the store below reports an unreachable server with instructions
        redis_store = RedisStore(
            name,
            client=client,
            enforce_aof=redis_config.enforce_aof,
            rebuild=rebuild,
        )
        redis_store.notices.extend([notice] if notice else [])
        return redis_store
    from ipuaro.store.legacy import adopt_sqlite
    from ipuaro.store.sqlite import SqliteStore

    path = sqlite_path(config, project_root)
    notice = None
    if config.store.path is None:
        legacy_path = path.with_name(f"{legacy_name}.db")
        notice = adopt_sqlite(legacy_path, path, project_root, legacy_name, name)
    store = SqliteStore.rebuild(path, name) if rebuild else SqliteStore(path, name)
    store.notices.extend([notice] if notice else [])
    return store


def describe_store(config: Config, project_root: Path) -> str:
    """One line for ``ipuaro doctor`` / ``/status``: backend, where, project id."""
    name = project_id(project_root)
    if config.store.backend == "redis":
        r = config.redis
        auth = ", password set" if r.password else ""
        aof = ", enforceAof" if r.enforce_aof else ""
        return f"redis {r.host}:{r.port} db {r.db}{auth}{aof} — keys project:{name}:*"
    return f"sqlite {sqlite_path(config, project_root)} — project {name}"
