"""Index benchmark: cold / warm / incremental indexing, the watcher, and aider's repo map.

Not a test. Run by hand (takes minutes)::

    .venv/bin/python bench/index_bench.py                 # fetches the pinned corpora
    .venv/bin/python bench/index_bench.py three=/path/to/three/package --skip-aider

Corpora default to the ``name=root`` lines printed by ``scripts/fetch-corpora``
(three@0.160.0 and rxjs@7.8.1 package roots, the django 5.0.6 sdist root); ``--languages`` takes
the Go, Rust, Java, C, C++ and Ruby corpora of ``bench/fetch-lang-corpora.sh``. Every index runs in
a fresh subprocess with ``IPUARO_DATA_DIR`` in a temporary folder; peak RSS is the largest
``ru_maxrss`` of that process and its pool processes. The parse-only floor parses the same file
list with ``parse_tree_only`` (no extraction, no store), in one process and in a pool of the same
size. aider runs in its own venv (``AIDER_VENV``, default ``~/.cache/ipuaro-aider-venv``, created
with ``pip install aider-chat==0.86.2``) on a fresh copy of the corpus with an empty tags cache.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from corpora import FETCH_SCRIPT, fetch  # bench/ is on sys.path: this runs as a script

LANG_FETCH_SCRIPT = Path(__file__).resolve().parent / "fetch-lang-corpora.sh"
"""One real corpus per language family read from per-language queries (``--languages``)."""
AIDER_VENV = Path(os.environ.get("AIDER_VENV", Path.home() / ".cache" / "ipuaro-aider-venv"))
DEFAULT_CORPORA = ("three", "rxjs", "django")


# --- child side (one measurement per fresh process) ----------------------------------------------
def _peak_rss_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def _indexer(root: Path) -> Any:
    from ipuaro.config.schema import Config
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.store.factory import open_store

    config = Config()
    return Indexer(root, config, open_store(config, root))


def child_index(root: Path, workers: int | None) -> dict[str, Any]:
    started = time.perf_counter()
    indexer = _indexer(root)
    summary = indexer.index(workers=workers)
    wall = time.perf_counter() - started
    indexer.store.close()
    return {"wall": wall, "rss": _peak_rss_mb(), "summary": summary.to_json()}


def child_files(root: Path) -> dict[str, Any]:
    """The files the indexer parses and their non-blank line count."""
    from ipuaro.config.schema import Config
    from ipuaro.index.parsers import language_for
    from ipuaro.index.scan.reader import count_loc
    from ipuaro.index.scan.scanner import scan

    code: list[str] = []
    loc = 0
    entries = scan(root, Config()).entries
    for entry in entries:
        if entry.kind != "text" or language_for(entry.path) is None:
            continue
        try:
            text = (root / entry.path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "\x00" in text[:8192]:
            continue
        code.append(entry.path)
        loc += count_loc(text)
    return {"files": len(entries), "code": code, "loc": loc}


def _floor_chunk(root: str, paths: list[str]) -> int:
    from ipuaro.index.parsers import parse_tree_only

    for path in paths:
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            parse_tree_only(path, handle.read())
    return len(paths)


def child_floor(root: Path, paths: list[str], workers: int) -> dict[str, Any]:
    """Parse-only time in this fresh process (grammar loading included, as in an index run);
    ``workers`` > 1: the same chunked pool the indexer uses, forked before any grammar loads."""
    started = time.perf_counter()
    if workers == 1:
        _floor_chunk(str(root), paths)
    else:
        chunks = [paths[i : i + 48] for i in range(0, len(paths), 48)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            list(pool.map(_floor_chunk, [str(root)] * len(chunks), chunks))
    return {"wall": time.perf_counter() - started}


def child_changes(root: Path, saves: int) -> dict[str, Any]:
    """On a writable copy that is already indexed: one-file update, then watcher latencies."""
    from ipuaro.index.scan.reader import content_hash
    from ipuaro.index.watcher import IndexWatcher

    indexer = _indexer(root)
    started = time.perf_counter()
    warm = indexer.index()
    warm_wall = time.perf_counter() - started
    store = indexer.store
    target = _pick_target(root, store)
    path = root / target
    original = path.read_bytes()
    path.write_bytes(original + _marker(target, 0))
    started = time.perf_counter()
    update = indexer.update_paths([target])
    update_wall = time.perf_counter() - started

    from ipuaro.store.sqlite import SqliteStore

    # A second connection polls, so polling never waits on the watcher's store lock.
    probe = SqliteStore(store.path, store.project_name)
    watcher = IndexWatcher(indexer)
    watcher.start()
    if not watcher.ready.wait(30):
        raise RuntimeError("watcher did not start")
    latencies: list[float] = []
    for number in range(1, saves + 1):
        content = original + _marker(target, number)
        expected = content_hash(content)
        saved = time.perf_counter()
        path.write_bytes(content)
        deadline = saved + 30
        while time.perf_counter() < deadline:
            record = probe.get_file(target)
            if record is not None and record.hash == expected:
                break
            time.sleep(0.005)
        latencies.append(time.perf_counter() - saved)
        time.sleep(0.2)
    watcher.stop()
    probe.close()
    store.close()
    return {
        "warm_in_process": warm_wall,
        "warm_unchanged": warm.unchanged,
        "update": update_wall,
        "update_parsed": update.parsed,
        "target": target,
        "latencies": latencies,
    }


def _pick_target(root: Path, store: Any) -> str:
    """A typical code file: the median-sized one among the most depended-on files."""
    metas = store.get_metas()
    code = [
        (len(meta.dependents), path)
        for path, meta in metas.items()
        if meta.file_type not in ("text", "binary", "symlink", "json", "yaml")
    ]
    code.sort(reverse=True)
    top: list[str] = [path for _, path in code[: max(10, len(code) // 20)]]
    top.sort(key=lambda p: (root / p).stat().st_size)
    return top[len(top) // 2]


def _marker(path: str, number: int) -> bytes:
    comment = "#" if path.endswith((".py", ".rb", ".sh")) else "//"
    return f"\n{comment} bench save {number}\n".encode()


# --- aider ---------------------------------------------------------------------------------------
AIDER_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    root, listing = sys.argv[1], sys.argv[2]
    files = [line for line in open(listing, encoding="utf-8").read().splitlines() if line]
    started = time.perf_counter()
    from aider.repomap import RepoMap
    from aider.io import InputOutput
    from aider.models import Model
    imported = time.perf_counter()
    rm = RepoMap(root=root, io=InputOutput(yes=True), main_model=Model("gpt-4o-mini"),
                 map_tokens=1024)
    repo_map = rm.get_repo_map([], files)
    done = time.perf_counter()
    import resource
    print(json.dumps({"wall": done - started, "map": done - imported,
                      "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "chars": len(repo_map or "")}))
    """
)


def run_aider(root: Path, paths: list[str]) -> dict[str, Any]:
    python = AIDER_VENV / "bin" / "python"
    if not python.exists():
        return {"error": f"no aider venv at {AIDER_VENV} (create it, see the module docstring)"}
    with tempfile.TemporaryDirectory(prefix="ipuaro-aider-") as scratch:
        copy = Path(scratch) / "corpus"
        shutil.copytree(root, copy, symlinks=True)
        shutil.rmtree(copy / ".aider.tags.cache.v4", ignore_errors=True)
        listing = Path(scratch) / "files.txt"
        listing.write_text("\n".join(str(copy / p) for p in paths), encoding="utf-8")
        script = Path(scratch) / "aider_map.py"
        script.write_text(AIDER_SCRIPT, encoding="utf-8")
        env = dict(os.environ, LITELLM_LOCAL_MODEL_COST_MAP="True", AIDER_ANALYTICS="false")
        done = subprocess.run(
            [str(python), str(script), str(copy), str(listing)],
            capture_output=True,
            text=True,
            env=env,
            cwd=scratch,
            check=False,
        )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["aider failed"]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# --- parent side ---------------------------------------------------------------------------------
def spawn(mode: str, *args: str, data_dir: Path, script: str = __file__) -> dict[str, Any]:
    """Run ``script --child mode args`` in a fresh process with its own data and config
    folders (no other ``IPUARO_*`` variable); its last stdout line is the JSON result."""
    env = dict(os.environ, IPUARO_DATA_DIR=str(data_dir))
    for name in list(env):
        if name.startswith("IPUARO_") and name != "IPUARO_DATA_DIR":
            del env[name]
    env["IPUARO_CONFIG_DIR"] = str(data_dir / "config")
    done = subprocess.run(
        [sys.executable, script, "--child", mode, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"child {mode} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def fetch_corpora(script: Path = FETCH_SCRIPT) -> dict[str, Path]:
    return fetch(script)


def measure(name: str, root: Path, args: argparse.Namespace) -> dict[str, Any]:
    workers = str(args.workers)
    row: dict[str, Any] = {"corpus": name}
    with tempfile.TemporaryDirectory(prefix=f"ipuaro-bench-{name}-") as scratch_text:
        scratch = Path(scratch_text)
        listing = spawn("files", str(root), data_dir=scratch / "d0")
        row.update(files=listing["files"], code=len(listing["code"]), loc=listing["loc"])
        paths_file = scratch / "paths.json"
        paths_file.write_text(json.dumps(listing["code"]), encoding="utf-8")
        print(f"[{name}] {row['files']} files, {row['code']} parsed, {row['loc']} LOC", flush=True)

        cold = spawn("index", str(root), workers, data_dir=scratch / "d1")
        warm = spawn("index", str(root), workers, data_dir=scratch / "d1")
        row.update(
            cold=cold["wall"],
            rss=cold["rss"],
            summary=cold["summary"],
            warm=warm["wall"],
            warm_parsed=warm["summary"]["parsed"],
        )
        print(f"[{name}] cold {cold['wall']:.2f}s warm {warm['wall']:.2f}s", flush=True)

        single = spawn("floor", str(root), str(paths_file), "1", data_dir=scratch / "d2")
        pooled = spawn("floor", str(root), str(paths_file), workers, data_dir=scratch / "d2")
        row.update(floor_single=single["wall"], floor_pool=pooled["wall"])

        copy = scratch / "copy"
        shutil.copytree(root, copy, symlinks=True)
        spawn("index", str(copy), workers, data_dir=scratch / "d3")
        changes = spawn("changes", str(copy), str(args.saves), data_dir=scratch / "d3")
        row.update(changes)
        print(f"[{name}] update {changes['update'] * 1000:.0f} ms", flush=True)

    if not args.skip_aider:
        row["aider"] = run_aider(root, listing["code"])
        print(f"[{name}] aider {row['aider']}", flush=True)
    return row


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def table(rows: list[dict[str, Any]], workers: int) -> str:
    header = (
        "| corpus | files (parsed) | LOC | cold index | files/s | peak RSS | parse floor 1 proc / "
        f"{workers} proc | cold ÷ floor (1 proc / {workers} proc) | warm (nothing changed) | "
        "1-file update | watcher save→synced p50 / p95 | aider repo map (cold) | "
        "aider ÷ ipuaro |"
    )
    lines = [header, "|" + " --- |" * 13]
    for row in rows:
        aider = row.get("aider") or {}
        if "wall" in aider:
            aider_cell = f"{aider['wall']:.1f} s"
            ratio = f"{aider['wall'] / row['cold']:.1f}×"
        else:
            aider_cell = "skipped" if not aider else f"failed: {aider.get('error')}"
            ratio = "–"
        latencies = row["latencies"]
        lines.append(
            f"| {row['corpus']} | {row['files']:,} ({row['code']:,}) | {row['loc']:,} "
            f"| {row['cold']:.2f} s | {row['code'] / row['cold']:,.0f} | {row['rss']:.0f} MB "
            f"| {row['floor_single']:.2f} s / {row['floor_pool']:.2f} s "
            f"| {row['cold'] / row['floor_single']:.1f}× / {row['cold'] / row['floor_pool']:.1f}× "
            f"| {row['warm']:.2f} s | {row['update'] * 1000:.0f} ms "
            f"| {statistics.median(latencies) * 1000:.0f} / "
            f"{_quantile(latencies, 0.95) * 1000:.0f} ms | {aider_cell} | {ratio} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "corpora", nargs="*", help="name=root pairs (default: scripts/fetch-corpora)"
    )
    parser.add_argument("--skip-aider", action="store_true", help="do not run aider's repo map")
    parser.add_argument(
        "--languages",
        action="store_true",
        help="the Go/Rust/Java/C/C++/Ruby corpora of fetch-lang-corpora.sh instead",
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--saves", type=int, default=20, help="watcher saves to time")
    parser.add_argument("--json", dest="json_out", type=Path, help="also write rows as JSON")
    args = parser.parse_args(argv)
    if args.corpora:
        roots = {n: Path(r) for n, _, r in (c.partition("=") for c in args.corpora)}
    elif args.languages:
        roots = fetch_corpora(LANG_FETCH_SCRIPT)
    else:
        fetched = fetch_corpora()
        roots = {name: fetched[name] for name in DEFAULT_CORPORA if name in fetched}
    rows = [measure(name, root, args) for name, root in roots.items()]
    print()
    print(table(rows, args.workers))
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=2), encoding="utf-8")


def child_main(mode: str, args: list[str]) -> None:
    root = Path(args[0])
    if mode == "files":
        result = child_files(root)
    elif mode == "index":
        result = child_index(root, int(args[1]) if len(args) > 1 else None)
    elif mode == "floor":
        paths = json.loads(Path(args[1]).read_text(encoding="utf-8"))
        result = child_floor(root, paths, int(args[2]))
    elif mode == "changes":
        result = child_changes(root, int(args[1]))
    else:
        raise SystemExit(f"unknown child mode {mode!r}")
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child_main(sys.argv[2], sys.argv[3:])
    else:
        main()
