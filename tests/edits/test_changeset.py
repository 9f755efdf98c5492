"""Changesets through the edit engine — the one write path of edit tools and plan apply: folders
made and removed in the same undo step as the files, files turned down one by one only where the
change allows it, the user's own text, and an undo store that fails before anything is
written."""

from __future__ import annotations

from ipuaro.edits.changeset import APPLYING_KEY, Changeset
from ipuaro.edits.engine import EditEngine
from ipuaro.edits.undo import UndoManager
from ipuaro.tools.base import ConfirmDecision, ConfirmRequest, FileChange

from .conftest import EditEnv


def undo_manager(env: EditEnv) -> UndoManager:
    return UndoManager(env.store, "s1", env.root, env.reindexed, limit=10)


def plan_like(env: EditEnv) -> Changeset:
    """A plan's change: a folder asked for, a new file in a new folder, an update, a delete."""
    return Changeset(
        (
            FileChange("made/deep/new.txt", None, "new\n"),
            FileChange("a.txt", "alpha\nbeta\n", "alpha\nBETA\n"),
            FileChange("nofinal.txt", "first\nlast", None),
        ),
        "plan: three files",
        dirs_created=("asked", "made", "made/deep"),
        dirs_asked=frozenset({"asked"}),
        per_file=True,
        all_or_nothing=True,
        title="Apply the plan: 3 files, 3 folder(s)",
    )


def answer(env: EditEnv, decision: ConfirmDecision) -> list[ConfirmRequest]:
    asked: list[ConfirmRequest] = []

    async def confirm(request: ConfirmRequest) -> ConfirmDecision:
        asked.append(request)
        return decision

    env.ctx.auto_apply = False
    env.ctx.confirm = confirm
    return asked


async def test_folders_and_files_are_one_undo_step(env: EditEnv) -> None:
    before = (env.root / "a.txt").read_bytes(), (env.root / "nofinal.txt").read_bytes()
    result = await EditEngine(env.ctx).commit(plan_like(env))
    assert result.applied and result.status == "applied", result.message
    assert (env.root / "asked").is_dir() and (env.root / "made/deep/new.txt").read_text() == "new\n"
    assert not (env.root / "nofinal.txt").exists()
    entries = env.store.list_undo("s1")
    assert [e.file_path for e in entries] == [
        "asked",
        "made",
        "made/deep",
        "made/deep/new.txt",
        "a.txt",
        "nofinal.txt",
    ]
    assert {e.group for e in entries} == {result.group} and result.group is not None
    assert all(e.all_or_nothing and e.pending is None and e.group_size == 6 for e in entries)
    assert env.store.get_config(APPLYING_KEY) is None  # set while writing, cleared after
    assert env.reindexed.calls == [(["made/deep/new.txt", "a.txt"], ["nofinal.txt"])]
    undone = undo_manager(env).undo()
    assert undone.done, undone.message
    assert not (env.root / "made").exists() and not (env.root / "asked").exists()
    assert ((env.root / "a.txt").read_bytes(), (env.root / "nofinal.txt").read_bytes()) == before


async def test_a_plan_lets_single_files_be_turned_down_and_keeps_what_the_rest_needs(
    env: EditEnv,
) -> None:
    asked = answer(env, ConfirmDecision("apply", rejected=frozenset({"made/deep/new.txt"})))
    result = await EditEngine(env.ctx).commit(plan_like(env))
    assert result.applied, result.message
    (request,) = asked
    assert request.per_file and request.kind == "edit"
    assert request.title == "Apply the plan: 3 files, 3 folder(s)"
    assert "+ folder asked/\n+ folder made/\n+ folder made/deep/\n" in (request.diff or "")
    assert result.rejected == ("made/deep/new.txt",)
    # the folder asked for stays; the folders only the turned-down file needed go with it
    assert (env.root / "asked").is_dir() and not (env.root / "made").exists()
    assert result.changeset is not None and result.changeset.dirs_created == ("asked",)
    assert [e.file_path for e in env.store.list_undo("s1")] == ["asked", "a.txt", "nofinal.txt"]


async def test_turning_down_every_file_of_a_plan_writes_nothing(env: EditEnv) -> None:
    change = plan_like(env)
    change = Changeset(change.files, change.description, per_file=True)
    answer(env, ConfirmDecision("apply", rejected=frozenset(change.paths)))
    result = await EditEngine(env.ctx).commit(change)
    assert result.status == "rejected" and result.message == "the user rejected every file"
    assert (env.root / "nofinal.txt").exists() and env.store.list_undo("s1") == []


async def test_an_edits_files_go_together(env: EditEnv) -> None:
    """Turning one file of a tool's edit down turns the whole edit down."""
    answer(env, ConfirmDecision("apply", rejected=frozenset({"a.txt"})))
    change = Changeset(
        (
            FileChange("a.txt", "alpha\nbeta\n", "A\n"),
            FileChange("crlf.txt", "one\r\ntwo\r\nthree\r\n", "1\r\n"),
        ),
        "two files",
    )
    result = await EditEngine(env.ctx).commit(change)
    assert result.status == "rejected" and result.refused
    assert (env.root / "crlf.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"


async def test_the_users_text_never_turns_a_delete_into_a_write(env: EditEnv) -> None:
    edited = {"a.txt": "mine\n", "nofinal.txt": "resurrected\n"}
    answer(env, ConfirmDecision("apply", edited=edited))
    result = await EditEngine(env.ctx).commit(plan_like(env))
    assert result.applied, result.message
    assert (env.root / "a.txt").read_text() == "mine\n"
    assert not (env.root / "nofinal.txt").exists()


async def test_a_folder_alone_is_a_change(env: EditEnv) -> None:
    result = await EditEngine(env.ctx).commit(Changeset((), "a folder", dirs_created=("only",)))
    assert result.applied, result.message
    assert (env.root / "only").is_dir()
    assert undo_manager(env).undo().done and not (env.root / "only").exists()


async def test_an_undo_store_that_fails_writes_nothing_and_says_so(env: EditEnv) -> None:
    """The undo entries are stored before the first byte: when they cannot be, the edit is not
    written and the caller gets a result, not an exception (a tool's edit raised before)."""
    env.store.close()  # a deleted or unreachable database
    change = FileChange("a.txt", "alpha\nbeta\n", "x\n")
    result = await EditEngine(env.ctx).apply([change], "rewrite")
    assert not result.applied and result.status == "failed"
    assert result.message.startswith("nothing was applied: the undo history could not be stored")
    assert (env.root / "a.txt").read_bytes() == b"alpha\nbeta\n"
    env.reopen()


async def test_a_change_through_a_symlink_in_the_project_writes_its_target(env: EditEnv) -> None:
    """Entries and writes use the checked path: the link stays a link, undo names the target."""
    (env.root / "link.txt").symlink_to("a.txt")
    result = await EditEngine(env.ctx).apply(
        [FileChange("link.txt", "alpha\nbeta\n", "linked\n")], "through the link"
    )
    assert result.applied, result.message
    assert (env.root / "link.txt").is_symlink()
    assert (env.root / "a.txt").read_text() == "linked\n"
    assert [e.file_path for e in env.store.list_undo("s1")] == ["a.txt"]
    assert env.reindexed.calls == [(["a.txt"], [])]
