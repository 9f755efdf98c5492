"""The Redis store, with the concept's key layout.

Keys (the concept's, exactly)::

    project:{name}:files     hash  path -> FileData JSON
    project:{name}:ast       hash  path -> FileAST JSON
    project:{name}:meta      hash  path -> FileMeta JSON
    project:{name}:indexes   hash  project indexes by name (deps_graph, call_graph, stats...)
    project:{name}:config    hash  settings, whitelist, last_indexed, root (JSON values)
    session:{id}:data        hash  one field per Session field (history, context, stats...)
    session:{id}:undo        list  UndoEntry JSON, oldest first
    sessions:list            list  session ids of every project on this server; list_sessions
                                   keeps those whose ``projectName`` is this project

Extensions (documented here, nowhere else):

* ``session:{id}:redo`` (list) and ``session:{id}:input`` (list of typed lines, for ↑/↓).
* Fields inside ``project:{name}:indexes`` so look-ups cost O(matches), not a scan of files
  (``sym:{name}``, ``ref:{name}``, ``file:{path}``, ``hashes``...): see
  :mod:`ipuaro.store.redis_indexes`.
* ``schema_version`` inside ``project:{name}:config``.
* ``project:{name}:answers`` (hash): cached language-server answers
  (:mod:`ipuaro.store.redis_answers`).

Writes that touch the indexes read the affected fields under WATCH and commit in one MULTI/EXEC,
retrying when another writer got there first. Every redis-py exception leaves as a
``StoreError``: connection trouble as ``StoreUnavailable`` with instructions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import redis
from pydantic import BaseModel

from ipuaro.domain import (
    CallEdge,
    FileAST,
    FileData,
    FileIndexes,
    FileMeta,
    Reference,
    SymbolDef,
)
from ipuaro.store.protocol import (
    SCHEMA_VERSION,
    ConfigKey,
    IndexBatch,
    SchemaMismatch,
    StoreError,
)
from ipuaro.store.redis_answers import RedisServerAnswers
from ipuaro.store.redis_connect import Server, make_client
from ipuaro.store.redis_indexes import (
    CALLEES_FIELD,
    HASHES_FIELD,
    LISTINGS,
    SYMBOLS_FIELD,
    Entries,
    Merged,
    check_project_index_name,
    dumps,
    merge,
    name_fields,
    owned,
)
from ipuaro.store.redis_sessions import RedisSessions, text_of
from ipuaro.store.shared import (
    REBUILD_HINT,
    encode_json,
    files_containing,
    in_folder,
)

WATCH_RETRIES = 20
CHUNK = 2000
"""Fields per HSET/HMGET, so one command never carries hundreds of megabytes."""


M = TypeVar("M", bound=BaseModel)


class RedisStore(RedisSessions, RedisServerAnswers):
    """The :class:`~ipuaro.store.protocol.Store` protocol on a Redis server (AOF expected)."""

    def __init__(
        self,
        project_name: str,
        host: str = "localhost",
        port: int = 6379,
        db: int = 0,
        password: str | None = None,
        enforce_aof: bool = False,
        client: redis.Redis | None = None,
        *,
        rebuild: bool = False,
    ) -> None:
        self.project_name = project_name
        if client is None:
            client = make_client(host, port, db, password)
        else:
            options = client.get_connection_kwargs()
            if not options.get("decode_responses"):
                raise ValueError("RedisStore needs a client created with decode_responses=True")
            host, port = options.get("host", host), options.get("port", port)
            db = options.get("db", db)
        self._client = client
        self._server = Server(host, port, db)
        self.where = self._server.where
        self._guard = self._server.guard
        prefix = f"project:{project_name}"
        self._files, self._ast, self._meta = f"{prefix}:files", f"{prefix}:ast", f"{prefix}:meta"
        self._indexes, self._config = f"{prefix}:indexes", f"{prefix}:config"
        self._answers = f"{prefix}:answers"
        self._server.check(client, enforce_aof)
        self.notices = self._server.notices
        """Things the user should know (AOF off...); the CLI prints them."""
        self.aof_enabled = self._server.aof_enabled
        if rebuild:
            with self._guard("rebuilding the project"):
                self._client.delete(
                    self._files, self._ast, self._meta, self._indexes, self._answers
                )
                self._client.hdel(self._config, "schema_version")
        self._check_schema()

    @classmethod
    def rebuild(cls, project_name: str, **connection: Any) -> RedisStore:
        """Drop the project's files, ASTs, metas and indexes (sessions stay) and start empty."""
        return cls(project_name, rebuild=True, **connection)

    def _check_schema(self) -> None:
        with self._guard("checking the schema version"):
            self._client.hsetnx(self._config, "schema_version", str(SCHEMA_VERSION))
            stored = self._client.hget(self._config, "schema_version")
        found = None if stored is None else text_of(stored)
        if found != str(SCHEMA_VERSION):
            raise SchemaMismatch(
                f"{self.where}: project {self.project_name!r} holds store schema {found}, this "
                f"ipuaro uses version {SCHEMA_VERSION}; {REBUILD_HINT}"
            )

    def close(self) -> None:
        self._client.close()

    # --- plumbing -------------------------------------------------------------------------
    def _hmget(self, client: redis.Redis, key: str, fields: list[str]) -> list[str | None]:
        values: list[str | None] = []
        for start in range(0, len(fields), CHUNK):
            values += [
                None if v is None else text_of(v)
                for v in client.hmget(key, fields[start : start + CHUNK])
            ]
        return values

    def _get_one(self, model: type[M], key: str, path: str) -> M | None:
        with self._guard(f"reading {key}"):
            text = self._client.hget(key, path)
        return None if text is None else self._decode(model, text_of(text), key, path)

    def _get_many(self, model: type[M], key: str, paths: Iterable[str] | None) -> dict[str, M]:
        with self._guard(f"reading {key}"):
            if paths is None:
                pairs = sorted(
                    (text_of(p), text_of(t)) for p, t in self._client.hgetall(key).items()
                )
            else:
                wanted = list(dict.fromkeys(paths))
                pairs = [
                    (p, t)
                    for p, t in zip(wanted, self._hmget(self._client, key, wanted), strict=True)
                    if t is not None
                ]
        return {p: self._decode(model, t, key, p) for p, t in pairs}

    # --- files, ASTs, metas ---------------------------------------------------------------
    def get_file(self, path: str) -> FileData | None:
        return self._get_one(FileData, self._files, path)

    def get_files(self, paths: Iterable[str]) -> dict[str, FileData]:
        return self._get_many(FileData, self._files, paths)

    def files_containing(
        self, paths: Sequence[str], text: str, *, case_sensitive: bool
    ) -> list[str]:
        return files_containing(paths, text, case_sensitive, self._raw_files)

    def _raw_files(self, paths: list[str]) -> Iterable[tuple[str, str | None]]:
        with self._guard(f"reading {self._files}"):
            return zip(paths, self._hmget(self._client, self._files, paths), strict=True)

    def file_hashes(self) -> dict[str, str]:
        with self._guard("reading file hashes"):
            text = self._client.hget(self._indexes, HASHES_FIELD)
        hashes = {} if text is None else self._loads(text_of(text), self._indexes, HASHES_FIELD)
        if not isinstance(hashes, dict):
            raise self._corrupt(self._indexes, HASHES_FIELD, ValueError("not a path map"))
        return hashes

    def get_ast(self, path: str) -> FileAST | None:
        return self._get_one(FileAST, self._ast, path)

    def get_asts(self, paths: Iterable[str] | None = None) -> dict[str, FileAST]:
        return self._get_many(FileAST, self._ast, paths)

    def get_meta(self, path: str) -> FileMeta | None:
        return self._get_one(FileMeta, self._meta, path)

    def get_metas(self, paths: Iterable[str] | None = None) -> dict[str, FileMeta]:
        return self._get_many(FileMeta, self._meta, paths)

    def apply_batch(self, batch: IndexBatch) -> None:
        if batch.is_empty():
            return
        project: dict[str, str] = {}
        for name, value in batch.project_indexes.items():
            check_project_index_name(name)
            project[name] = encode_json(value, f"project index {name!r}")
        touched = set(batch.deletes) | set(batch.file_indexes)
        with self._guard("applying an index batch"):
            for _ in range(WATCH_RETRIES):
                with self._client.pipeline(transaction=True) as pipe:
                    try:
                        if touched or batch.files:  # read-modify-write of index fields
                            pipe.watch(self._indexes)  # type: ignore[no-untyped-call]
                        merged = self._merge_indexes(pipe, batch, touched)
                        if batch.files or batch.deletes:
                            merged.to_set[HASHES_FIELD] = self._merge_hashes(pipe, batch)
                        pipe.multi()
                        self._queue_writes(pipe, batch, merged.to_set | project, merged.to_delete)
                        pipe.execute()
                        return
                    except redis.WatchError:
                        continue  # another writer changed the indexes: recompute
        raise StoreError(
            f"{self.where}: the index kept changing under other writers ({WATCH_RETRIES} "
            "attempts); retry when the other indexer has finished"
        )

    def _merge_indexes(self, pipe: redis.Redis, batch: IndexBatch, touched: set[str]) -> Merged:
        """Read (under WATCH) every index field the batch changes; compute the new values."""
        if not touched:
            return Merged()
        paths = sorted(touched)
        file_fields = [f"file:{path}" for path in paths]
        old = [
            self._decode(FileIndexes, text, self._indexes, field)
            for field, text in zip(
                file_fields, self._hmget(pipe, self._indexes, file_fields), strict=True
            )
            if text is not None
        ]
        fresh = {path: owned(fi, path) for path, fi in batch.file_indexes.items()}
        names = sorted(name_fields([*old, *fresh.values()]))
        current = dict(zip(names, self._hmget(pipe, self._indexes, names), strict=True))
        values = {f: {} if text is None else self._entries(f, text) for f, text in current.items()}
        merged = merge(
            values, {f for f, text in current.items() if text is not None}, fresh, touched
        )
        for listing in LISTINGS:
            added, removed = merged.listing_changes(listing)
            if added or removed:
                names_now = (set(self._listing(pipe, listing)) | added) - removed
                merged.to_set[listing] = dumps(sorted(names_now))
        return merged

    def _listing(self, client: redis.Redis, listing: str) -> list[str]:
        text = client.hget(self._indexes, listing)
        value = [] if text is None else self._loads(text_of(text), self._indexes, listing)
        if not isinstance(value, list):
            raise self._corrupt(self._indexes, listing, ValueError("not a list of names"))
        return value

    def _merge_hashes(self, pipe: redis.Redis, batch: IndexBatch) -> str:
        text = pipe.hget(self._indexes, HASHES_FIELD)
        hashes = {} if text is None else self._loads(text_of(text), self._indexes, HASHES_FIELD)
        if not isinstance(hashes, dict):
            raise self._corrupt(self._indexes, HASHES_FIELD, ValueError("not a path map"))
        for path in batch.deletes:
            hashes.pop(path, None)
        hashes.update({path: data.hash for path, data in batch.files.items()})
        return dumps(hashes)

    def _queue_writes(
        self, pipe: redis.Redis, batch: IndexBatch, set_fields: dict[str, str], dels: list[str]
    ) -> None:
        if batch.deletes:
            gone = sorted(batch.deletes)
            for key in (self._files, self._ast, self._meta):
                pipe.hdel(key, *gone)
        if dels:
            pipe.hdel(self._indexes, *dels)
        _hset(pipe, self._files, {p: d.to_json() for p, d in batch.files.items()})
        _hset(pipe, self._ast, {p: a.to_json() for p, a in batch.asts.items()})
        _hset(pipe, self._meta, {p: m.to_json() for p, m in batch.metas.items()})
        _hset(pipe, self._indexes, set_fields)

    def clear_project(self) -> None:
        with self._guard("clearing the project index"):
            self._client.delete(self._files, self._ast, self._meta, self._indexes, self._answers)

    # --- project-wide indexes -------------------------------------------------------------
    def _entries(self, field: str, text: str | None = None) -> Entries:
        """An index field's ``{path: [entries]}``; read from Redis unless ``text`` is given."""
        if text is None:
            with self._guard("reading the index"):
                stored = self._client.hget(self._indexes, field)
            if stored is None:
                return {}
            text = text_of(stored)
        value = self._loads(text, self._indexes, field)
        if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
            raise self._corrupt(self._indexes, field, ValueError("not a {path: [...]} object"))
        return value

    def find_definitions(self, name: str) -> list[SymbolDef]:
        field = f"sym:{name}"
        try:
            found = [
                SymbolDef.model_validate(d) for ds in self._entries(field).values() for d in ds
            ]
        except ValueError as err:
            raise self._corrupt(self._indexes, field, err) from err
        return sorted(found, key=lambda s: (s.path, s.line))

    def find_references(self, name: str, path: str | None = None) -> list[Reference]:
        field = f"ref:{name}"
        try:
            found = [
                Reference(name=name, path=p, line=line, column=column)
                for p, positions in self._entries(field).items()
                if in_folder(p, path)
                for line, column in positions
            ]
        except (ValueError, TypeError) as err:
            raise self._corrupt(self._indexes, field, err) from err
        return sorted(found, key=lambda r: (r.path, r.line, r.column))

    def get_file_indexes(self, path: str) -> FileIndexes | None:
        found = self._get_one(FileIndexes, self._indexes, f"file:{path}")
        if found is None or not found.reference_table:
            return found
        # Read back as the SQLite store does: references as models, in document order.
        return FileIndexes(
            symbols=found.symbols, references=found.all_references(path), calls=found.calls
        )

    def find_calls(self, callee: str | None = None, caller: str | None = None) -> list[CallEdge]:
        with self._guard("reading calls"):
            if callee is not None or caller is not None:
                field = f"callee:{callee}" if callee is not None else f"caller:{caller}"
                text = self._client.hget(self._indexes, field)
                stored = [] if text is None else [(field, text_of(text))]
            else:  # every call: the fields of every listed callee (whole-graph use only)
                fields = [f"callee:{name}" for name in self._listing(self._client, CALLEES_FIELD)]
                stored = [
                    (f, t)
                    for f, t in zip(
                        fields, self._hmget(self._client, self._indexes, fields), strict=True
                    )
                    if t is not None
                ]
        found: list[CallEdge] = []
        for field, text in stored:
            entries = self._entries(field, text)
            try:
                found += [CallEdge.model_validate(e) for edges in entries.values() for e in edges]
            except ValueError as err:
                raise self._corrupt(self._indexes, field, err) from err
        if caller is not None:
            found = [edge for edge in found if edge.caller == caller]
        return sorted(found, key=lambda c: (c.path, c.line, c.caller, c.callee))

    def symbol_names(self) -> list[str]:
        with self._guard("listing symbol names"):
            return self._listing(self._client, SYMBOLS_FIELD)

    def get_project_index(self, name: str) -> Any | None:
        with self._guard("reading a project index"):
            text = self._client.hget(self._indexes, name)
        return None if text is None else self._loads(text_of(text), self._indexes, name)

    # --- project config -------------------------------------------------------------------
    def get_config(self, key: ConfigKey) -> Any | None:
        with self._guard("reading project config"):
            text = self._client.hget(self._config, key)
        return None if text is None else self._loads(text_of(text), self._config, key)

    def set_config(self, key: ConfigKey, value: Any) -> None:
        text = encode_json(value, f"config key {key!r}")
        with self._guard("writing project config"):
            self._client.hset(self._config, key, text)


def _hset(pipe: redis.Redis, key: str, mapping: dict[str, str]) -> None:
    items = list(mapping.items())
    for start in range(0, len(items), CHUNK):
        chunk: dict[Any, str] = dict(items[start : start + CHUNK])
        pipe.hset(key, mapping=chunk)
