"""Helpers shared by the parser tests: fixture files and span markers."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from ipuaro.index.parsers import ParsedFile, parse_source

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "parsers"

# `// >Name` opens a definition on its line, `// <Name` closes it; markers sit at the end of the
# line, after the last `//`, `#`, `--`, `;`, `%`, `!` or `(*` that starts them (a closing `*)`
# may follow).
_MARKERS = re.compile(r"(?://|#|--|;|%|!|\(\*)((?:\s+[<>]\S+)+)\s*(?:\*\))?\s*$")


def read_fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def parse_fixture(name: str) -> ParsedFile:
    """Parse a fixture under its real extension: Python fixtures are stored as ``.py.txt`` so
    the repository's linters and type checker leave their deliberately loose code alone."""
    return parse_source(f"src/{name.removesuffix('.txt')}", read_fixture(name))


def marked_spans(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) for every marker pair, read from the text alone."""
    open_lines: dict[str, list[int]] = defaultdict(list)
    spans: list[tuple[str, int, int]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _MARKERS.search(line)
        if match is None:
            continue
        for token in match.group(1).split():
            if token.startswith(">"):
                open_lines[token[1:]].append(number)
            else:
                spans.append((token[1:], open_lines[token[1:]].pop(0), number))
    leftover = {name: lines for name, lines in open_lines.items() if lines}
    assert not leftover, f"unclosed span markers: {leftover}"
    return sorted(spans)


def parsed_spans(parsed: ParsedFile) -> list[tuple[str, int, int]]:
    """Functions, classes, methods (``Class.method``) and namespaces with their spans."""
    ast = parsed.ast
    spans = [(item.name, item.line_start, item.line_end) for item in ast.functions]
    for cls in ast.classes:
        spans.append((cls.name, cls.line_start, cls.line_end))
        spans.extend(
            (f"{cls.name}.{method.name}", method.line_start, method.line_end)
            for method in cls.methods
        )
    spans.extend(
        (item.name, item.line_start, item.line_end)
        for item in ast.types
        if item.kind == "namespace"
    )
    return sorted(spans)
