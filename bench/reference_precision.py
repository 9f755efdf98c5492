"""Reference precision and recall of ``find_references`` against a semantic truth (issue 15).

Not a test. Run by hand (the opt-in ``pytest -m corpora`` lane runs it too)::

    .venv/bin/python bench/reference_precision.py                # fetched TS corpora + django
    .venv/bin/python bench/reference_precision.py rxjs=/path/to/rxjs/package --sample 40

Each corpus is indexed into a temporary store; a deterministic sample of its symbol names
(every k-th of the sorted names defined in TypeScript or Python files) is looked up three ways:
every identifier with the name (what ``find_references`` listed before the judge), the judged
list (``exact`` + ``name-only``) and its ``exact`` part. The truth for a name is the union of
the references of each of its definitions (up to 20): the TypeScript language service's
``findReferences`` (``typescript`` from npm, ``bench/ts_references_truth.cjs``) or ``jedi``'s
``get_references`` for Python, joined by the listed lines from which jedi's ``goto`` reaches a
definition (its reference search misses some uses its inference places); jedi sees a ``src/``
layout's package as importable (``jedi_project``). Lines are the unit: precision = listed lines
that are in the truth / listed lines; recall = truth lines listed / truth lines.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from corpora import FETCH_SCRIPT
from corpora import fetch as fetch_script

HERE = Path(__file__).resolve().parent
TS_LANGUAGES = ("typescript", "tsx")
JS_TS_LANGUAGES = (*TS_LANGUAGES, "javascript", "jsx")
"""The language service reads both (``allowJs``): a name defined in a package's compiled
``.js``/``.mjs`` and in its ``.d.ts`` has both declarations, and the truth is their union."""
Place = tuple[str, int]
NOT_BY_NAME = frozenset({"constructor", "__init__"})
"""Names whose references are not written with the name (``new X()``, ``super()``, ``X()``):
the language service counts those, a name lookup cannot."""


def fetch() -> dict[str, Path]:
    """Every pinned corpus this bench knows: the TypeScript ones with the ``typescript`` judge
    (``bench/fetch-ts-corpora.sh``) and the Python ones (``scripts/fetch-corpora``)."""
    roots: dict[str, Path] = {}
    for script in (HERE / "fetch-ts-corpora.sh", FETCH_SCRIPT):
        if script.exists():
            roots.update(fetch_script(script))
    return roots


def index(root: Path, data: Path) -> Any:
    os.environ["IPUARO_DATA_DIR"] = str(data)
    from ipuaro.config.schema import Config
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.store.sqlite import SqliteStore

    store = SqliteStore(data / "index.db", root.name)
    Indexer(root, Config(), store).index()
    return store


_EXPORTED = re.compile(r"^\s*export\b|^\s*(async\s+)?(def|class)\s")


def _exported(root: Path, definition: Any) -> bool:
    """A module-level definition written ``export …`` (TS/JS) or a public module-level
    ``def``/``class`` (Python): the names other files use, as issue 27 samples them."""
    if definition.container is not None:
        return False
    try:
        lines = (root / definition.path).read_text(encoding="utf-8").splitlines()
        text = lines[definition.line - 1]
    except (OSError, IndexError, UnicodeDecodeError):
        return False
    return bool(_EXPORTED.match(text)) and not definition.name.startswith("_")


def sample(
    store: Any, languages: tuple[str, ...], size: int, root: Path | None = None
) -> list[str]:
    """Every k-th of the sorted names; with ``root``, only names some definition exports."""
    from ipuaro.index.parsers import language_for

    names = sorted(
        name
        for name in store.symbol_names()
        if len(name) > 2
        and name not in NOT_BY_NAME
        and any(
            language_for(d.path) in languages and (root is None or _exported(root, d))
            for d in store.find_definitions(name)
        )
    )
    step = max(1, len(names) // size)
    return names[::step][:size]


def _column(root: Path, path: str, line: int, name: str) -> int | None:
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    if not 1 <= line <= len(lines):
        return None
    match = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", lines[line - 1])
    return match.start() + 1 if match else None


def definitions(store: Any, root: Path, name: str, languages: tuple[str, ...]) -> list[Any]:
    from ipuaro.index.parsers import language_for

    found = []
    for d in store.find_definitions(name)[:20]:
        if language_for(d.path) in languages:
            column = _column(root, d.path, d.line, name)
            if column is not None:
                found.append({"file": d.path, "line": d.line, "column": column})
    return found


def ts_truth(root: Path, typescript: Path, store: Any, queries: list[Any]) -> list[set[Place]]:
    from ipuaro.index.parsers import language_for

    files = sorted(p for p in store.file_hashes() if language_for(p) in JS_TS_LANGUAGES)
    flat = [q for group in queries for q in group]
    done = subprocess.run(
        ["node", str(HERE / "ts_references_truth.cjs"), str(typescript)],
        input=json.dumps({"root": str(root), "files": files, "queries": flat}),
        capture_output=True,
        text=True,
        check=True,
    )
    answers = iter(json.loads(done.stdout))
    truths = []
    for group in queries:
        places: set[Place] = set()
        for _query in group:
            places.update((f, line) for f, line in next(answers) or [])
        truths.append(places)
    return truths


def jedi_project(root: Path) -> Any:
    """jedi's view of ``root``: a ``src/`` layout's package is importable from the tests (as
    once installed), else jedi places no use written ``import requests; requests.get(…)``."""
    import jedi

    src = root / "src"
    return jedi.Project(root, added_sys_path=[str(src)] if src.is_dir() else [])


def py_truth(root: Path, queries: list[Any]) -> list[set[Place]]:
    import jedi
    import jedi.inference.references as jedi_references
    import parso.cache

    # jedi stops looking after 30 parsed / 2,000 opened files: a truth must not stop early
    jedi_references._PARSED_FILE_LIMIT = 10**9  # type: ignore[attr-defined]
    jedi_references._OPENED_FILE_LIMIT = 10**9  # type: ignore[attr-defined]
    parso.cache._CACHED_SIZE_TRIGGER = 10**9  # its collection drops trees jedi still reads
    project = jedi_project(root)
    truths = []
    for group in queries:
        places: set[Place] = set()
        for query in group:
            script = jedi.Script(path=str(root / query["file"]), project=project)
            for ref in script.get_references(query["line"], query["column"] - 1):
                if ref.module_path is not None and str(ref.module_path).startswith(str(root)):
                    places.add((Path(ref.module_path).relative_to(root).as_posix(), ref.line))
        truths.append(places)
    return truths


def py_confirmed(root: Path, name: str, query: list[Any], places: set[Place]) -> set[Place]:
    """The ``places`` from which jedi's ``goto`` reaches one of the definitions in ``query``.

    jedi's ``get_references`` misses uses it could place from the other side (a method
    called through ``self`` in a subclass of a class imported from another package): a line
    that jedi resolves to the definition is a reference by jedi's own inference."""
    import jedi

    project = jedi_project(root)
    # by full name: from a use, jedi may land on the django-stubs it bundles, not the source
    targets: set[str] = set()
    for q in query:
        script = jedi.Script(path=str(root / q["file"]), project=project)
        targets.update(d.full_name for d in script.goto(q["line"], q["column"] - 1) if d.full_name)
    confirmed: set[Place] = set()
    for path, line in sorted(places):
        column = _column(root, path, line, name)
        if column is None:
            continue
        try:
            script = jedi.Script(path=str(root / path), project=project)
            found = script.goto(line, column - 1, follow_imports=True)
        except Exception:  # jedi raises on code it cannot read; that line stays unconfirmed
            continue
        if any(d.full_name in targets for d in found):
            confirmed.add((path, line))
    return confirmed


def listed(store: Any, name: str) -> tuple[set[Place], set[Place], set[Place], float]:
    """Lines listed before the judge, after it (all), and its ``exact`` part; judge time."""
    from ipuaro.index.refs.references import judge_references

    refs = store.find_references(name)
    started = time.perf_counter()
    judged = judge_references(store, name, refs)
    elapsed = time.perf_counter() - started
    before = {(r.path, r.line) for r in refs}
    after = {(j.reference.path, j.reference.line) for j in judged}
    exact = {(j.reference.path, j.reference.line) for j in judged if j.confidence == "exact"}
    return before, after, exact, elapsed


def _line(root: Path, place: Place, exact: set[Place]) -> str:
    path, line = place
    try:
        text = (root / path).read_text(encoding="utf-8").splitlines()[line - 1].strip()
    except (OSError, IndexError):
        text = ""
    mark = "exact" if place in exact else "name-only"
    return f"{path}:{line} [{mark}] {text[:120]}"


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def measure(
    name: str,
    root: Path,
    typescript: Path | None,
    size: int,
    misses: list[Any] | None = None,
    exported: bool = False,
) -> dict[str, Any]:
    """One row of the table; ``misses`` (when given) collects every listed line the truth does
    not hold and every truth line not listed, per symbol, to see what the judge gets wrong."""
    with tempfile.TemporaryDirectory() as scratch:
        store = index(root, Path(scratch))
        python = typescript is None
        languages = ("python",) if python else TS_LANGUAGES
        names = sample(store, languages, size, root if exported else None)
        truth_languages = ("python",) if python else JS_TS_LANGUAGES
        queries = [definitions(store, root, n, truth_languages) for n in names]
        kept = [(n, q) for n, q in zip(names, queries, strict=True) if q]
        names, queries = [n for n, _ in kept], [q for _, q in kept]
        if python:
            truths = py_truth(root, queries)
        else:
            assert typescript is not None
            truths = ts_truth(root, typescript, store, queries)
        totals = {key: [0, 0, 0] for key in ("before", "after", "exact")}  # hit, listed, truth
        judge_time = 0.0
        for symbol, query, truth in zip(names, queries, truths, strict=True):
            before, after, exact, elapsed = listed(store, symbol)
            judge_time += elapsed
            if python:
                truth = truth | py_confirmed(root, symbol, query, before - truth)
            for key, places in (("before", before), ("after", after), ("exact", exact)):
                totals[key][0] += len(places & truth)
                totals[key][1] += len(places)
                totals[key][2] += len(truth)
            if misses is not None:
                misses.append(
                    {
                        "corpus": name,
                        "symbol": symbol,
                        "wrong": [_line(root, p, exact) for p in sorted(after - truth)],
                        "missed": [_line(root, p, exact) for p in sorted(truth - after)],
                        "right_by_name": [
                            _line(root, p, exact) for p in sorted((after - exact) & truth)
                        ],
                    }
                )
        store.close()
    row: dict[str, Any] = {"corpus": name, "symbols": len(names), "judge_s": judge_time}
    for key, (hit, count, truth_count) in totals.items():
        row[key] = {
            "precision": _ratio(hit, count),
            "recall": _ratio(hit, truth_count),
            "listed": count,
            "truth": truth_count,
        }
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", help="name=root pairs (default: fetched)")
    parser.add_argument("--sample", type=int, default=60, help="symbol names per corpus")
    parser.add_argument(
        "--exported", action="store_true", help="sample only exported names (issue 27's pick)"
    )
    parser.add_argument("--json", dest="json_out", type=Path, help="also write rows as JSON")
    parser.add_argument(
        "--misses", type=Path, help="write each symbol's wrong and missed lines as JSON"
    )
    args = parser.parse_args(argv)
    fetched = fetch()
    if args.corpora:
        roots = {n: Path(r) for n, _, r in (c.partition("=") for c in args.corpora)}
    else:
        roots = {n: fetched[n] for n in ("effect", "query-core", "rxjs", "django") if n in fetched}
    rows = []
    misses: list[Any] | None = [] if args.misses else None
    print(
        "| corpus | symbols | before: precision / recall | after (all listed) | after (exact) |"
        " judge time |"
    )
    print("|" + " --- |" * 6)
    for name, root in roots.items():
        python = name == "django" or not any(root.rglob("*.ts"))
        typescript = None if python else fetched["typescript"]
        row = measure(name, root, typescript, args.sample, misses, args.exported)
        rows.append(row)
        cells = " | ".join(
            f"{row[k]['precision']:.3f} / {row[k]['recall']:.3f}"
            for k in ("before", "after", "exact")
        )
        print(f"| {name} | {row['symbols']} | {cells} | {row['judge_s']:.2f} s |", flush=True)
    if args.json_out:
        args.json_out.write_text(json.dumps(rows, indent=2), encoding="utf-8")
    if args.misses:
        args.misses.write_text(json.dumps(misses, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
