"""``/diff``: the changes of a session as one diff, read from its undo stack in a real SQLite
store after real edits through the edit engine."""

from __future__ import annotations

from ipuaro.core.verifying import diff_text
from ipuaro.domain.edits import FileChange
from ipuaro.edits.engine import EditEngine
from ipuaro.edits.session_diff import session_diff
from tests.edits.conftest import EditEnv


async def edit(env: EditEnv, path: str, old: str | None, new: str | None) -> None:
    result = await EditEngine(env.ctx).apply([FileChange(path, old, new)], f"edit {path}")
    assert result.applied, result.message


async def test_a_file_edited_twice_shows_once_from_first_to_last(env: EditEnv) -> None:
    await edit(env, "a.txt", "alpha\nbeta\n", "alpha\nBETA\n")
    await edit(env, "a.txt", "alpha\nBETA\n", "ALPHA\nBETA\n")
    await edit(env, "new.txt", None, "fresh\n")
    entries = env.store.list_undo("s1")
    diff, steps = session_diff(entries)
    assert steps == 3
    assert diff == (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-alpha\n-beta\n+ALPHA\n+BETA\n"
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n"
    )
    last, steps = session_diff(entries, since=1)
    assert steps == 1 and last == "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n"
    reply = diff_text(entries, ("2",))
    assert reply.text.startswith("the changes of the last 2 undo step(s) of this session")
    assert "-alpha\n+ALPHA" in reply.text and "-beta" not in reply.text


async def test_an_undone_change_is_not_in_the_diff_and_bad_steps_are_refused(
    env: EditEnv,
) -> None:
    from ipuaro.edits.undo import UndoManager

    await edit(env, "a.txt", "alpha\nbeta\n", "alpha\nBETA\n")
    UndoManager(env.store, "s1", env.root, env.reindexed).undo()
    assert session_diff(env.store.list_undo("s1")) == ("", 0)
    assert diff_text(env.store.list_undo("s1"), ()).text.startswith("ipuaro changed nothing")
    bad = diff_text([], ("two",))
    assert bad.kind == "error" and "usage: /diff [N]" in bad.text
