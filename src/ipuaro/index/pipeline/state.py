"""The project-wide facts an incremental update needs, kept in the store's project indexes.

``deps_graph``: ``{path: [files it imports]}``. ``call_graph``: ``{path: [files whose
functions it calls]}``. ``stats``: totals, the hub threshold, per-file symbol/reference counts,
which files are binaries or symlinks, unresolved import specifiers per file, and ``complete``
(False while a full index is being written: a run interrupted half-way is redone from scratch).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ipuaro.index.pipeline.analyzer import DependencyGraph
from ipuaro.store.protocol import Store

HASH_NAME = "xxh3_64"


@dataclass
class ProjectState:
    graph: DependencyGraph = field(default_factory=DependencyGraph)
    call_graph: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, list[int]] = field(default_factory=dict)
    """path → [symbols, references] for files with index contributions."""
    special: dict[str, str] = field(default_factory=dict)
    """path → ``binary`` | ``symlink``."""
    unresolved: dict[str, list[str]] = field(default_factory=dict)
    hub_threshold: int = 1 << 30
    complete: bool = True

    @classmethod
    def load(cls, store: Store) -> ProjectState:
        stats = store.get_project_index("stats")
        graph = store.get_project_index("deps_graph")
        calls = store.get_project_index("call_graph")
        if not isinstance(stats, dict):
            # No stats: an empty store is complete; files without stats are not.
            return cls(complete=not store.file_hashes())
        return cls(
            graph=DependencyGraph.from_mapping(graph if isinstance(graph, dict) else {}),
            call_graph=dict(calls) if isinstance(calls, dict) else {},
            counts=dict(stats.get("counts") or {}),
            special=dict(stats.get("special") or {}),
            unresolved=dict(stats.get("unresolved") or {}),
            hub_threshold=int(stats.get("hubThreshold", 1 << 30)),
            complete=bool(stats.get("complete", False)),
        )

    def totals(self) -> tuple[int, int]:
        symbols = sum(c[0] for c in self.counts.values())
        references = sum(c[1] for c in self.counts.values())
        return symbols, references

    def kinds(self) -> tuple[int, int]:
        binary = sum(1 for kind in self.special.values() if kind == "binary")
        return binary, len(self.special) - binary

    def forget(self, path: str) -> None:
        self.call_graph.pop(path, None)
        self.counts.pop(path, None)
        self.special.pop(path, None)
        self.unresolved.pop(path, None)

    def project_indexes(self, files: int, *, complete: bool = True) -> dict[str, Any]:
        symbols, references = self.totals()
        binary, symlinks = self.kinds()
        return {
            "deps_graph": self.graph.to_mapping(),
            "call_graph": {k: v for k, v in sorted(self.call_graph.items()) if v},
            "stats": {
                "complete": complete,
                "lastIndexed": time.time(),
                "hash": HASH_NAME,
                "files": files,
                "symbols": symbols,
                "references": references,
                "binary": binary,
                "symlinks": symlinks,
                "hubThreshold": self.hub_threshold,
                "counts": self.counts,
                "special": self.special,
                "unresolved": {k: v for k, v in sorted(self.unresolved.items()) if v},
            },
        }


def mark_incomplete(store: Store) -> None:
    """Written before a multi-transaction run, so an interrupted run is detected next time."""
    from ipuaro.store.protocol import IndexBatch

    stats = store.get_project_index("stats")
    value = dict(stats) if isinstance(stats, dict) else {}
    value["complete"] = False
    store.apply_batch(IndexBatch(project_indexes={"stats": value}))
