"""The project index: scan, parse, resolve imports, build graphs and metas, keep it fresh.

Public API (imported lazily, so ``import ipuaro.index.parsers`` in a pool process stays cheap)::

    Indexer(root, config, store).index(rebuild=False, progress=None, workers=None)
    Indexer.update_paths(changed, deleted=())        # the watcher and the edit engine
    Indexer.count_files()                             # for the limits.maxFilesWarning question
    IndexSummary                                      # counts and seconds; .to_json()
    IndexWatcher(indexer).run(stop) / .start() / .stop()
    scan(root, config) -> ScanResult                  # ignore rules: ProjectIgnore
    ProjectLayout.load(root, files).resolve(from_path, specifier, language) -> Resolution
    content_hash(data: bytes) -> str                  # FileData.hash of a text file (xxh3_64)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ipuaro.index.ignore import ProjectIgnore
    from ipuaro.index.indexer import Indexer, IndexSummary
    from ipuaro.index.reader import content_hash
    from ipuaro.index.resolver import ProjectLayout, Resolution
    from ipuaro.index.scanner import ScanEntry, ScanResult, scan
    from ipuaro.index.watcher import IndexWatcher

_EXPORTS = {
    "Indexer": "ipuaro.index.indexer",
    "IndexSummary": "ipuaro.index.indexer",
    "IndexWatcher": "ipuaro.index.watcher",
    "ProjectIgnore": "ipuaro.index.ignore",
    "ProjectLayout": "ipuaro.index.resolver",
    "Resolution": "ipuaro.index.resolver",
    "ScanEntry": "ipuaro.index.scanner",
    "ScanResult": "ipuaro.index.scanner",
    "content_hash": "ipuaro.index.reader",
    "scan": "ipuaro.index.scanner",
}

__all__ = [
    "IndexSummary",
    "IndexWatcher",
    "Indexer",
    "ProjectIgnore",
    "ProjectLayout",
    "Resolution",
    "ScanEntry",
    "ScanResult",
    "content_hash",
    "scan",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ipuaro.index' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
