"""All-or-nothing writes of several files: if any write fails, every file already written is
put back byte for byte (and files the group created are removed).

Every write, delete and restore goes through the project's folders by descriptor
(:func:`~ipuaro.edits.atomic.write_beneath`): a folder swapped for a symlink after the path
was checked makes the write fail instead of landing outside the project."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from ipuaro.domain.errors import IpuaroError
from ipuaro.edits.atomic import Snapshot, remove_beneath, write_beneath


class TransactionFailed(IpuaroError):
    """A write failed; every file of the group is as it was before."""


@dataclass(frozen=True)
class FileWrite:
    rel: str
    abs: Path
    text: str | None
    """New content, or None to delete the file."""

    @property
    def root(self) -> Path:
        """The project folder ``abs`` is ``rel`` beneath (``abs`` minus ``rel``)."""
        root = self.abs
        for _ in Path(self.rel).parts:
            root = root.parent
        if root / self.rel != self.abs:
            raise ValueError(f"{self.abs} does not end with {self.rel}")
        return root


def read_current(path: Path) -> bytes | None:
    """The file's bytes, or None when there is no file (a missing parent counts as missing)."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def write_all(writes: list[FileWrite]) -> None:
    """Apply ``writes`` in order; on the first failure restore every touched file and raise."""
    done: list[Snapshot] = []
    for write in writes:
        snapshot: Snapshot | None = None
        try:
            root = write.root
            snapshot = Snapshot.take(write.abs, root)
            _refuse_read_only(write, snapshot)
            if write.text is None:
                if snapshot.data is not None:
                    remove_beneath(root, write.rel)
            else:
                write_beneath(root, write.rel, write.text.encode("utf-8"))
            done.append(snapshot)
        except OSError as exc:
            # The failed write itself changed nothing (atomic); only folders it created go.
            failed = [snapshot] if snapshot is not None and snapshot.data is None else []
            problems = _restore(done + failed)
            reason = exc.strerror or str(exc)
            message = f"writing {write.rel} failed ({reason}); "
            if problems:
                message += "could not restore: " + "; ".join(problems)
            else:
                message += f"all {len(done) or 1} file(s) of the change were left as they were"
            raise TransactionFailed(message) from exc


def _refuse_read_only(write: FileWrite, snapshot: Snapshot) -> None:
    """A rename would replace a read-only file anyway; the user made it read-only on purpose
    (no write bit at all counts even for root, as editors do)."""
    if snapshot.data is None or snapshot.mode is None:
        return
    if snapshot.mode & 0o222 and os.access(write.abs, os.W_OK):
        return
    raise PermissionError(
        errno.EACCES,
        f"{write.rel} is read-only (mode {snapshot.mode:o}); make it writable first, "
        f"e.g. `chmod u+w {write.rel}`",
    )


def _restore(snapshots: list[Snapshot]) -> list[str]:
    problems: list[str] = []
    for snapshot in reversed(snapshots):
        try:
            snapshot.restore()
        except OSError as exc:  # reported, and the other files are still restored
            problems.append(f"{snapshot.path}: {exc.strerror or exc}")
    return problems
