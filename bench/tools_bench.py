"""Tool latency on a warm store against ripgrep on the same question.

Usage::

    .venv/bin/python bench/tools_bench.py [--corpus PATH] [--runs N] [--data-dir DIR]

Indexes the corpus once (into ``--data-dir`` or a temporary ``IPUARO_DATA_DIR``; an existing
index there is reused after an incremental check), then times each tool call through the real
registry (argument validation, store queries, result text) and the closest ``rg`` command as a
subprocess. Prints the first call, the median of N runs of each and the ratio of the medians
ipuaro/rg (below 1.0: ipuaro is faster). The rg commands answer the same question as the tool:

- find_definition ``X`` — ``rg -n "^\\s*(def|class|async def) X\\b" -t py``
- find_references ``X`` — ``rg -n -w X -t py``
- get_function ``path`` ``name`` — ``rg -n "def name\\b" path`` (rg only locates the line; the
  tool also returns the whole body)
- grep_search ``text`` — ``rg -n -i -F text`` (literal, case-insensitive: the tool's defaults)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpora import corpus  # bench/ is on sys.path: this runs as a script

DEFAULT_CORPUS = corpus("django")


@dataclass(frozen=True)
class Case:
    tool: str
    arguments: dict[str, Any]
    rg: list[str]


CASES = [
    Case(
        "find_definition",
        {"symbol": "QuerySet"},
        ["rg", "-n", r"^\s*(def|class|async def) QuerySet\b", "-t", "py"],
    ),
    Case(
        "find_definition",
        {"symbol": "get_object_or_404"},
        ["rg", "-n", r"^\s*(def|class|async def) get_object_or_404\b", "-t", "py"],
    ),
    Case(
        "find_references",
        {"symbol": "get_object_or_404"},
        ["rg", "-n", "-w", "get_object_or_404", "-t", "py"],
    ),
    Case(
        "find_references",
        {"symbol": "ValidationError"},
        ["rg", "-n", "-w", "ValidationError", "-t", "py"],
    ),
    Case(
        "get_function",
        {"path": "django/db/models/query.py", "name": "QuerySet.filter"},
        ["rg", "-n", r"def filter\b", "django/db/models/query.py"],
    ),
    Case(
        "get_function",
        {"path": "django/shortcuts.py", "name": "get_object_or_404"},
        ["rg", "-n", r"def get_object_or_404\b", "django/shortcuts.py"],
    ),
    Case(
        "grep_search",
        {"query": "def get_queryset"},
        ["rg", "-n", "-i", "-F", "def get_queryset"],
    ),
    Case(
        "grep_search",
        {"query": "transaction.atomic"},
        ["rg", "-n", "-i", "-F", "transaction.atomic"],
    ),
]


def median_seconds(samples: list[float]) -> float:
    return statistics.median(samples)


def time_rg(command: list[str], cwd: Path, runs: int) -> float:
    samples: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - started)
    return median_seconds(samples)


async def time_tool(registry: Any, ctx: Any, case: Case, runs: int) -> tuple[float, bool]:
    samples: list[float] = []
    ok = True
    for _ in range(runs):
        started = time.perf_counter()
        result = await registry.call(case.tool, dict(case.arguments), ctx, "bench")
        samples.append(time.perf_counter() - started)
        ok = ok and result.success
    return median_seconds(samples), ok


def build(corpus: Path) -> tuple[Any, Any, Any, float, int]:
    from ipuaro.config.schema import Config
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.store.factory import open_store
    from ipuaro.tools.context import build_context
    from ipuaro.tools.registry import ToolRegistry

    config = Config()
    store = open_store(config, corpus)
    indexer = Indexer(corpus, config, store)
    started = time.perf_counter()
    summary = indexer.index()
    index_seconds = time.perf_counter() - started
    ctx = build_context(
        corpus,
        config,
        store,
        lambda changed, deleted: indexer.update_paths(changed, deleted),
        session_id="bench",
        auto_apply=False,
    )
    return store, ctx, ToolRegistry.default(), index_seconds, summary.files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--data-dir", type=Path, default=None)
    options = parser.parse_args()
    corpus = options.corpus.resolve()
    if not corpus.is_dir():
        sys.exit(
            f"corpus not found: {corpus} (fetch it with `pip download --no-binary :all: "
            "django==5.0.6` and unpack it)"
        )
    holder = None
    if options.data_dir is None:
        holder = tempfile.TemporaryDirectory(prefix="ipuaro-bench-")
        os.environ["IPUARO_DATA_DIR"] = holder.name
    else:
        os.environ["IPUARO_DATA_DIR"] = str(options.data_dir)
    store, ctx, registry, index_seconds, files = build(corpus)
    print(f"corpus {corpus.name}: {files} files indexed (or checked) in {index_seconds:.1f}s")
    print(f"median of {options.runs} runs, warm store; ratio = ipuaro / rg (< 1: ipuaro faster)")
    print()
    header = (
        f"| {'tool':<16} | {'arguments':<52} | {'first ms':>8} | {'ipuaro ms':>9} "
        f"| {'rg ms':>7} | {'ratio':>5} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(part)) for part in header.split("|")[1:-1]) + "|")
    try:
        for case in CASES:
            # The first call of each case is shown apart: it pays for cold statement and page
            # caches; the median is what a session sees for repeated questions.
            first, _ = asyncio.run(time_tool(registry, ctx, case, 1))
            ours, ok = asyncio.run(time_tool(registry, ctx, case, options.runs))
            theirs = time_rg(case.rg, corpus, options.runs)
            shown = ", ".join(f"{k}={v}" for k, v in case.arguments.items())
            flag = "" if ok else " (failed!)"
            print(
                f"| {case.tool:<16} | {shown[:52]:<52} | {first * 1000:>8.1f} | "
                f"{ours * 1000:>9.1f} | {theirs * 1000:>7.1f} | {ours / theirs:>5.2f} |{flag}"
            )
    finally:
        store.close()
        if holder is not None:
            holder.cleanup()


if __name__ == "__main__":
    main()
