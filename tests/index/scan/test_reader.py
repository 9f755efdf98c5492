"""Line counting and line splitting agree on what a line is, whatever the line endings."""

from __future__ import annotations

import pytest

from ipuaro.index.scan.reader import _EOL, count_loc, split_lines


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("\n", 0),
        ("a", 1),
        ("a\n\n  \nb\n", 2),
        ("a\r\n \t\r\nb\r\n", 2),  # CRLF: the CR of a blank line is whitespace, not code
        ("a\r\rb\r", 2),  # lone CRs end lines too
        ("a\rb\nc\r\n", 3),  # mixed endings
        ("x\r\n\r\ny\rz", 3),  # CRLF and a lone CR in one file
        ("\u3000\n\x0b\n\x0c\nword\n", 1),  # unicode and control whitespace is blank
        ("a\u2028b\n", 1),  # U+2028 is not a line end for editors (split_lines agrees)
    ],
)
def test_count_loc_counts_non_blank_lines(text: str, expected: int) -> None:
    assert count_loc(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "a\nb", "a\r\nb\r\n\r\n", "a\rb\rc", "a\r\n\rb\n", "  \n\t\n x \r\n", "é\n\n ü\r"],
)
def test_count_loc_matches_the_lines_split_lines_gives(text: str) -> None:
    lines, _, _ = split_lines(text)
    assert count_loc(text) == sum(1 for line in lines if line.strip())
    assert count_loc(text) == sum(1 for line in _EOL.split(text) if line.strip())
