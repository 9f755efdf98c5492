"""Pausing Python's cyclic garbage collector while an index run builds its models.

An index run allocates millions of objects that stay alive until they are written (parsed
models held per file). Each automatic full collection walks all of them, and there are many:
on Django that was a third of the parse time. Parsing creates no reference cycles (the models
are trees, freed by reference counting), so nothing piles up while the collector waits; the
few cycles made elsewhere are collected once it runs again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic cyclic collection inside the block; the previous setting afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def pause_collector_for_good() -> None:
    """For a pool process that exits when its index run ends: collect never, and leave what
    it inherited from the parent out of any explicit collection."""
    gc.disable()
    gc.freeze()
