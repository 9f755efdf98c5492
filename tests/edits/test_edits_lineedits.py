"""Line edits from the planner (bottom-up, overlaps refused) and moving a range to a newer file."""

from __future__ import annotations

import pytest

from ipuaro.edits.lineedits import LineEditError, apply_line_edits, rebase_range
from ipuaro.tools.base import LineEdit

LINES = ["a", "b", "c", "d", "e"]


def test_edits_apply_bottom_up_so_numbers_stay_valid() -> None:
    out = apply_line_edits(
        LINES, [LineEdit(1, 1, "A1\nA2"), LineEdit(4, 5, "DE"), LineEdit(3, 2, "inserted")]
    )
    assert out == ["A1", "A2", "b", "inserted", "c", "DE"]


def test_overlapping_edits_are_refused() -> None:
    with pytest.raises(LineEditError, match="overlap"):
        apply_line_edits(LINES, [LineEdit(1, 3, "x"), LineEdit(3, 4, "y")])


def test_out_of_range_is_refused() -> None:
    with pytest.raises(LineEditError, match="past the end"):
        apply_line_edits(LINES, [LineEdit(2, 9, "x")])
    with pytest.raises(LineEditError, match="before line 1"):
        apply_line_edits(LINES, [LineEdit(0, 1, "x")])


def test_delete_with_empty_replacement_and_append() -> None:
    assert apply_line_edits(LINES, [LineEdit(2, 3, "")]) == ["a", "d", "e"]
    assert apply_line_edits(LINES, [LineEdit(6, 5, "f")]) == [*LINES, "f"]


def test_rebase_moves_a_range_when_lines_were_added_above() -> None:
    current = ["new1", "new2", *LINES]
    assert rebase_range(LINES, current, 3, 4) == (5, 6)


def test_rebase_refuses_when_the_range_itself_changed() -> None:
    current = ["a", "b", "C!", "d", "e"]
    assert rebase_range(LINES, current, 3, 4) is None


def test_rebase_insertion_point() -> None:
    current = ["zero", *LINES]
    assert rebase_range(LINES, current, 3, 2) == (4, 3)
