"""Huge files: index time and peak RSS with the parse limit (project.maxParseBytes) against the
same index with no limit, in the same command; and how long a get_lines answer is.

Fixtures are generated here into a temporary folder (never committed): a 12 MB Python file of
generated classes and functions, a 10 MB JavaScript bundle on one line, a 100 MB log, five 31 MB
logs (just under project.maxFileBytes) and a Python file and a one-line bundle of 0.99 MB each
(just under project.maxParseBytes). "Before" is the same index with both limits out of reach.
Each index runs in a fresh process (``IPUARO_DATA_DIR`` in the temporary folder, 2 parse
processes); peak RSS is the largest ``ru_maxrss`` of that process and its pool processes.

    .venv/bin/python bench/hugefile_bench.py            # baseline (no limit) and limit
    .venv/bin/python bench/hugefile_bench.py --skip-baseline
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

PY_MB = 12
JS_MB = 10
LOG_MB = 100
NO_LIMIT = 1 << 40

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
started = time.perf_counter()
from ipuaro.config.loader import load_config
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.factory import open_store
root = Path(sys.argv[1])
config = load_config(root)
store = open_store(config, root)
summary = Indexer(root, config, store).index(workers=2)
seconds = time.perf_counter() - started
store.close()
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": seconds, "rss_mb": max(own, children) / 1024,
                  "parsed": summary.parsed, "files": summary.files,
                  "tooLarge": summary.too_large_to_parse,
                  "metadataOnly": summary.too_large_to_store}))
"""


def python_block(i: int) -> str:
    return (
        f"class Model{i}(Base):\n"
        f'    """Generated model {i}."""\n\n'
        f"    def method_{i}(self, value: int = {i}) -> int:\n"
        f"        result = helper_{i}(value) + self.offset\n"
        f"        return result * {i % 7 + 1}\n\n\n"
        f"def helper_{i}(x):\n"
        f"    return sum(y for y in range(x % 5)) + {i}\n\n\n"
    )


def js_piece(i: int) -> str:
    return f"function f{i}(a,b){{return a.map(function(c){{return c+b+{i}}})}}var v{i}=f{i}([1],2);"


def generate(root: Path) -> dict[str, int]:
    root.mkdir(parents=True)
    (root / ".git").mkdir()  # a project root
    (root / "small.py").write_text("def small():\n    return 1\n")
    sizes = {}
    with (root / "generated.py").open("w") as out:
        written, i = 0, 0
        while written < PY_MB * 1_000_000:
            written += out.write(python_block(i))
            i += 1
    with (root / "bundle.js").open("w") as out:
        written, i = 0, 0
        while written < JS_MB * 1_000_000:
            written += out.write(js_piece(i))
            i += 1
        out.write("\n")
    with (root / "app.log").open("w") as out:
        written, i = 0, 0
        while written < LOG_MB * 1_000_000:
            written += out.write(f"2026-11-24 12:00:{i % 60:02d} INFO request {i} served in "
                                 f"{i % 997} ms path=/api/v1/items/{i}\n")  # fmt: skip
            i += 1
    with (root / "near_limit.py").open("w") as out:
        i = 0
        while out.tell() < 990_000:
            out.write(python_block(i))
            i += 1
    with (root / "near_limit.js").open("w") as out:
        i = 0
        while out.tell() < 990_000:
            out.write(js_piece(i))
            i += 1
        out.write("\n")
    logs = root / "logs"
    logs.mkdir()
    chunk = "".join(f"2026-11-24 12:00:00 INFO request {i} served\n" for i in range(1000))
    for n in range(5):
        with (logs / f"part{n}.log").open("w") as out:
            while out.tell() < 31_000_000:
                out.write(chunk)
    for name in ("generated.py", "bundle.js", "app.log"):
        sizes[name] = (root / name).stat().st_size
    return sizes


def index(root: Path, data: Path, limit: int) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(
        {
            "IPUARO_DATA_DIR": str(data),
            "IPUARO_CONFIG_DIR": str(data / "config"),
            "IPUARO_PROJECT__MAX_PARSE_BYTES": str(limit),
            "IPUARO_PROJECT__MAX_FILE_BYTES": str(NO_LIMIT if limit == NO_LIMIT else 32_000_000),
        }
    )
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root)], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"index failed (limit {limit}): {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def get_lines_chars(root: Path, data: Path) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update({"IPUARO_DATA_DIR": str(data), "IPUARO_CONFIG_DIR": str(data / "config")})
    args = json.dumps({"path": "bundle.js", "start": 1, "end": 1})
    done = subprocess.run(
        [sys.executable, "-m", "ipuaro", "tool", "get_lines", "--project", str(root),
         "--args", args],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"get_lines failed: {done.stderr[-2000:]}")
    return len(json.loads(done.stdout)["data"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--skip-baseline", action="store_true", help="only the limited index")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ipuaro-huge-") as tmp:
        root = Path(tmp) / "huge"
        sizes = generate(root)
        print(f"fixtures: generated.py {sizes['generated.py']:,} B, bundle.js "
              f"{sizes['bundle.js']:,} B (one line), app.log {sizes['app.log']:,} B")  # fmt: skip
        runs = {}
        if not args.skip_baseline:
            runs["no limit (before)"] = index(root, Path(tmp) / "data-before", NO_LIMIT)
        runs["limits (after)"] = index(root, Path(tmp) / "data-after", 1_000_000)
        print(f"{'run':<22} {'index s':>9} {'peak RSS MB':>12} {'parsed':>7}  not parsed; "
              "metadata only")  # fmt: skip
        for name, run in runs.items():
            print(f"{name:<22} {run['seconds']:>9.1f} {run['rss_mb']:>12.0f} {run['parsed']:>7}  "
                  f"{', '.join(run['tooLarge']) or '-'}; "
                  f"{', '.join(run['metadataOnly']) or '-'}")  # fmt: skip
        if len(runs) == 2:
            before, after = runs.values()
            print(f"ratio before/after: time {before['seconds'] / after['seconds']:.1f}×, "
                  f"peak RSS {before['rss_mb'] / after['rss_mb']:.1f}×")  # fmt: skip
        chars = get_lines_chars(root, Path(tmp) / "data-after")
        print(f"get_lines bundle.js line 1: {chars:,} characters returned "
              f"(the line has {sizes['bundle.js'] - 1:,}; "
              f"{(sizes['bundle.js'] - 1) / chars:,.0f}× less)")  # fmt: skip


if __name__ == "__main__":
    main()
