"""Parse errors on TypeScript libraries: tree-sitter's grammar alone, ipuaro, and the TypeScript
compiler as the judge of syntax (issue 15).

Not a test. Run by hand::

    .venv/bin/python bench/ts_parse_bench.py      # fetches the corpora with fetch-ts-corpora.sh

For each corpus, every TypeScript file the indexer would parse (default ignore rules) is parsed
three ways in one run: the bare grammar (what ipuaro did before the masking in
``ipuaro.index.parsers._ts_syntax``), ``parse_source`` (``parse_error``), and ``typescript``'s
``createSourceFile`` (files with syntax diagnostics). Definitions (functions, classes, symbols)
found by ``parse_source`` are counted with and without the masking: the difference is what error
recovery used to lose.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FETCH = HERE / "fetch-ts-corpora.sh"
JUDGE = HERE / "ts_syntax_judge.cjs"
CORPORA = ("effect", "query-core", "type-fest", "zod")


def fetch() -> dict[str, Path]:
    done = subprocess.run(["bash", str(FETCH)], capture_output=True, text=True, check=True)
    return {n: Path(r) for n, _, r in (line.partition("=") for line in done.stdout.split())}


def typescript_files(root: Path) -> list[str]:
    from ipuaro.config.schema import Config
    from ipuaro.index.parsers import language_for
    from ipuaro.index.scan.scanner import scan

    return sorted(
        entry.path
        for entry in scan(root, Config()).entries
        if entry.kind == "text" and language_for(entry.path) in ("typescript", "tsx")
    )


def judge(typescript: Path, paths: list[Path]) -> dict[str, int]:
    done = subprocess.run(
        ["node", str(JUDGE), str(typescript)],
        input=json.dumps([str(path) for path in paths]),
        capture_output=True,
        text=True,
        check=True,
    )
    counts: dict[str, int] = json.loads(done.stdout)
    return counts


def measure(name: str, root: Path, typescript: Path) -> dict[str, object]:
    from ipuaro.index.parsers import _ts_syntax, parse_source

    files = typescript_files(root)
    verdicts = judge(typescript, [root / path for path in files])
    masked = _ts_syntax.parse
    row: dict[str, object] = {"corpus": name, "files": len(files)}
    grammar_errors = ipuaro_errors = judge_errors = accepted_but_error = 0
    defs_before = defs_after = 0
    for path in files:
        text = (root / path).read_text(encoding="utf-8")
        _ts_syntax.parse = lambda parser, data: parser.parse(data)
        bare = parse_source(path, text)
        _ts_syntax.parse = masked
        parsed = parse_source(path, text)
        rejected = verdicts[str(root / path)] > 0
        grammar_errors += bare.ast.parse_error
        ipuaro_errors += parsed.ast.parse_error
        judge_errors += rejected
        accepted_but_error += parsed.ast.parse_error and not rejected
        defs_before += len(bare.ast.functions) + len(bare.ast.classes) + len(bare.indexes.symbols)
        defs_after += len(parsed.ast.functions) + len(parsed.ast.classes)
        defs_after += len(parsed.indexes.symbols)
    row.update(
        grammar=grammar_errors,
        ipuaro=ipuaro_errors,
        judge=judge_errors,
        accepted_but_error=accepted_but_error,
        defs_before=defs_before,
        defs_after=defs_after,
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="*", help="name=root pairs (default: the fetched ones)")
    args = parser.parse_args()
    fetched = fetch()
    roots = (
        {n: Path(r) for n, _, r in (c.partition("=") for c in args.corpora)}
        if args.corpora
        else {name: fetched[name] for name in CORPORA}
    )
    print(
        "| corpus | TS files | parse errors: grammar alone (before) | ipuaro (after) | "
        "rejected by tsc | ipuaro errors tsc accepts | definitions before → after |"
    )
    print("|" + " --- |" * 7)
    for name, root in roots.items():
        row = measure(name, root, fetched["typescript"])
        print(
            f"| {name} | {row['files']} | {row['grammar']} | {row['ipuaro']} | {row['judge']} "
            f"| {row['accepted_but_error']} | {row['defs_before']:,} → {row['defs_after']:,} |",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
