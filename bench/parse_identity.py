"""``parse_source`` of this checkout against a base commit's, file by file: no output may change.

Not a test. Run by hand after touching ``ipuaro/index/parsers`` for speed::

    .venv/bin/python bench/parse_identity.py                   # base: merge-base with main
    .venv/bin/python bench/parse_identity.py --base e5c635b django requests

The base commit's ``src`` is unpacked with ``git archive`` into a temporary folder; each side runs
in its own subprocess (``PYTHONPATH`` set to its ``src``) over every file the indexer would parse
in each corpus (``scan`` with the default config, a parser for the path, UTF-8 text) and writes,
per file, ``ast.to_json()``, the AST with only the fields set (``exclude_unset``: models built
without validation must set the same fields), ``indexes.symbols``, ``indexes.calls`` (JSON and
fields set), ``indexes.reference_table`` (order of names and positions included) and
``nesting``, and whether each model equals itself validated from its JSON (a model built
without validation must hold exactly what validation would store: ``list`` not ``tuple``, ``bool``
not ``int``). Any difference is printed (first differing characters of the first files) and the
exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from corpora import corpus

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_CORPORA = ("django", "requests", "attrs")
SHOWN = 5

WORKER = r"""
import json, sys, time
from pathlib import Path
import ipuaro
from ipuaro.index.parsers import parse_source

root, paths_file, out_file = sys.argv[1:4]
paths = json.loads(Path(paths_file).read_text())
cpu = 0.0
with open(out_file, "w", encoding="utf-8") as out:
    out.write(json.dumps({"module": ipuaro.__file__}) + "\n")
    for path in paths:
        try:
            text = (Path(root) / path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        started = time.process_time()
        try:
            parsed = parse_source(path, text)
        except Exception as exc:  # a crash is a difference too
            out.write(json.dumps({"path": path, "error": repr(exc)}) + "\n")
            continue
        cpu += time.process_time() - started
        indexes = parsed.indexes
        record = {
            "path": path,
            "ast": parsed.ast.to_json(),
            "ast_set": parsed.ast.model_dump_json(exclude_unset=True),
            "symbols": [s.to_json() for s in indexes.symbols],
            "symbols_set": [sorted(s.model_fields_set) for s in indexes.symbols],
            "calls": [c.to_json() for c in indexes.calls],
            "calls_set": [sorted(c.model_fields_set) for c in indexes.calls],
            "reference_table": list(indexes.reference_table.items()),
            "references": indexes.references and [r.to_json() for r in indexes.references],
            "nesting": parsed.nesting,
            "valid": (
                type(parsed.ast).model_validate_json(parsed.ast.to_json()) == parsed.ast
                and all(type(s).model_validate_json(s.to_json()) == s for s in indexes.symbols)
                and all(type(c).model_validate_json(c.to_json()) == c for c in indexes.calls)
            ),
        }
        out.write(json.dumps(record) + "\n")
    out.write(json.dumps({"cpu": cpu}) + "\n")
"""


def base_commit() -> str:
    done = subprocess.run(
        ["git", "merge-base", "HEAD", "main"], cwd=REPO, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def unpack_src(commit: str, into: Path) -> Path:
    into.mkdir(parents=True)
    archive = into / "src.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", commit, "src"], cwd=REPO, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def parsed_paths(root: Path) -> list[str]:
    from ipuaro.config.schema import Config
    from ipuaro.index.parsers import language_for
    from ipuaro.index.scan.scanner import scan

    return sorted(
        entry.path
        for entry in scan(root, Config()).entries
        if entry.kind == "text" and language_for(entry.path) is not None
    )


def run_side(src: Path, root: Path, paths_file: Path, out: Path) -> tuple[dict[str, dict], float]:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONHASHSEED": "0"}
    subprocess.run(
        [sys.executable, "-c", WORKER, str(root), str(paths_file), str(out)], env=env, check=True
    )
    records: dict[str, dict] = {}
    cpu = 0.0
    with out.open(encoding="utf-8") as lines:
        module = json.loads(next(lines))["module"]
        if not module.startswith(str(src)):
            raise SystemExit(f"the worker imported {module}, not the code under {src}")
        for line in lines:
            record = json.loads(line)
            if "cpu" in record:
                cpu = record["cpu"]
            else:
                records[record.pop("path")] = record
    return records, cpu


def first_difference(old: object, new: object) -> str:
    old_text, new_text = json.dumps(old), json.dumps(new)
    at = next(
        (i for i, (a, b) in enumerate(zip(old_text, new_text, strict=False)) if a != b),
        min(len(old_text), len(new_text)),
    )
    start, end = max(0, at - 60), at + 60
    return f"at char {at}: old …{old_text[start:end]}… new …{new_text[start:end]}…"


def compare(name: str, old: dict[str, dict], new: dict[str, dict]) -> int:
    differences = 0
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path), new.get(path)
        if before is None or after is None:
            differences += 1
            if differences <= SHOWN:
                print(f"  {name}/{path}: parsed by {'new' if before is None else 'old'} only")
            continue
        for key in before.keys() | after.keys():
            if before.get(key) != after.get(key):
                differences += 1
                if differences <= SHOWN:
                    where = first_difference(before.get(key), after.get(key))
                    print(f"  {name}/{path} {key}: {where}")
    return differences


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "corpora",
        nargs="*",
        default=list(DEFAULT_CORPORA),
        help="corpus names (bench/corpora.py) or name=folder",
    )
    parser.add_argument("--base", help="commit to compare with (default: merge-base with main)")
    args = parser.parse_args()
    commit = args.base or base_commit()
    total = 0
    with tempfile.TemporaryDirectory(prefix="parse-identity-") as folder:
        work = Path(folder)
        old_src = unpack_src(commit, work / "old")
        new_src = REPO / "src"
        print(f"base {commit[:12]} ({old_src}) against {new_src}")
        for name in args.corpora:
            name, _, path = name.partition("=")
            root = Path(path) if path else corpus(name)
            paths = parsed_paths(root)
            paths_file = work / f"{name}.json"
            paths_file.write_text(json.dumps(paths))
            started = time.perf_counter()
            old, old_cpu = run_side(old_src, root, paths_file, work / f"{name}.old.jsonl")
            new, new_cpu = run_side(new_src, root, paths_file, work / f"{name}.new.jsonl")
            differences = compare(name, old, new)
            invalid = sorted(path for path, record in new.items() if not record.get("valid"))
            if invalid:
                print(f"  {name}: models unlike their validated JSON in {invalid[:SHOWN]}")
            total += differences + len(invalid)
            print(
                f"{name}: {len(old)} files parsed, {differences} differences"
                f" (parse_source CPU old {old_cpu:.2f} s, new {new_cpu:.2f} s;"
                f" {time.perf_counter() - started:.0f} s)"
            )
    print("identical" if total == 0 else f"{total} differences")
    return 0 if total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
