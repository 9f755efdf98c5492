"""Sessions, undo/redo stacks and input history in Redis, and the record decoding the whole
store shares. Keys are described in :mod:`ipuaro.store.redis_store`."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import redis
from pydantic import BaseModel
from redis.client import NEVER_DECODE

from ipuaro.domain import Session, UndoEntry
from ipuaro.store.protocol import CorruptRecord, UndoStackName
from ipuaro.store.shared import REBUILD_HINT, first_line

SESSIONS_LIST = "sessions:list"
_DROPPED = "\x00dropped"
"""Placeholder for undo entries being removed by index (LSET, then LREM)."""

M = TypeVar("M", bound=BaseModel)


def text_of(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def undecoded(client: Any, *command: Any) -> Any:
    """``command``'s reply as bytes, whatever the client's ``decode_responses``."""
    return client.execute_command(*command, **{NEVER_DECODE: []})


class RedisSessions:
    """The session half of :class:`~ipuaro.store.redis_store.RedisStore` (which sets these)."""

    project_name: str
    where: str
    _client: redis.Redis
    _guard: Callable[[str], AbstractContextManager[None]]

    # --- decoding stored records -----------------------------------------------------------
    def _corrupt(self, key: str, field: str, err: Exception) -> CorruptRecord:
        fix = (
            f"delete the session with `ipuaro sessions delete {key[8 : key.rindex(':')]}`"
            if key.startswith("session:")
            else REBUILD_HINT
        )
        return CorruptRecord(
            f"{self.where}: {key} field {field!r} does not decode ({first_line(err)}); {fix}"
        )

    def _decode(self, model: type[M], text: str, key: str, field: str) -> M:
        try:
            return model.model_validate_json(text)
        except ValueError as err:
            raise self._corrupt(key, field, err) from err

    def _loads(self, text: str, key: str, field: str) -> Any:
        try:
            return json.loads(text)
        except ValueError as err:
            raise self._corrupt(key, field, err) from err

    # --- sessions -------------------------------------------------------------------------
    def save_session(self, session: Session) -> None:
        fields: dict[Any, str] = {
            name: json.dumps(value, separators=(",", ":"))
            for name, value in session.model_dump(mode="json", by_alias=True).items()
        }
        data = f"session:{session.id}:data"
        with self._guard("saving a session"), self._client.pipeline(transaction=True) as pipe:
            pipe.delete(data)
            pipe.hset(data, mapping=fields)
            # Most recently saved last, once: list_sessions is oldest first.
            pipe.lrem(SESSIONS_LIST, 0, session.id)
            pipe.rpush(SESSIONS_LIST, session.id)
            pipe.execute()

    def load_session(self, session_id: str) -> Session | None:
        key = f"session:{session_id}:data"
        # Bytes, decoded field by field: a value that is not UTF-8 is this session's damage,
        # named as such (the client's own decoding would fail the read with a traceback).
        with self._guard("loading a session"):
            stored = undecoded(self._client, "HGETALL", key)
        if not stored:
            return None
        values: dict[str, Any] = {}
        for raw_field, raw_text in stored.items():
            field = raw_field.decode("utf-8", "replace")
            try:
                text = raw_text.decode("utf-8")
            except UnicodeDecodeError as err:
                raise self._corrupt(key, field, err) from err
            values[field] = self._loads(text, key, field)
        try:
            return Session.model_validate(values)
        except ValueError as err:
            raise self._corrupt(key, "*", err) from err

    def list_sessions(self) -> list[str]:
        with self._guard("listing sessions"):
            raw_ids = undecoded(self._client, "LRANGE", SESSIONS_LIST, 0, -1)
            ids = [raw.decode("utf-8", "replace") for raw in raw_ids]
            with self._client.pipeline(transaction=False) as pipe:
                for raw in raw_ids:
                    key = b"session:" + raw + b":data"
                    undecoded(pipe, "HGET", key, "projectName")
                owners = pipe.execute()
        mine = json.dumps(self.project_name).encode()
        # A session whose id or projectName is not UTF-8 cannot be told apart as this
        # project's: left out, never failing the list.
        return [
            session_id
            for session_id, raw, owner in zip(ids, raw_ids, owners, strict=True)
            if owner == mine and session_id.encode() == raw
        ]

    def delete_session(self, session_id: str) -> bool:
        keys = [f"session:{session_id}:{part}" for part in ("data", "undo", "redo", "input")]
        with self._guard("deleting a session"), self._client.pipeline(transaction=True) as pipe:
            pipe.exists(keys[0])
            pipe.delete(*keys)
            pipe.lrem(SESSIONS_LIST, 0, session_id)
            existed = pipe.execute()[0]
        return bool(existed)

    def push_undo(
        self, session_id: str, entry: UndoEntry, limit: int, stack: UndoStackName = "undo"
    ) -> None:
        if limit < 1:
            raise ValueError(f"undo limit must be at least 1, got {limit}")
        key = f"session:{session_id}:{stack}"
        with self._guard("pushing an undo entry"), self._client.pipeline(transaction=True) as pipe:
            pipe.rpush(key, entry.to_json())
            pipe.ltrim(key, -limit, -1)
            pipe.execute()

    def pop_undo(self, session_id: str, stack: UndoStackName = "undo") -> UndoEntry | None:
        key = f"session:{session_id}:{stack}"
        with self._guard("popping an undo entry"):
            text = self._client.rpop(key)  # no count: one value or None
        if text is None or isinstance(text, list):
            return None
        return self._decode(UndoEntry, text_of(text), key, "-1")

    def list_undo(self, session_id: str, stack: UndoStackName = "undo") -> list[UndoEntry]:
        key = f"session:{session_id}:{stack}"
        with self._guard("listing undo entries"):
            texts = self._client.lrange(key, 0, -1)
        return [self._decode(UndoEntry, text_of(t), key, str(i)) for i, t in enumerate(texts)]

    def clear_undo(self, session_id: str, stack: UndoStackName = "undo") -> None:
        with self._guard("clearing undo entries"):
            self._client.delete(f"session:{session_id}:{stack}")

    def settle_undo(
        self, session_id: str, confirmed: Collection[str], dropped: Collection[str] = ()
    ) -> None:
        if not confirmed and not dropped:
            return
        key = f"session:{session_id}:undo"
        with self._guard("confirming undo entries"), self._client.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(key)  # type: ignore[no-untyped-call]  # a push restarts it
                    texts = [text_of(t) for t in pipe.lrange(key, 0, -1)]
                    pipe.multi()
                    for index, text in enumerate(texts):
                        entry = self._decode(UndoEntry, text, key, str(index))
                        if entry.id in dropped:
                            pipe.lset(key, index, _DROPPED)
                        elif entry.id in confirmed:
                            settled = entry.model_copy(update={"pending": None})
                            pipe.lset(key, index, settled.to_json())
                    pipe.lrem(key, 0, _DROPPED)
                    pipe.execute()
                    return
                except redis.WatchError:
                    continue

    def append_input_history(self, session_id: str, text: str, limit: int = 1000) -> None:
        if limit < 1:
            raise ValueError(f"input history limit must be at least 1, got {limit}")
        key = f"session:{session_id}:input"
        with self._guard("saving input history"), self._client.pipeline(transaction=True) as pipe:
            pipe.rpush(key, text)
            pipe.ltrim(key, -limit, -1)
            pipe.execute()

    def get_input_history(self, session_id: str) -> list[str]:
        with self._guard("reading input history"):
            return [text_of(t) for t in self._client.lrange(f"session:{session_id}:input", 0, -1)]
