"""Line-span accuracy: every function, class, method and namespace against hand-placed markers.

The markers (``// >Name`` … ``// <Name``) are read from the fixture text alone, so the expected
spans do not come from tree-sitter. The product target is >99% exact spans on TypeScript.
"""

from __future__ import annotations

import pytest

from .support import marked_spans, parse_fixture, parsed_spans, read_fixture

SPAN_FIXTURES = ["spans.ts", "components.tsx", "legacy.cjs", "models.py.txt"]


def _hit_rate(name: str) -> tuple[int, int, set[tuple[str, int, int]]]:
    expected = marked_spans(read_fixture(name))
    found = parsed_spans(parse_fixture(name))
    hits = sum(1 for span in expected if span in found)
    return hits, len(expected), set(found) - set(expected)


@pytest.mark.parametrize("name", SPAN_FIXTURES)
def test_every_definition_has_its_exact_span(name: str) -> None:
    expected = marked_spans(read_fixture(name))
    found = parsed_spans(parse_fixture(name))
    assert found == expected


def test_typescript_span_accuracy_meets_the_target() -> None:
    hits, total, extra = _hit_rate("spans.ts")
    assert total >= 60, "the accuracy fixture must hold at least 60 definitions"
    assert hits / total > 0.99, f"{hits}/{total} exact spans"
    assert not extra, f"definitions the fixture does not mark: {sorted(extra)}"


def test_all_fixtures_together() -> None:
    results = [_hit_rate(name) for name in SPAN_FIXTURES]
    hits = sum(result[0] for result in results)
    total = sum(result[1] for result in results)
    assert total >= 100
    assert hits == total, f"{hits}/{total} exact spans"


def test_marker_reader_reads_one_line_and_repeated_names() -> None:
    text = "\n".join(
        [
            "function a() {} // >a <a",
            "get x() { // >C.x",
            "} // <C.x",
            "set x(v) { // >C.x",
            "} // <C.x",
            'const url = "http://x"; // not a marker',
        ]
    )
    assert marked_spans(text) == [("C.x", 2, 3), ("C.x", 4, 5), ("a", 1, 1)]
