"""A project's index without a model or a session: what ``ipuaro index`` runs (scan, count,
index with progress, rebuild). Store failures come out as :class:`IndexFailed`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.core.errors import IndexFailed

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.index.pipeline.indexer import Indexer, IndexSummary

    IndexRun = IndexSummary
    """Everything one run did (files, parsed, unchanged, deleted, symbols, seconds…)."""


@contextmanager
def _store_errors() -> Iterator[None]:
    from ipuaro.store.protocol import StoreError

    try:
        yield
    except StoreError as error:
        raise IndexFailed(str(error)) from None


class ProjectIndex:
    def __init__(self, indexer: Indexer, notices: list[str]) -> None:
        self._indexer = indexer
        self.notices = notices
        """Said once (Redis without AOF loses the index on restart)."""

    @classmethod
    def open(cls, root: Path, config: Config, *, rebuild: bool = False) -> ProjectIndex:
        """Open the project's store (``rebuild`` drops the stored index first)."""
        from ipuaro.index.pipeline.indexer import ConfigOpener, Indexer
        from ipuaro.store.factory import open_store

        with _store_errors():
            store = open_store(config, root, rebuild=rebuild)
        # Pool processes open their own connection; SQLite stores are found by their path.
        opener = ConfigOpener(config, root) if config.store.backend == "redis" else None
        notices = list(getattr(store, "notices", []))
        return cls(Indexer(root, config, store, opener=opener), notices)

    @property
    def root(self) -> Path:
        return self._indexer.root

    @property
    def config(self) -> Config:
        return self._indexer.config

    def count_files(self) -> int:
        """Scan now (the next run reuses the scan) and count the files to index."""
        with _store_errors():
            return self._indexer.count_files()

    def run(
        self,
        *,
        rebuild: bool = False,
        progress: Callable[[int, int], None] | None = None,
        workers: int | None = None,
    ) -> IndexRun:
        with _store_errors():
            return self._indexer.index(rebuild=rebuild, progress=progress, workers=workers)

    def close(self) -> None:
        self._indexer.store.close()
