"""The edit engine: validate → diff → confirm → undo entry → atomic write → re-index."""

from __future__ import annotations

import pytest

from ipuaro.edits import atomic
from ipuaro.edits.engine import NO_CONFIRM, EditEngine
from ipuaro.tools.base import ConfirmDecision, ConfirmRequest, FileChange

from .conftest import EditEnv


def change(env: EditEnv, rel: str, new: str | None) -> FileChange:
    path = env.root / rel
    old = path.read_bytes().decode("utf-8") if path.exists() else None
    return FileChange(rel, old, new)


async def test_apply_writes_records_undo_and_reindexes(env: EditEnv) -> None:
    result = await EditEngine(env.ctx).apply([change(env, "a.txt", "alpha\nBETA\n")], "upper")
    assert result.applied, result.message
    assert (env.root / "a.txt").read_bytes() == b"alpha\nBETA\n"
    entries = env.store.list_undo("s1")
    assert [e.file_path for e in entries] == ["a.txt"]
    assert env.reindexed.calls == [(["a.txt"], [])]
    assert "lines 1-2 now" in result.message and "2| BETA" in result.message
    assert "-beta" in result.diff and "+BETA" in result.diff


async def test_confirmation_sees_the_diff_and_can_reject(env: EditEnv) -> None:
    seen: list[ConfirmRequest] = []

    async def confirm(request: ConfirmRequest) -> ConfirmDecision:
        seen.append(request)
        return ConfirmDecision("reject")

    env.ctx.grants.set_auto_apply(False)
    env.ctx = env.ctx.replace(confirm=confirm)
    result = await EditEngine(env.ctx).apply([change(env, "a.txt", "x\n")], "rewrite")
    assert not result.applied and result.refused
    assert (env.root / "a.txt").read_bytes() == b"alpha\nbeta\n"
    assert seen[0].kind == "edit" and seen[0].files[0].new_text == "x\n"
    assert "+x" in (seen[0].diff or "")
    assert env.store.list_undo("s1") == []


async def test_user_edited_text_is_what_gets_written(env: EditEnv) -> None:
    async def confirm(request: ConfirmRequest) -> ConfirmDecision:
        return ConfirmDecision("apply", edited={"a.txt": "user text\n"})

    env.ctx.grants.set_auto_apply(False)
    env.ctx = env.ctx.replace(confirm=confirm)
    result = await EditEngine(env.ctx).apply([change(env, "a.txt", "model text\n")], "edit")
    assert result.applied
    assert (env.root / "a.txt").read_text() == "user text\n"


async def test_always_grants_the_sessions_later_edits(env: EditEnv) -> None:
    """ "Always" applies this edit and records the grant: the session's later edits apply
    unasked; another session's context asks again (``security.grants``)."""
    asked: list[str] = []

    async def confirm(request: ConfirmRequest) -> str:
        asked.append(request.title)
        return "always"

    env.ctx.grants.set_auto_apply(False)
    env.ctx = env.ctx.replace(confirm=confirm)  # type: ignore[assignment]
    await EditEngine(env.ctx).apply([change(env, "a.txt", "1\n")], "one")
    await EditEngine(env.ctx).apply([change(env, "a.txt", "2\n")], "two")
    assert len(asked) == 1 and env.ctx.auto_apply
    assert (env.root / "a.txt").read_text() == "2\n"
    other = env.ctx.for_session("another")
    await EditEngine(other).apply([change(env, "a.txt", "3\n")], "three")
    assert len(asked) == 2, "a new session asks again"


async def test_headless_without_auto_apply_is_refused(env: EditEnv) -> None:
    env.ctx.grants.set_auto_apply(False)
    env.ctx = env.ctx.replace(confirm=None)
    result = await EditEngine(env.ctx).apply([change(env, "a.txt", "x\n")], "x")
    assert result.refused and result.message == NO_CONFIRM


@pytest.mark.parametrize(
    ("rel", "text", "why"),
    [
        (".env", "KEY=1\n", "protected"),
        ("../outside.txt", "x\n", "outside"),
        ("bin.txt", "a\x00b", "NUL"),
        ("noise.txt", "\x01\x02\x03\x04 ab", "non-printable"),
    ],
)
async def test_rules_refuse_before_anything_is_written(
    env: EditEnv, rel: str, text: str, why: str
) -> None:
    result = await EditEngine(env.ctx).apply([FileChange(rel, None, text)], "bad")
    assert result.refused and why in result.message
    assert not (env.root / rel).exists()


async def test_a_file_changed_after_the_edit_was_computed_is_not_overwritten(
    env: EditEnv,
) -> None:
    stale = FileChange("a.txt", "something else\n", "new\n")
    result = await EditEngine(env.ctx).apply([stale], "stale")
    assert not result.applied and result.stale == ["a.txt"]
    assert (env.root / "a.txt").read_bytes() == b"alpha\nbeta\n"


async def test_transaction_third_file_fails_all_three_unchanged(env: EditEnv) -> None:
    (env.root / "blocker").write_text("plain file\n")
    before = {p: (env.root / p).read_bytes() for p in ("a.txt", "crlf.txt", "blocker")}
    changes = [
        change(env, "a.txt", "A\n"),
        change(env, "crlf.txt", "ONE\r\n"),
        FileChange("blocker/third.txt", None, "third\n"),  # its folder is a file: write fails
    ]
    result = await EditEngine(env.ctx).apply(changes, "three files")
    assert not result.applied
    assert "blocker/third.txt" in result.message
    assert {p: (env.root / p).read_bytes() for p in before} == before
    assert not (env.root / "blocker" / "third.txt").exists()
    assert env.store.list_undo("s1") == []  # nothing recorded for a change that did not land
    assert env.reindexed.calls == []


async def test_transaction_disk_error_on_third_rename_restores_everything(
    env: EditEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    (env.root / "c.txt").write_bytes(b"c\n")
    before = {p: (env.root / p).read_bytes() for p in ("a.txt", "crlf.txt", "c.txt")}
    real_replace = atomic.os.replace
    calls = {"n": 0}

    def flaky(src: str, dst: str, **dir_fds: int) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # the third file's rename: the disk is full
            raise OSError(28, "No space left on device")
        real_replace(src, dst, **dir_fds)

    monkeypatch.setattr(atomic.os, "replace", flaky)
    changes = [
        change(env, "a.txt", "A\n"),
        change(env, "crlf.txt", "ONE\r\n"),
        change(env, "c.txt", "C\n"),
    ]
    result = await EditEngine(env.ctx).apply(changes, "three files")
    monkeypatch.setattr(atomic.os, "replace", real_replace)
    assert not result.applied and "No space left" in result.message
    assert {p: (env.root / p).read_bytes() for p in before} == before
    leftovers = [p.name for p in env.root.iterdir() if "ipuaro" in p.name]
    assert leftovers == []


async def test_delete_asks_with_kind_delete(env: EditEnv) -> None:
    kinds: list[str] = []

    async def confirm(request: ConfirmRequest) -> str:
        kinds.append(request.kind)
        return "apply"

    env.ctx.grants.set_auto_apply(False)
    env.ctx = env.ctx.replace(confirm=confirm)  # type: ignore[assignment]
    result = await EditEngine(env.ctx).apply([change(env, "a.txt", None)], "remove")
    assert result.applied and kinds == ["delete"]
    assert not (env.root / "a.txt").exists()
    assert env.reindexed.calls == [([], ["a.txt"])]
