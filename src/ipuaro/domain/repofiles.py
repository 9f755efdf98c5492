"""Reading a file the repository controls (``.ipuaro.json``, ``.ipuaro/project.json``, custom
commands, ``AGENTS.md``, ignore files): only a regular file, only up to a size cap.

A repository is data someone else wrote. ``.ipuaro.json`` as a symlink to ``/dev/zero`` would
grow without end when read whole, and a FIFO would block the reader forever; so a file is
opened without blocking, checked to be a regular file on the open descriptor (no window to swap
it), and read up to its cap. What is refused raises :class:`RepoFileRefused`, whose text is
one line naming the file and what to do.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ipuaro.domain.errors import IpuaroError

__all__ = ["CONFIG_FILE_LIMIT", "TEXT_FILE_LIMIT", "RepoFileRefused", "read_repo_bytes"]

CONFIG_FILE_LIMIT = 1_000_000
"""A configuration or memory file larger than this is refused (real ones are a few KB)."""
TEXT_FILE_LIMIT = 4_000_000
"""A command template, instruction or ignore file larger than this is refused."""


class RepoFileRefused(IpuaroError, OSError):
    """A repository file ipuaro will not read: not a regular file, or too large."""


def read_repo_bytes(path: Path, limit: int, *, streams: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (symlinks followed), at most ``limit`` of them.

    Raises ``FileNotFoundError`` (and other ``OSError``) as ``open`` does, and
    :class:`RepoFileRefused` for a device, FIFO, socket or folder, or a file over ``limit``.
    ``streams``: a pipe or device is read too (still up to ``limit``) — for a file the user
    named on the command line, such as ``--config <(…)``, never for repository content.
    """
    # O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer
    # (the user's own pipe, ``streams``, is waited for).
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags if streams else flags | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        streamed = streams and (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode))
        if not streamed and not stat.S_ISREG(info.st_mode):
            raise RepoFileRefused(
                f"{path}: not a regular file ({_kind(info.st_mode)}); ipuaro reads only regular "
                "files here: replace it with a plain file or remove it"
            )
        if info.st_size > limit:
            raise RepoFileRefused(_too_large(path, limit))
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while being read
            raise RepoFileRefused(_too_large(path, limit))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _too_large(path: Path, limit: int) -> str:
    return f"{path}: larger than {limit:,} bytes; ipuaro does not read it: shorten it or remove it"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"
