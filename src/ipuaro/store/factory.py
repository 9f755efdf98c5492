"""Open the configured store: the only place that picks a backend.

Backend modules are imported here, lazily, so ``import ipuaro.store`` stays cheap and a user on
SQLite never loads redis-py.
"""

from __future__ import annotations

from pathlib import Path

from ipuaro.config.schema import Config
from ipuaro.store.naming import default_database, project_name
from ipuaro.store.protocol import Store


def sqlite_path(config: Config, project_root: Path) -> Path:
    """``store.path`` (relative paths are taken from the project root) or the default
    ``{data dir}/{project name}.db``."""
    configured = config.store.path
    if configured is None:
        return default_database(project_root)
    configured = configured.expanduser()
    return configured if configured.is_absolute() else project_root / configured


def open_store(config: Config, project_root: Path, *, rebuild: bool = False) -> Store:
    """The project's store, opened and checked (schema version; Redis: reachable, AOF).

    ``rebuild`` starts the project's index afresh (``ipuaro index --rebuild``), keeping
    sessions; a SQLite file that cannot be opened is moved to ``.bak``.
    Raises :class:`~ipuaro.store.protocol.StoreError` subclasses with instructions."""
    name = project_name(project_root)
    if config.store.backend == "redis":
        from ipuaro.store.redis_store import RedisStore

        redis_config = config.redis
        return RedisStore(
            name,
            host=redis_config.host,
            port=redis_config.port,
            db=redis_config.db,
            password=redis_config.password,
            enforce_aof=redis_config.enforce_aof,
            rebuild=rebuild,
        )
    from ipuaro.store.sqlite import SqliteStore

    path = sqlite_path(config, project_root)
    return SqliteStore.rebuild(path, name) if rebuild else SqliteStore(path, name)


def describe_store(config: Config, project_root: Path) -> str:
    """One line for ``ipuaro doctor`` / ``/status``: backend, where, project name."""
    name = project_name(project_root)
    if config.store.backend == "redis":
        r = config.redis
        auth = ", password set" if r.password else ""
        aof = ", enforceAof" if r.enforce_aof else ""
        return f"redis {r.host}:{r.port} db {r.db}{auth}{aof} — keys project:{name}:*"
    return f"sqlite {sqlite_path(config, project_root)} — project {name}"
