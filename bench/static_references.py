"""Go, Rust and Java references against a hand-made truth (issue 27: no compiler is installed
to judge them: ``go``, ``cargo`` and ``javac`` are absent).

Not a test. Run by hand::

    .venv/bin/python bench/static_references.py                  # the table
    .venv/bin/python bench/static_references.py --show go Run    # every line, for review

The corpora are ``bench/fetch-lang-corpora.sh``'s (cobra 1.6.1, regex-syntax 0.6.27, OpenJDK
17 ``java.util``). ``bench/static_references_truth.json`` holds, per corpus, a few names and
the lines (``path:line``) that reference one of their definitions, written by reading every
line where an identifier so named occurs (the rules used are at the top of that file). Each
name is looked up as ``find_references`` listed it before the judge (every identifier with
the name), after it (all kept) and its ``exact`` part. Unit: lines, as in
``reference_precision.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from corpora import fetch as fetch_script
from reference_precision import index, listed

HERE = Path(__file__).resolve().parent
TRUTH = HERE / "static_references_truth.json"


def measure(name: str, root: Path, truth: dict[str, list[str]]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        store = index(root, Path(scratch))
        totals = {key: [0, 0, 0] for key in ("before", "after", "exact")}
        for symbol, lines in truth.items():
            expected = {(p, int(n)) for p, _, n in (line.rpartition(":") for line in lines)}
            before, after, exact, _ = listed(store, symbol)
            for key, places in (("before", before), ("after", after), ("exact", exact)):
                totals[key][0] += len(places & expected)
                totals[key][1] += len(places)
                totals[key][2] += len(expected)
        store.close()
    row: dict[str, Any] = {"corpus": name, "symbols": len(truth)}
    for key, (hit, listed_count, true_count) in totals.items():
        row[key] = {
            "precision": hit / listed_count if listed_count else 1.0,
            "recall": hit / true_count if true_count else 1.0,
        }
    return row


def show(root: Path, symbol: str) -> None:
    """Every line with an identifier ``symbol``, marked as the judge leaves it."""
    with tempfile.TemporaryDirectory() as scratch:
        store = index(root, Path(scratch))
        before, after, exact, _ = listed(store, symbol)
        for path, line in sorted(before):
            mark = "exact" if (path, line) in exact else "kept" if (path, line) in after else "-"
            text = (root / path).read_text(encoding="utf-8").splitlines()[line - 1].strip()
            print(f"{mark:6} {path}:{line}  {text[:110]}")
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", nargs=2, metavar=("CORPUS", "NAME"))
    args = parser.parse_args(argv)
    roots = fetch_script(HERE / "fetch-lang-corpora.sh")
    if args.show:
        show(roots[args.show[0]], args.show[1])
        return 0
    truth = json.loads(TRUTH.read_text(encoding="utf-8"))
    print("| corpus | names | before: precision / recall | after (all listed) | after (exact) |")
    print("|" + " --- |" * 5)
    for name, symbols in truth["corpora"].items():
        row = measure(name, roots[name], symbols)
        cells = " | ".join(
            f"{row[k]['precision']:.3f} / {row[k]['recall']:.3f}"
            for k in ("before", "after", "exact")
        )
        print(f"| {name} | {row['symbols']} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
