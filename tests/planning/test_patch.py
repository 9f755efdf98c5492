"""A plan's unified-diff ``patch`` (used when it has no actions): hunks placed where the header
says, else by the ``replace`` tool's tolerant matching; a hunk that does not apply is an error
naming the file and the hunk; created and deleted files through /dev/null."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ipuaro.planning.actions import PlanInvalid
from ipuaro.planning.apply import prepare
from ipuaro.planning.patch import apply_hunks, parse_patch, patch_actions
from tests.planning.conftest import Project, record

APP = "def main():\n    return 1\n"


def test_a_patch_becomes_actions_checked_like_any_plan(proj: Project) -> None:
    patch = (
        "diff --git a/src/app.py b/src/app.py\n"
        "index 111..222 100644\n"
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,3 @@\n"
        " def main():\n-    return 1\n+    print('hi')\n+    return 2\n"
        "--- /dev/null\n+++ b/src/new.py\n@@ -0,0 +1,2 @@\n+X = 1\n+Y = 2\n"
        "--- a/docs/guide.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-guide\n"
    )
    prepared = prepare(record(patch=patch, read=proj.read("src/app.py")), proj.paths, proj.store)
    assert [(c.path, c.new_text) for c in prepared.changes] == [
        ("src/app.py", "def main():\n    print('hi')\n    return 2\n"),
        ("src/new.py", "X = 1\nY = 2\n"),
        ("docs/guide.md", None),
    ]
    assert prepared.notes == ["the plan's patch was read as 3 file action(s)"]
    # the same rules: a patched file must have been read
    with pytest.raises(PlanInvalid) as raised:
        prepare(record(patch=patch), proj.paths, proj.store)
    assert raised.value.codes == ["ERR_UPDATE_WITHOUT_BASE"]


def test_hunks_are_placed_despite_wrong_line_numbers_and_indentation() -> None:
    text = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    # wrong header line, and the model dropped one level of indentation
    patch = (
        "--- a/a.py\n+++ b/a.py\n@@ -40,2 +40,2 @@\n def g(self):\n-    return 2\n+    return 3\n"
    )
    (section,) = parse_patch(patch)
    assert apply_hunks("a.py", text, section.hunks) == text.replace("return 2", "return 3")


def test_a_hunk_that_does_not_apply_is_named(proj: Project) -> None:
    patch = (
        "--- a/src/app.py\n+++ b/src/app.py\n"
        "@@ -1,2 +1,2 @@\n def main():\n-    return 1\n+    return 2\n"
        "@@ -10,2 +10,2 @@\n def other():\n-    return 7\n+    return 8\n"
    )
    with pytest.raises(PlanInvalid) as raised:
        prepare(record(patch=patch, read=proj.read("src/app.py")), proj.paths, proj.store)
    (error,) = raised.value.errors
    assert error.code == "ERR_PATCH_HUNK"
    assert error.message.startswith(
        "ERR_PATCH_HUNK: src/app.py: hunk 2 (@@ -10,2 +10,2 @@) does not apply: "
    )
    assert (proj.root / "src/app.py").read_text() == APP


def test_a_patch_for_a_missing_file_and_an_ambiguous_hunk() -> None:
    patch = "--- a/gone.py\n+++ b/gone.py\n@@ -1 +1 @@\n-a\n+b\n"
    with pytest.raises(PlanInvalid) as raised:
        patch_actions(patch, lambda path: None)
    assert raised.value.errors[0].message == (
        "ERR_PATCH_HUNK: gone.py: the patch changes a file that does not exist; use "
        "'--- /dev/null' to create it"
    )
    twice = "x = 1\ny = 2\nx = 1\ny = 2\n"
    patch = "--- a/t.py\n+++ b/t.py\n@@ -30,2 +30,2 @@\n x = 1\n-y = 2\n+y = 3\n"
    with pytest.raises(PlanInvalid) as raised:
        patch_actions(patch, lambda path: twice)
    assert "hunk 1 (@@ -30,2 +30,2 @@) does not apply: `old` occurs 2 times" in str(raised.value)


def test_no_newline_markers_and_crlf_files() -> None:
    patch = (
        "--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
        "+c\n\\ No newline at end of file\n"
    )
    assert patch_actions(patch, lambda path: "a\r\nb")[0].content == "a\r\nc"
    patch = "--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
    assert patch_actions(patch, lambda path: "a\r\nb\r\n")[0].content == "a\r\nc\r\n"


@pytest.mark.parametrize(
    "patch",
    ["", "just words", "@@ -1 +1 @@\n-a\n+b\n", "--- /dev/null\n+++ /dev/null\n"],
)
def test_not_a_patch(patch: str) -> None:
    with pytest.raises(PlanInvalid) as raised:
        patch_actions(patch, lambda path: "a\n")
    assert raised.value.codes == ["ERR_PATCH_INVALID"]
    assert raised.value.errors[0].message.startswith("ERR_PATCH_INVALID: the patch ")


lines = st.lists(st.text(alphabet="abcxyz ", min_size=1, max_size=6), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(old=lines, new=lines)
def test_a_diff_of_any_two_texts_applies_back(old: list[str], new: list[str]) -> None:
    """difflib's own diff of two texts, read back by the patch reader, gives the new text."""
    import difflib

    before = "\n".join(old) + "\n"
    after = "\n".join(new) + "\n"
    if before == after:
        return
    body = "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), "a/f", "b/f"
        )
    )
    (action,) = patch_actions(body, lambda path: before)
    assert action.content == after
