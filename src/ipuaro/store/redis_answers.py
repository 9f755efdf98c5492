"""Language-server answers in the Redis store: a cache, never the truth.

One hash, ``project:{name}:answers``: field = the question's key (see
:mod:`ipuaro.index.lsp.cache`), value = ``{"name", "paths", "answer"}`` JSON. A changed file
drops the answers whose ``paths`` name it (one HGETALL: the cache holds one entry per question
asked in a session, not one per file of the project). An older ipuaro never reads the hash.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from contextlib import AbstractContextManager

import redis

from ipuaro.store.redis_sessions import text_of


class RedisServerAnswers:
    """Mixed into :class:`~ipuaro.store.redis_store.RedisStore` (which sets these)."""

    _client: redis.Redis
    _answers: str
    _guard: Callable[[str], AbstractContextManager[None]]

    def get_server_answer(self, key: str) -> str | None:
        with self._guard("reading a language-server answer"):
            stored = self._client.hget(self._answers, key)
        if stored is None:
            return None
        try:
            answer = json.loads(text_of(stored))["answer"]
        except (ValueError, KeyError, TypeError):
            return None  # a cache entry that does not decode is a miss, not a failure
        return answer if isinstance(answer, str) else None

    def put_server_answer(self, key: str, name: str, paths: Collection[str], answer: str) -> None:
        value = json.dumps({"name": name, "paths": sorted(set(paths)), "answer": answer})
        with self._guard("caching a language-server answer"):
            self._client.hset(self._answers, key, value)

    def drop_server_answers(self, paths: Collection[str] = (), names: Collection[str] = ()) -> int:
        paths, names = set(paths), set(names)
        if not paths and not names:
            return 0
        with self._guard("dropping language-server answers"):
            stored = self._client.hgetall(self._answers)
            doomed = []
            for key, value in stored.items():
                try:
                    entry = json.loads(text_of(value))
                    involved = set(entry["paths"])
                    name = entry["name"]
                except (ValueError, KeyError, TypeError):
                    doomed.append(key)
                    continue
                if involved & paths or name in names:
                    doomed.append(key)
            if doomed:
                self._client.hdel(self._answers, *doomed)
        return len(doomed)
