"""Persistent project state: the ``Store`` protocol and its SQLite (default) and Redis backends.

Backends are imported lazily by :func:`ipuaro.store.factory.open_store`; nothing above the
wiring in ``app`` imports a backend module directly.
"""

from ipuaro.store.protocol import (
    SCHEMA_VERSION,
    CorruptRecord,
    IndexBatch,
    SchemaMismatch,
    Store,
    StoreError,
    StoreUnavailable,
)

__all__ = [
    "SCHEMA_VERSION",
    "CorruptRecord",
    "IndexBatch",
    "SchemaMismatch",
    "Store",
    "StoreError",
    "StoreUnavailable",
]
