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

from typing import TYPE_CHECKING

from ipuaro._lazy import lazy_exports

if TYPE_CHECKING:
    from ipuaro.index.pipeline.indexer import Indexer, IndexSummary
    from ipuaro.index.resolve.resolver import ProjectLayout, Resolution
    from ipuaro.index.scan.ignore import ProjectIgnore
    from ipuaro.index.scan.reader import content_hash
    from ipuaro.index.scan.scanner import ScanEntry, ScanResult, scan
    from ipuaro.index.watcher import IndexWatcher

_EXPORTS = {
    "Indexer": "ipuaro.index.pipeline.indexer",
    "IndexSummary": "ipuaro.index.pipeline.indexer",
    "IndexWatcher": "ipuaro.index.watcher",
    "ProjectIgnore": "ipuaro.index.scan.ignore",
    "ProjectLayout": "ipuaro.index.resolve.resolver",
    "Resolution": "ipuaro.index.resolve.resolver",
    "ScanEntry": "ipuaro.index.scan.scanner",
    "ScanResult": "ipuaro.index.scan.scanner",
    "content_hash": "ipuaro.index.scan.reader",
    "scan": "ipuaro.index.scan.scanner",
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


__getattr__ = lazy_exports(__name__, _EXPORTS)
