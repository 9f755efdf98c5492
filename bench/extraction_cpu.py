"""CPU of ``parse_source`` in one process, against a base commit's in the same run (issue 27).

Not a test. Run by hand::

    .venv/bin/python bench/extraction_cpu.py                        # django, base: merge-base
    .venv/bin/python bench/extraction_cpu.py --rounds 5 --base e5c635b django three

Each round starts one process per side (base first, then this checkout, alternating) that
parses every file the indexer would parse (default config, a parser for the path, UTF-8) three
ways, with the collector off as in the index's pool: ``parse`` (tree-sitter only, the floor),
``captures`` (plus the one bulk query of each Python file: what extraction cannot go below)
and ``full`` (``parse_source``; freeing the results afterwards is ``full free``, not in ``full``).
CPU seconds (``time.process_time``) only: the machine is
shared, wall time belongs to ``index_bench.py``. Figures are the minimum and median per side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from corpora import corpus
from parse_identity import REPO, base_commit, unpack_src

STAGES = ("parse", "captures", "full", "full free")

WORKER = r"""
import gc, json, sys, time
from pathlib import Path
from ipuaro.config.schema import Config
from ipuaro.index.scan.scanner import scan
from ipuaro.index.parsers import language_for, parse_source, parse_tree_only
from ipuaro.index.parsers._languages import captures, grammar, parser
from ipuaro.index.parsers._source import Source

root = Path(sys.argv[1])
texts = []
for entry in scan(root, Config()).entries:
    if entry.kind == "text" and language_for(entry.path):
        try:
            texts.append((entry.path, (root / entry.path).read_bytes().decode("utf-8")))
        except (OSError, UnicodeDecodeError):
            pass
for path, text in texts[:50]:
    parse_source(path, text)  # grammars and queries loaded
gc.collect()
gc.disable()


def bulk_query():
    for path, text in texts:
        if language_for(path) == "python":
            captures(grammar("python"), parser("python").parse(Source(text).data).root_node)
        else:
            parse_tree_only(path, text)
    return None


figures = {}
for stage, run in (
    ("parse", lambda: [parse_tree_only(path, text) for path, text in texts]),
    ("captures", bulk_query),
    ("full", lambda: [parse_source(path, text) for path, text in texts]),
):
    started = time.process_time()
    kept = run()
    figures[stage] = time.process_time() - started
    started = time.process_time()
    del kept  # the results' memory is given back outside the figure, as in components.py
    figures[stage + " free"] = time.process_time() - started
    gc.collect()
figures["files"] = len(texts)
print(json.dumps(figures))
"""


def measure(src: Path, root: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def _cell(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", default=["django"], help="names or name=folder")
    parser.add_argument("--base", help="commit to compare with (default: merge-base with main)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    commit = args.base or base_commit()
    with tempfile.TemporaryDirectory(prefix="extraction-cpu-") as folder:
        sides = {"base": unpack_src(commit, Path(folder) / "old"), "this": REPO / "src"}
        print(f"base {commit[:12]} against this checkout; {args.rounds} rounds, CPU-s")
        print("| corpus | side | files | " + " | ".join(f"{s} min / median" for s in STAGES) + " |")
        print("| --- | --- | --- | " + " | ".join("---" for _ in STAGES) + " |")
        for name in args.corpora:
            name, _, path = name.partition("=")
            root = Path(path) if path else corpus(name)
            runs: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
            for _ in range(args.rounds):
                for side, src in sides.items():
                    runs[side].append(measure(src, root))
            for side, figures in runs.items():
                cells = [_cell([f[stage] for f in figures]) for stage in STAGES]
                files = int(figures[0]["files"])
                print(f"| {name} | {side} | {files} | " + " | ".join(cells) + " |")
            base_full = statistics.median(f["full"] for f in runs["base"])
            this_full = statistics.median(f["full"] for f in runs["this"])
            print(f"{name}: full median {this_full / base_full:.2f}× the base's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
