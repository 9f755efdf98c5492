"""Read one scanned file: decide text / binary / non-UTF-8, hash it, split it into lines.

Hash: ``xxh3_64`` (the ``xxhash`` package) of the raw bytes, as 16 hex digits. It is several
times faster than MD5 and change detection needs no cryptographic strength. Binary files keep
metadata only, so their hash is taken over ``size:mtime_ns`` (no need to read a 2 GB video to
notice it changed); symlinks hash their target. :func:`content_hash` is what anyone comparing a
file on disk with ``FileData.hash`` (the edit engine, before a write) must use.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import xxhash

from ipuaro.domain import FileData

if TYPE_CHECKING:
    from ipuaro.index.scan.scanner import ScanEntry

SNIFF_BYTES = 8192
_EOL = re.compile(r"\r\n|\r|\n")

ReadStatus = Literal["text", "binary", "symlink", "non_utf8", "error"]


def content_hash(data: bytes) -> str:
    """The hash stored in ``FileData.hash`` for a text file's raw bytes."""
    return xxhash.xxh3_64_hexdigest(data)


def metadata_hash(size: int, mtime: float) -> str:
    return xxhash.xxh3_64_hexdigest(f"meta:{size}:{mtime!r}".encode())


def symlink_hash(target: str) -> str:
    return xxhash.xxh3_64_hexdigest(f"link:{target}".encode())


def looks_binary(head: bytes) -> bool:
    """Git's rule: a NUL byte in the first 8 KB means binary."""
    return b"\x00" in head[:SNIFF_BYTES]


@dataclass(slots=True)
class ReadOutcome:
    entry: ScanEntry
    status: ReadStatus
    hash: str = ""
    text: str | None = None
    error: str | None = None


def read_entry(root: Path, entry: ScanEntry) -> ReadOutcome:
    """Never raises: unreadable files come back with ``status="error"``."""
    if entry.kind == "symlink":
        return ReadOutcome(entry, "symlink", symlink_hash(entry.target or ""))
    if entry.kind == "binary":
        return ReadOutcome(entry, "binary", metadata_hash(entry.size, entry.mtime))
    try:
        data = _read_regular(os.path.join(root, entry.path))
    except OSError as exc:
        return ReadOutcome(entry, "error", error=f"{entry.path}: {exc.strerror or exc}")
    if looks_binary(data):
        return ReadOutcome(entry, "binary", metadata_hash(entry.size, entry.mtime))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ReadOutcome(entry, "non_utf8")
    return ReadOutcome(entry, "text", content_hash(data), text)


def _read_regular(path: str) -> bytes:
    """The bytes of ``path`` if it is still the regular file the scan saw: a symlink or FIFO
    swapped in since is refused, never followed or waited on."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(path, flags)
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file any more")
        return handle.read()


def split_lines(text: str) -> tuple[list[str], Literal["\n", "\r\n", "\r"], bool]:
    """Lines without terminators, the file's EOL style (its first terminator) and whether it
    ends with one. ``str.splitlines`` is not used: it also splits on form feeds and U+2028,
    which editors and line numbers in tools do not."""
    if "\r" not in text:
        lines = text.split("\n")
        eol: Literal["\n", "\r\n", "\r"] = "\n"
    else:
        lines = _EOL.split(text)
        found = _EOL.search(text)
        terminator = found.group(0) if found else "\n"
        eol = "\r\n" if terminator == "\r\n" else ("\r" if terminator == "\r" else "\n")
    final_newline = len(lines) > 1 and lines[-1] == ""
    if final_newline or lines == [""]:
        lines.pop()
    return lines, eol, final_newline


def text_file_data(text: str, hash_: str, size: int, mtime: float) -> FileData:
    """The stored record of a text file (built without re-validating what we just computed)."""
    lines, eol, final_newline = split_lines(text)
    return FileData.model_construct(
        lines=lines,
        hash=hash_,
        size=size,
        last_modified=mtime,
        kind="text",
        target=None,
        eol=eol,
        final_newline=final_newline,
    )


def file_data(outcome: ReadOutcome) -> FileData:
    """The stored record for a read file (metadata only for binaries and symlinks)."""
    entry = outcome.entry
    if outcome.status == "text" and outcome.text is not None:
        return text_file_data(outcome.text, outcome.hash, entry.size, entry.mtime)
    kind: Literal["binary", "symlink"] = "symlink" if outcome.status == "symlink" else "binary"
    return FileData.model_construct(
        lines=[],
        hash=outcome.hash,
        size=entry.size,
        last_modified=entry.mtime,
        kind=kind,
        target=entry.target,
        eol="\n",
        final_newline=True,
    )


def count_loc(text: str) -> int:
    """Non-blank lines (lines as :func:`split_lines` cuts them). ``filter``/``map`` keep the
    loop in C: this runs over every file of a full index."""
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        lines = _EOL.split(text)  # a lone CR ends a line too
    else:
        lines = text.split("\n")  # a CRLF line keeps its CR, which strip() drops
    return len(list(filter(None, map(str.strip, lines))))
