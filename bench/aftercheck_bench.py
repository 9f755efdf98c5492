"""What the after-edit check costs per edit, on django.

Usage::

    .venv/bin/python bench/aftercheck_bench.py [--corpus PATH] [--runs N] [--work DIR]

Copies the corpus into ``--work`` (or a temporary folder), indexes the copy once into a real
SQLite store, then applies the same edits through the real edit engine (validation, undo entry,
atomic write, re-index) N times with the after-edit check and N times without it (the engine's
check steps replaced by no-ops, alternating), each edit undone by the next one. Prints, per
edit, the median time of an applied edit with and without the check, and the median time of
the check's own two steps (the old text's summary before the write, the check after the
re-index) — the cost it adds, free of the machine's load drift; the target is < 50 ms.

The edits: a signature change of a function used across the project (``get_object_or_404``
in django/shortcuts.py), a replace that breaks the syntax of a large module
(django/db/models/query.py), and a harmless one-line change there.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from corpora import corpus  # bench/ is on sys.path: this runs as a script

DEFAULT_CORPUS = corpus("django")
EDITS = [
    (
        "signature change, 2 files use it",
        "django/shortcuts.py",
        "def get_object_or_404(klass, *args, **kwargs):",
        "def get_object_or_404(klass, *args, strict=False, **kwargs):",
    ),
    (
        "syntax broken in a 2,600-line module",
        "django/db/models/query.py",
        "    def iterator(self, chunk_size=None):",
        "    def iterator(self, chunk_size=None:",
    ),
    (
        "harmless change in the same module",
        "django/db/models/query.py",
        "# The maximum number of results to fetch in a get() query.",
        "# The maximum number of results fetched by a get() query.",
    ),
]


class CheckTimer:
    """Wraps the engine's two check steps and times them (what the check adds to an edit)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.before, self.check = engine._before, engine._check
        self.spent = 0.0
        self.on = True

    def install(self) -> None:
        timer = self

        def before(engine: Any, changes: Any) -> Any:
            if not timer.on:
                return {}
            started = time.perf_counter()
            try:
                return timer.before(engine, changes)
            finally:
                timer.spent += time.perf_counter() - started

        def check(engine: Any, changes: Any, old: Any, **options: Any) -> Any:
            if not timer.on:
                return None
            started = time.perf_counter()
            try:
                return timer.check(engine, changes, old, **options)
            finally:
                timer.spent += time.perf_counter() - started

        self.engine._before, self.engine._check = before, check


async def timed_edits(
    ctx: Any, timer: CheckTimer, path: str, old: str, new: str, runs: int
) -> tuple[list[float], list[float], list[float]]:
    """(edit times with the check, without it, the check's own time); the two kinds of edit
    alternate so a change in machine load touches both alike."""
    from ipuaro.domain.edits import FileChange
    from ipuaro.edits.engine import EditEngine

    with_check: list[float] = []
    without: list[float] = []
    own: list[float] = []
    text = (ctx.root / path).read_text()
    changed = text.replace(old, new, 1)
    assert changed != text, f"{old!r} is not in {path}"
    for _ in range(runs):
        for on in (True, False):
            timer.on = on
            for before, after in ((text, changed), (changed, text)):
                timer.spent = 0.0
                started = time.perf_counter()
                result = await EditEngine(ctx).apply([FileChange(path, before, after)], "bench")
                spent = time.perf_counter() - started
                assert result.applied, result.message
                (with_check if on else without).append(spent)
                if on:
                    own.append(timer.spent)
    return with_check, without, own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--work", type=Path, default=None)
    options = parser.parse_args()
    if not options.corpus.is_dir():
        sys.exit(f"{options.corpus} is missing: fetch it with scripts/fetch-corpora")
    holder = tempfile.TemporaryDirectory() if options.work is None else None
    work = Path(holder.name) if holder is not None else options.work
    os.environ["IPUARO_DATA_DIR"] = str(work / "data")
    root = work / "django"
    if not root.is_dir():
        shutil.copytree(options.corpus, root)

    from ipuaro.config.schema import Config
    from ipuaro.edits.engine import EditEngine
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.store.factory import open_store
    from ipuaro.tools.context import build_context

    config = Config()
    store = open_store(config, root)
    indexer = Indexer(root, config, store)
    started = time.perf_counter()
    indexer.index()
    print(f"indexed {root} in {time.perf_counter() - started:.1f} s")
    ctx = build_context(
        root, config, store, indexer.update_paths, session_id="bench", auto_apply=True
    )
    timer = CheckTimer(EditEngine)
    timer.install()
    print(f"{'edit':40} {'with check':>12} {'without':>10} {'the check itself':>18}")
    for label, path, old, new in EDITS:
        with_check, without, own = asyncio.run(
            timed_edits(ctx, timer, path, old, new, options.runs)
        )
        a, b, c = (statistics.median(x) * 1000 for x in (with_check, without, own))
        print(f"{label:40} {a:9.1f} ms {b:7.1f} ms {c:15.1f} ms")
    store.close()


if __name__ == "__main__":
    main()
