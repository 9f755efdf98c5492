"""Atomic file writes and byte-exact restoration.

A write goes to a temporary file in the same directory, is fsynced, takes the old file's mode
bits and replaces the target with one ``rename``: a reader sees the old bytes or the new bytes,
never half of each. :class:`Snapshot` remembers a file's exact prior state so a failed group of
writes can put every touched file back.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ipuaro.domain.tempfiles import temp_path


def _fsync_dir(directory: Path) -> None:
    # The rename is durable only once the directory entry is flushed (POSIX).
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data``. Keeps the existing mode bits unless ``mode`` is given;
    a new file gets the default permissions (0o666 minus the umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = None
    tmp = temp_path(path)  # never indexed; a stale one is removed by the next index
    # O_EXCL: never follow or clobber something already at the temp name.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def remove_file(path: Path) -> None:
    path.unlink()
    _fsync_dir(path.parent)


@dataclass(frozen=True)
class Snapshot:
    """A file's exact state: its bytes and mode, or that it did not exist."""

    path: Path
    data: bytes | None
    mode: int | None
    created_dirs: tuple[Path, ...] = field(default=())

    @classmethod
    def take(cls, path: Path) -> Snapshot:
        try:
            st = path.stat()
        except (FileNotFoundError, NotADirectoryError):
            missing: list[Path] = []
            parent = path.parent
            while not parent.exists():
                missing.append(parent)
                parent = parent.parent
            return cls(path, None, None, tuple(missing))
        return cls(path, path.read_bytes(), stat.S_IMODE(st.st_mode))

    def restore(self) -> None:
        """Put the file back exactly (bytes and mode), or remove it if it did not exist."""
        if self.data is None:
            with contextlib.suppress(FileNotFoundError):
                remove_file(self.path)
            for directory in self.created_dirs:  # deepest first
                with contextlib.suppress(OSError):
                    directory.rmdir()
            return
        atomic_write(self.path, self.data, self.mode)
