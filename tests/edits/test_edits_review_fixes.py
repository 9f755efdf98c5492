"""Regressions from review: untouched lines keep their bytes, undo never reverts part of a
group, and an edit_file sketch that rewrites the line after its anchor is not an insertion."""

from __future__ import annotations

import pytest

from ipuaro.edits.engine import EditEngine
from ipuaro.edits.markers import MergeFailed, merge_markers
from ipuaro.edits.planner import planner_prompt
from ipuaro.edits.text import Lines
from ipuaro.edits.undo import UndoManager
from ipuaro.index.scan.reader import split_lines
from ipuaro.tools.base import FileChange
from ipuaro.tools.registry import ToolRegistry

from .conftest import EditEnv

MIXED = b"line1\nx = 'a\rb'\nline3\r\nline4\nline5\n"


# --- 1. line endings of untouched lines ------------------------------------------------------


async def test_replace_changes_only_the_bytes_of_the_replaced_line(env: EditEnv) -> None:
    (env.root / "m.py").write_bytes(MIXED)
    result = await ToolRegistry.default().call(
        "replace", {"path": "m.py", "old": "line5", "new": "LINE5"}, env.ctx, "c1"
    )
    assert result.success, result.error
    assert (env.root / "m.py").read_bytes() == MIXED.replace(b"line5", b"LINE5")
    outcome = UndoManager(env.store, "s1", env.root, env.reindexed).undo()
    assert outcome.done, outcome.message
    assert (env.root / "m.py").read_bytes() == MIXED


async def test_edit_lines_keeps_other_lines_and_numbers_as_get_lines_shows_them(
    env: EditEnv,
) -> None:
    (env.root / "m.py").write_bytes(MIXED)
    # get_lines (the index) numbers the lone \r as a line break: "b'" is line 3.
    assert split_lines(MIXED.decode())[0][2] == "b'"
    result = await ToolRegistry.default().call(
        "edit_lines",
        {"path": "m.py", "start": 3, "end": 3, "content": "c'"},
        env.ctx,
        "c1",
    )
    assert result.success, result.error
    assert (env.root / "m.py").read_bytes() == MIXED.replace(b"b'", b"c'")


def test_with_lines_of_the_same_lines_is_byte_identical() -> None:
    for text in (
        MIXED.decode(),
        "a\rb\r",
        "x\r\n\r\ny",
        "\n\n",
        "é\u2028z\n",
        "no final",
        "a\n\r\n\n\rb",
    ):
        lines = Lines.of(text)
        assert lines.lines == split_lines(text)[0]  # the numbering the model sees
        assert lines.with_lines(list(lines.lines)) == text


def test_new_lines_take_the_dominant_eol_and_rewritten_lines_keep_theirs() -> None:
    text = "a\nb\r\nc\r\nd\r\n"  # first terminator LF, dominant CRLF
    lines = Lines.of(text)
    assert lines.eol == "\r\n"
    assert lines.with_lines(["a", "new", "b", "c", "d"]) == "a\nnew\r\nb\r\nc\r\nd\r\n"
    assert lines.with_lines(["A", "b", "c", "d"]) == "A\nb\r\nc\r\nd\r\n"  # LF kept
    assert lines.with_lines(["a", "c", "d"]) == "a\nc\r\nd\r\n"
    # Duplicate lines (blank lines) stay paired with themselves, not with a look-alike.
    blanks = Lines.of("x\r\n\n\ny\n\r\nz\n")
    assert blanks.with_lines(["x", "", "", "Y", "", "z"]) == "x\r\n\n\nY\n\r\nz\n"


def test_final_newline_state_is_kept_when_lines_move() -> None:
    no_final = Lines.of("first\r\nlast")
    assert no_final.with_lines(["first", "last", "added"]) == "first\r\nlast\r\nadded"
    assert no_final.with_lines(["first"]) == "first"
    final = Lines.of("a\rb\r")
    assert final.with_lines(["a", "b", "c"]) == "a\rb\rc\r"


def test_planner_prompt_numbers_lines_as_the_edits_apply_them() -> None:
    # str.splitlines would split at the form feed and shift every later number by one.
    prompt = planner_prompt("a\fb\nc\n", "change c", "c2")
    assert "File (2 lines):" in prompt
    assert "2| c" in prompt.replace("  ", " ")


# --- 2. undo of a group cut by the stack limit -------------------------------------------------


async def apply(env: EditEnv, changes: list[FileChange], description: str) -> None:
    result = await EditEngine(env.ctx).apply(changes, description)
    assert result.applied, result.message


async def test_undo_refuses_a_group_trimmed_by_the_stack_limit(env: EditEnv) -> None:
    for name in ("g1.txt", "g2.txt", "g3.txt", "d.txt"):
        (env.root / name).write_text(name + "\n")
    group = [FileChange(n, n + "\n", n.upper() + "\n") for n in ("g1.txt", "g2.txt", "g3.txt")]
    await apply(env, group, "group")
    size = env.ctx.config.undo.stack_size
    current = "d.txt\n"
    for step in range(size - 1):
        new = f"d{step}\n"
        await apply(env, [FileChange("d.txt", current, new)], f"d{step}")
        current = new
    manager = UndoManager(env.store, "s1", env.root, env.reindexed, limit=size)
    stored = [e for e in manager.history() if e.group is not None]
    assert [e.group_size for e in stored] == [3] * len(stored)  # persisted by the store
    for _ in range(size - 1):
        assert manager.undo().done
    outcome = manager.undo()
    assert not outcome.done
    assert "touched 3 files but only 1" in outcome.message
    assert f"undo.stackSize={size}" in outcome.message
    assert "nothing was undone" in outcome.message
    assert [(env.root / n).read_text() for n in ("g1.txt", "g2.txt", "g3.txt")] == [
        "G1.TXT\n",
        "G2.TXT\n",
        "G3.TXT\n",
    ]
    # The remainder was dropped: the next undo goes on to older entries (none here).
    assert manager.history() == []
    assert manager.undo().message == "nothing to undo"


async def test_redo_refuses_a_group_trimmed_on_the_redo_stack(env: EditEnv) -> None:
    for name in ("g1.txt", "g2.txt", "d.txt"):
        (env.root / name).write_text(name + "\n")
    await apply(env, [FileChange("d.txt", "d.txt\n", "d1\n")], "d1")
    await apply(env, [FileChange("d.txt", "d1\n", "d2\n")], "d2")
    group = [FileChange(n, n + "\n", n.upper() + "\n") for n in ("g1.txt", "g2.txt")]
    await apply(env, group, "group")
    manager = UndoManager(env.store, "s1", env.root, env.reindexed, limit=2)
    assert manager.undo().done  # the group: redo holds g1, g2
    assert manager.undo().done  # d2: redo trimmed to g2, d2
    assert [e.file_path for e in manager.history("redo")] == ["g2.txt", "d.txt"]
    assert manager.redo().done  # d2 again
    outcome = manager.redo()
    assert not outcome.done
    assert "touched 2 files but only 1" in outcome.message
    assert "nothing was redone" in outcome.message
    assert (env.root / "g1.txt").read_text() == "g1.txt\n"
    assert (env.root / "g2.txt").read_text() == "g2.txt\n"
    assert manager.history("redo") == []


async def test_a_complete_group_still_undoes_and_single_edits_carry_no_size(env: EditEnv) -> None:
    await apply(env, [FileChange("a.txt", "alpha\nbeta\n", "ALPHA\nbeta\n")], "single")
    assert UndoManager(env.store, "s1", env.root, env.reindexed).history()[-1].group_size is None
    await apply(
        env,
        [
            FileChange("a.txt", "ALPHA\nbeta\n", "x\n"),
            FileChange("nofinal.txt", "first\nlast", "y"),
        ],
        "pair",
    )
    outcome = UndoManager(env.store, "s1", env.root, env.reindexed).undo()
    assert outcome.done, outcome.message
    assert (env.root / "a.txt").read_bytes() == b"ALPHA\nbeta\n"
    assert (env.root / "nofinal.txt").read_bytes() == b"first\nlast"


# --- 3. edit_file sketch that rewrites the line after its anchor -------------------------------

FUNCS = [line for i in range(5) for line in (f"def f{i}():", f"    return {i}", "")]


def test_sketch_rewriting_the_line_below_the_anchor_is_not_an_insertion() -> None:
    with pytest.raises(MergeFailed, match="'return 3' just below the anchor"):
        merge_markers(FUNCS, "def f3():\n    return 33\n")


def test_sketch_rewriting_the_line_above_the_anchor_is_not_an_insertion() -> None:
    file_lines = ["def f():", "    x = compute(1)", "    return x", "", "def g():", "    pass"]
    with pytest.raises(MergeFailed, match="just above the anchor"):
        merge_markers(file_lines, "# ... existing code ...\n    x = compute(2)\n    return x\n")


def test_real_insertions_next_to_an_anchor_still_merge() -> None:
    sketch = (
        "# ... existing code ...\ndef f3():\n    print('entered f3')\n# ... existing code ...\n"
    )
    merged = merge_markers(FUNCS, sketch)
    at = merged.index("def f3():")
    assert merged[at : at + 3] == ["def f3():", "    print('entered f3')", "    return 3"]
    assert len(merged) == len(FUNCS) + 1


async def test_edit_file_without_planner_reports_instead_of_keeping_both_lines(
    env: EditEnv,
) -> None:
    source = "\n".join(FUNCS) + "\n"
    (env.root / "m.py").write_text(source)
    result = await ToolRegistry.default().call(
        "edit_file",
        {
            "target_file": "m.py",
            "instructions": "change f3",
            "code_edit": "def f3():\n    return 33\n",
        },
        env.ctx,
        "c1",
    )
    assert not result.success
    assert "return 3" in (result.error or "")
    assert (env.root / "m.py").read_text() == source
    # With the unchanged line after the change included, the same edit is placed exactly.
    result = await ToolRegistry.default().call(
        "edit_file",
        {
            "target_file": "m.py",
            "instructions": "change f3",
            "code_edit": "def f3():\n    return 33\n\ndef f4():\n",
        },
        env.ctx,
        "c2",
    )
    assert result.success, result.error
    assert (env.root / "m.py").read_text() == source.replace("return 3\n", "return 33\n")
