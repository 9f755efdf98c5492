"""Atomic writes keep mode bits; a failing group restores every file byte for byte."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ipuaro.edits import atomic
from ipuaro.edits.atomic import Snapshot, atomic_write
from ipuaro.edits.text import Lines, split_keepends
from ipuaro.edits.transaction import FileWrite, TransactionFailed, write_all


def test_atomic_write_replaces_content_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_bytes(b"#!/bin/sh\necho old\n")
    target.chmod(0o751)
    atomic_write(target, b"#!/bin/sh\necho new\n")
    assert target.read_bytes() == b"#!/bin/sh\necho new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["run.sh"]  # no temp file left


def test_new_file_gets_umask_default_mode_and_parents(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "new.txt"
    old_umask = os.umask(0o022)
    try:
        atomic_write(target, b"x\n")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_failed_write_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_bytes(b"old\n")

    def disk_full(src: str, dst: str, **dir_fds: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", disk_full)
    with pytest.raises(OSError):
        atomic_write(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_snapshot_restores_bytes_mode_or_absence(tmp_path: Path) -> None:
    present = tmp_path / "p.txt"
    present.write_bytes(b"a\r\nb")
    present.chmod(0o600)
    missing = tmp_path / "new" / "m.txt"
    snaps = [Snapshot.take(present), Snapshot.take(missing)]
    present.write_bytes(b"changed")
    present.chmod(0o644)
    atomic_write(missing, b"created")
    for snap in snaps:
        snap.restore()
    assert present.read_bytes() == b"a\r\nb"
    assert stat.S_IMODE(present.stat().st_mode) == 0o600
    assert not missing.exists()
    assert not (tmp_path / "new").exists()  # the folder the write created is gone too


def test_group_failing_on_the_third_file_restores_the_first_two(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"A\r\n")
    b.write_bytes(b"B")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder is needed\n")
    writes = [
        FileWrite("a.txt", a, "A2\r\n"),
        FileWrite("b.txt", b, None),
        FileWrite("blocker/c.txt", blocker / "c.txt", "C\n"),
    ]
    with pytest.raises(TransactionFailed, match=r"blocker/c\.txt"):
        write_all(writes)
    assert a.read_bytes() == b"A\r\n"
    assert b.read_bytes() == b"B"
    assert blocker.read_text() == "a file where a folder is needed\n"


def test_a_read_only_file_is_not_replaced_behind_the_users_back(tmp_path: Path) -> None:
    a, locked = tmp_path / "a.txt", tmp_path / "locked.txt"
    a.write_text("A\n")
    locked.write_text("keep me\n")
    locked.chmod(0o444)
    writes = [FileWrite("a.txt", a, "A2\n"), FileWrite("locked.txt", locked, "changed\n")]
    with pytest.raises(TransactionFailed) as failed:
        write_all(writes)
    message = str(failed.value)
    assert "locked.txt is read-only (mode 444)" in message and "chmod u+w locked.txt" in message
    assert "could not restore" not in message and "left as they were" in message
    assert locked.read_text() == "keep me\n" and stat.S_IMODE(locked.stat().st_mode) == 0o444
    assert a.read_text() == "A\n"  # the group is all or nothing
    with pytest.raises(TransactionFailed, match="read-only"):
        write_all([FileWrite("locked.txt", locked, None)])  # nor deleted
    assert locked.exists()


def test_keepends_split_round_trips_every_eol_style() -> None:
    for text in ("a\nb\n", "a\r\nb", "a\rb\r", "", "\n\n", "x\r\n\r\ny", "é\u2028z\n"):
        assert "".join(split_keepends(text)) == text


def test_lines_keep_the_file_style() -> None:
    crlf = Lines.of("a\r\nb")
    assert crlf.with_lines(["a", "c", "b"]) == "a\r\nc\r\nb"
    lf = Lines.of("x\n")
    assert lf.with_lines(["y"]) == "y\n"
    empty = Lines.of("")
    assert empty.with_lines(["first"]) == "first\n"
