"""Atomic file writes and byte-exact restoration, through directory file descriptors.

A write goes to a temporary file in the same directory, is fsynced, takes the old file's mode
bits and replaces the target with one ``rename``: a reader sees the old bytes or the new bytes,
never half of each. :class:`Snapshot` remembers a file's exact prior state so a failed group of
writes can put every touched file back.

With a ``root`` (the project's real folder), every step is taken *beneath* it through open
directories (:func:`open_beneath`): each folder below the root is opened with ``O_NOFOLLOW |
O_DIRECTORY`` relative to the one above, the temp file is made in the folder that was opened,
the rename and the deletes name that same folder (``dir_fd``). A process that swaps a folder for
a symlink between ipuaro's check and its write (``d/`` ↔ ``d -> ../outside``) then makes the
write fail; it can never send it, its temp file or a delete outside the root.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.tempfiles import temp_path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class SymlinkRace(IpuaroError, PermissionError):
    """A folder on the way to a file is (now) a symlink or not a folder: nothing was written."""


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


def _parts(rel: str | Path) -> list[str]:
    parts = list(PurePosixPath(rel).parts)
    if not parts or any(p in ("", ".", "..", "/") for p in parts):
        raise ValueError(f"{str(rel)!r} is not a plain path inside the project")
    return parts


def _open_child(parent: int, name: str, shown: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise SymlinkRace(
                errno.ELOOP,
                f"{shown} is not a plain folder (a symlink or a file appeared there); "
                "nothing was written",
            ) from None
        raise


@contextlib.contextmanager
def open_beneath(
    root: Path, folders: list[str], *, create: bool = False, made: list[str] | None = None
) -> Iterator[int]:
    """An open descriptor of ``root/folders[0]/…`` reached without following any symlink
    below ``root``; missing folders are made when ``create`` (their root-relative names are
    appended to ``made``, outermost first). Raises :class:`SymlinkRace` when a folder on the
    way is a symlink."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, name in enumerate(folders):
            shown = "/".join(folders[: depth + 1])
            try:
                child = _open_child(fd, name, shown)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(name, 0o777, dir_fd=fd)  # mkdirat never follows a symlink
                if made is not None:
                    made.append(shown)
                child = _open_child(fd, name, shown)
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _split(root: Path, rel: str | Path) -> tuple[list[str], str]:
    parts = _parts(rel)
    return parts[:-1], parts[-1]


def write_beneath(
    root: Path,
    rel: str | Path,
    data: bytes,
    mode: int | None = None,
    *,
    made: list[str] | None = None,
) -> None:
    """Replace ``root/rel`` with ``data`` without following a symlink below ``root``: the
    temp file, the rename and the fsync all use the folder opened by :func:`open_beneath`."""
    folders, name = _split(root, rel)
    with open_beneath(root, folders, create=True, made=made) as folder:
        if mode is None:
            try:
                st = os.stat(name, dir_fd=folder, follow_symlinks=False)
                mode = stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else None
            except FileNotFoundError:
                mode = None
        tmp = temp_path(Path(name)).name
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o666, dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=folder)
            raise
        with contextlib.suppress(OSError):
            os.fsync(folder)


def remove_beneath(root: Path, rel: str | Path) -> None:
    """Delete the file ``root/rel`` (never a folder, never through a symlinked folder)."""
    folders, name = _split(root, rel)
    with open_beneath(root, folders) as folder:
        os.unlink(name, dir_fd=folder)
        with contextlib.suppress(OSError):
            os.fsync(folder)


def read_beneath(root: Path, rel: str | Path) -> tuple[bytes, int] | None:
    """The bytes and mode bits of the regular file ``root/rel``, or None when there is none
    (a missing folder on the way counts as missing)."""
    folders, name = _split(root, rel)
    try:
        with open_beneath(root, folders) as folder:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise SymlinkRace(errno.ELOOP, f"{rel} is a symlink; nothing was written") from None
        raise
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"{rel} is not a regular file")
        return handle.read(), stat.S_IMODE(st.st_mode)


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data``. Keeps the existing mode bits unless ``mode`` is given;
    a new file gets the default permissions (0o666 minus the umask)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_beneath(path.parent, path.name, data, mode)


def remove_file(path: Path) -> None:
    path.unlink()
    _fsync_dir(path.parent)


@dataclass(frozen=True)
class Snapshot:
    """A file's exact state: its bytes and mode, or that it did not exist. Taken with a
    ``root``, it is read and restored beneath it (:func:`read_beneath`, :func:`write_beneath`)."""

    path: Path
    data: bytes | None
    mode: int | None
    created_dirs: tuple[Path, ...] = field(default=())
    root: Path | None = None

    @classmethod
    def take(cls, path: Path, root: Path | None = None) -> Snapshot:
        if root is not None:
            return cls._take_beneath(path, root)
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

    @classmethod
    def _take_beneath(cls, path: Path, root: Path) -> Snapshot:
        rel = path.relative_to(root)
        found = read_beneath(root, rel)
        if found is not None:
            return cls(path, found[0], found[1], root=root)
        missing: list[Path] = []
        parent = rel.parent
        while parent != Path(".") and not (root / parent).is_dir():
            missing.append(root / parent)
            parent = parent.parent
        return cls(path, None, None, tuple(missing), root)

    @property
    def rel(self) -> Path:
        assert self.root is not None
        return self.path.relative_to(self.root)

    def restore(self) -> None:
        """Put the file back exactly (bytes and mode), or remove it if it did not exist."""
        if self.data is None:
            with contextlib.suppress(FileNotFoundError):
                if self.root is not None:
                    remove_beneath(self.root, self.rel)
                else:
                    remove_file(self.path)
            for directory in self.created_dirs:  # deepest first
                with contextlib.suppress(OSError):
                    if self.root is not None:
                        remove_dir_beneath(self.root, directory.relative_to(self.root))
                    else:
                        directory.rmdir()
            return
        if self.root is not None:
            write_beneath(self.root, self.rel, self.data, self.mode)
        else:
            atomic_write(self.path, self.data, self.mode)


def make_dirs_beneath(root: Path, rel: str | Path) -> list[str]:
    """Make the folder ``root/rel`` and missing ones above it, never through a symlink;
    returns the root-relative names of the folders made, outermost first."""
    made: list[str] = []
    with open_beneath(root, _parts(rel), create=True, made=made):
        return made


def remove_dir_beneath(root: Path, rel: str | Path) -> None:
    """Remove the empty folder ``root/rel`` (never through a symlinked folder)."""
    folders, name = _split(root, rel)
    with open_beneath(root, folders) as folder:
        os.rmdir(name, dir_fd=folder)
