"""Where a cold index's CPU goes, and the wall time it allows on a given number of cores.

Not a test. Run by hand (a minute or two per corpus)::

    .venv/bin/python bench/index_budget.py                       # django
    .venv/bin/python bench/index_budget.py django=PATH three=PATH --runs 3

Issue 27 asks for Django's cold index within 2× of the one-process tree-sitter parse floor
(``bench/index_bench.py``'s "parse floor 1 proc"). A pooled index is CPU-bound, so its wall time
is bounded below by the CPU it spends: with ``C`` cores, at best ``serial + (cpu - serial) / C``,
where ``serial`` is the time only the indexing process works (before the pool's first parse and
after its last write). This bench measures both halves, each in a fresh process:

- **components** (one process, the collector off as in an index run, files read beforehand,
  grammars warm): the parse floor (``parse_tree_only``), parse plus the bulk capture query (the
  one full-tree walk extraction needs), ``parse_source`` in full, the parse worker (import
  resolution, summaries) and its writes into an empty SQLite store 150 files at a time as a
  pool process does, building the row indexes;
- **index** (a real cold ``Indexer.index()`` with the machine's cores as processes): wall,
  CPU of the indexing process and of its pool processes, and the phase times the run logs.

It prints both, the ratio of the cold index to the floor, and the best wall the measured CPU
allows on 1, 2, 4 and 8 cores against the same floor.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from corpora import corpus  # bench/ is on sys.path: this runs as a script
from index_bench import spawn as run_child

PHASE = re.compile(r"^(?P<what>.+?) in (?P<wall>[\d.]+) s \(this process: (?P<cpu>[\d.]+) CPU-s\)")


def _cpu() -> float:
    return time.process_time()


def child_components(root: Path) -> dict[str, Any]:
    from ipuaro.config.schema import Config
    from ipuaro.index.parsers import (
        LANGUAGES,
        captures,
        grammar,
        language_for,
        parse_source,
        parse_tree,
        parse_tree_only,
    )
    from ipuaro.index.pipeline.worker import WRITE_BATCH_FILES, ParseJob, ParseWorker
    from ipuaro.index.resolve.resolver import ProjectLayout
    from ipuaro.index.scan.reader import read_entry
    from ipuaro.index.scan.scanner import scan
    from ipuaro.store.sqlite import SqliteStore
    from ipuaro.store.sqlite_schema import create_row_indexes

    gc.disable()
    config = Config()
    entries = scan(root, config).entries
    jobs: list[ParseJob] = []
    for entry in entries:
        language = language_for(entry.path)
        if entry.kind != "text" or language is None:
            continue
        if entry.size > config.project.max_parse_bytes:
            continue
        outcome = read_entry(root, entry)
        if outcome.status == "text" and outcome.text is not None:
            jobs.append(
                ParseJob(entry.path, language, outcome.text, outcome.hash, entry.size, entry.mtime)
            )
    texts = [(job.path, job.text or "") for job in jobs]
    for path, text in texts[:40]:
        parse_source(path, text)  # grammars and queries loaded before timing

    def walk(path: str, text: str) -> None:
        language = language_for(path) or ""
        tree = parse_tree(path, text)
        if LANGUAGES[language].reader != "tags":
            captures(grammar(language), tree.root_node)

    def timed(step: Callable[[str, str], object]) -> float:
        """The least CPU of two passes (the shared box inflates one now and then)."""
        best = float("inf")
        for _ in range(2):
            started = _cpu()
            for path, text in texts:
                step(path, text)
            best = min(best, _cpu() - started)
        return best

    result: dict[str, Any] = {"files": len(texts)}
    result["floor"] = timed(parse_tree_only)
    result["walk"] = timed(walk)
    result["parse_source"] = timed(parse_source)

    with tempfile.TemporaryDirectory(prefix="ipuaro-budget-") as scratch:
        store = SqliteStore(Path(scratch) / "budget.db", "budget")
        store.clear_project()  # drops the row indexes, as a full index does
        worker = ParseWorker(ProjectLayout(root, [e.path for e in entries]), store=store)
        result["worker"] = result["write"] = 0.0
        # As a pool process works: parse chunks of 48, write each 150 files once parsed
        # (what it holds meanwhile is bounded, as in an index run).
        for start in range(0, len(jobs), WRITE_BATCH_FILES):
            batch = jobs[start : start + WRITE_BATCH_FILES]
            started = _cpu()
            for chunk in range(0, len(batch), 48):
                worker.parse(batch[chunk : chunk + 48])
            result["worker"] += _cpu() - started
            started = _cpu()
            worker.write({})
            result["write"] += _cpu() - started
        started = _cpu()
        with store._write("building the row indexes") as conn:
            create_row_indexes(conn)
        result["row_indexes"] = _cpu() - started
        store.close()
    return result


class _Phases(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.phases: list[tuple[str, float, float]] = []

    def emit(self, record: logging.LogRecord) -> None:
        found = PHASE.match(record.getMessage())
        if found:
            self.phases.append((found["what"], float(found["wall"]), float(found["cpu"])))


def child_index(root: Path) -> dict[str, Any]:
    started = time.perf_counter()
    phases = _Phases()
    run_log = logging.getLogger("ipuaro.index.pipeline.run")
    run_log.addHandler(phases)
    run_log.setLevel(logging.DEBUG)
    from ipuaro.config.schema import Config
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.store.factory import open_store

    config = Config()
    indexer = Indexer(root, config, open_store(config, root))
    indexer.index(workers=os.cpu_count() or 1)
    wall = time.perf_counter() - started
    indexer.store.close()
    own = resource.getrusage(resource.RUSAGE_SELF)
    pool = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "wall": wall,
        "parent_cpu": own.ru_utime + own.ru_stime,
        "pool_cpu": pool.ru_utime + pool.ru_stime,
        "phases": phases.phases,
    }


def child_floor(root: Path, paths: list[str]) -> dict[str, Any]:
    """index_bench's one-process floor: a fresh process, imports and reading included."""
    started = time.perf_counter()
    from ipuaro.index.parsers import parse_tree_only

    for path in paths:
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            parse_tree_only(path, handle.read())
    return {"wall": time.perf_counter() - started}


def child_paths(root: Path) -> dict[str, Any]:
    from ipuaro.config.schema import Config
    from ipuaro.index.parsers import language_for
    from ipuaro.index.scan.scanner import scan

    config = Config()
    paths: list[str] = []
    for entry in scan(root, config).entries:
        if entry.kind != "text" or language_for(entry.path) is None:
            continue
        if entry.size > config.project.max_parse_bytes:
            continue
        try:
            text = (root / entry.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "\x00" not in text[:8192]:
            paths.append(entry.path)
    return {"paths": paths}


def spawn(mode: str, root: Path, scratch: Path, *extra: str) -> dict[str, Any]:
    data_dir = scratch / f"data-{mode}-{time.monotonic_ns()}"
    return run_child(mode, str(root), *extra, data_dir=data_dir, script=__file__)


def measure(name: str, root: Path, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix=f"ipuaro-budget-{name}-") as scratch_text:
        scratch = Path(scratch_text)
        paths_file = scratch / "paths.json"
        paths_file.write_text(json.dumps(spawn("paths", root, scratch)["paths"]), "utf-8")
        rounds = []
        for _ in range(runs):  # interleaved: the floor and the index see the same machine
            floor = spawn("floor", root, scratch, str(paths_file))["wall"]
            index = spawn("index", root, scratch)
            rounds.append((floor, index))
        parts = spawn("components", root, scratch)
    floor = statistics.median(f for f, _ in rounds)
    best = min(rounds, key=lambda r: r[1]["wall"])[1]
    walls = [i["wall"] for _, i in rounds]
    print(f"\n## {name}: {parts['files']:,} parsed files, {runs} interleaved run(s)\n")
    print("| one process, CPU-s | |\n| --- | --- |")
    rows = [
        ("tree-sitter parse (the floor's work)", parts["floor"]),
        ("+ the bulk capture query (one full-tree walk)", parts["walk"] - parts["floor"]),
        ("+ Python extraction (rest of parse_source)", parts["parse_source"] - parts["walk"]),
        (
            "+ import resolution and summaries (parse worker)",
            parts["worker"] - parts["parse_source"],
        ),
        ("+ writing the parsed files (empty store, no row indexes)", parts["write"]),
        ("+ building the row indexes", parts["row_indexes"]),
    ]
    for label, value in rows:
        print(f"| {label} | {value:.2f} |")
    total_parts = parts["worker"] + parts["write"] + parts["row_indexes"]
    print(f"| **sum** | **{total_parts:.2f}** |")
    phases = {what.split(" ", 1)[0]: (wall, cpu) for what, wall, cpu in best["phases"]}
    parsing = phases.get("parsed", (0.0, 0.0))[0]
    serial = best["wall"] - parsing
    cpu = best["parent_cpu"] + best["pool_cpu"]
    print(
        f"\nCold index ({os.cpu_count()} processes): wall {', '.join(f'{w:.2f}' for w in walls)} s "
        f"(best {best['wall']:.2f} s); CPU {cpu:.2f} s (indexing process "
        f"{best['parent_cpu']:.2f}, pool {best['pool_cpu']:.2f}); parse phase {parsing:.2f} s, "
        f"the rest (only the indexing process working) {serial:.2f} s. One-process floor "
        f"(fresh process, median) {floor:.2f} s: **{best['wall'] / floor:.2f}×**.\n"
    )
    print("| cores | best wall this CPU allows | ÷ floor |\n| --- | --- | --- |")
    for cores in (1, 2, 4, 8):
        bound = serial + max(cpu - serial, 0.0) / cores
        print(f"| {cores} | {bound:.2f} s | {bound / floor:.2f}× |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", help="name=root pairs (default: django)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved floor/index rounds")
    args = parser.parse_args()
    if args.corpora:
        roots = {n: Path(r) for n, _, r in (c.partition("=") for c in args.corpora)}
    else:
        roots = {"django": corpus("django")}
    for name, root in roots.items():
        measure(name, root, args.runs)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--child":
        mode, root = sys.argv[2], Path(sys.argv[3])
        if mode == "components":
            out = child_components(root)
        elif mode == "index":
            out = child_index(root)
        elif mode == "paths":
            out = child_paths(root)
        else:
            out = child_floor(root, json.loads(Path(sys.argv[4]).read_text("utf-8")))
        print(json.dumps(out))
    else:
        main()
