"""Walk a project and list what the index should hold, without reading file contents.

Folders that are ignored are pruned (never entered). Symlinks are recorded with their target and
never followed, so links out of the project and link loops are harmless — also when one path is
asked about (the watcher, a tool naming ``link/secret.txt``): a path reached through a linked
folder is not the project's, and nothing behind it is listed or read. Files whose extension is
in ``project.binaryExtensions`` are ``binary``; every other regular file is a ``text`` candidate
whose content decides (NUL in the first 8 KB → binary, invalid UTF-8 → skipped), see
:mod:`ipuaro.index.scan.reader`. ``sniff_content=True`` applies the NUL test here too.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ipuaro.config.schema import Config
from ipuaro.domain.tempfiles import is_temp_name, writer_alive
from ipuaro.index.scan.ignore import ProjectIgnore
from ipuaro.index.scan.reader import SNIFF_BYTES, looks_binary

EntryKind = Literal["text", "binary", "symlink"]


@dataclass(frozen=True, slots=True)
class ScanEntry:
    path: str
    """Project-relative POSIX path."""
    kind: EntryKind
    size: int
    mtime: float
    target: str | None = None
    """Symlinks: the target as written in the link."""


@dataclass
class ScanResult:
    root: Path
    entries: list[ScanEntry] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Folders or files that could not be listed or stat'ed, with the reason."""
    ignored: int = 0
    """Ignored files and folders met at the edge of the walk (pruned folders count once)."""
    temp_files: list[str] = field(default_factory=list)
    """ipuaro's own temp files met on the walk (never indexed; see ``remove_stale_temps``)."""

    def count(self, kind: EntryKind) -> int:
        return sum(1 for entry in self.entries if entry.kind == kind)

    def paths(self) -> list[str]:
        return [entry.path for entry in self.entries]


def binary_extension_set(config: Config) -> frozenset[str]:
    return frozenset(
        ext.lower() if ext.startswith(".") else "." + ext.lower()
        for ext in config.project.binary_extensions
    )


def has_binary_extension(rel: str, extensions: frozenset[str]) -> bool:
    name = rel.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    return dot > 0 and name[dot:] in extensions


def scan(
    root: Path,
    config: Config,
    *,
    ignore: ProjectIgnore | None = None,
    sniff_content: bool = False,
    start: str = "",
) -> ScanResult:
    """Every indexable path under ``root`` (or under its sub-folder ``start``), sorted."""
    root = root.resolve()
    matcher = ignore or ProjectIgnore.from_root(root, config)
    extensions = binary_extension_set(config)
    result = ScanResult(root=root)
    start = start.strip("/")
    if start and (matcher.is_ignored(start, is_dir=True) or through_link(root, start, True)):
        return result
    pending = [start]
    while pending:
        folder = pending.pop()
        absolute = os.path.join(root, folder) if folder else str(root)
        try:
            with os.scandir(absolute) as iterator:
                children = list(iterator)
        except OSError as exc:
            result.errors.append(f"{folder or '.'}: {exc.strerror or exc}")
            continue
        for child in children:
            rel = f"{folder}/{child.name}" if folder else child.name
            entry = _classify(child, rel, matcher, extensions, result)
            if entry == "dir":
                pending.append(rel)
            elif entry is not None:
                result.entries.append(entry)
    if sniff_content:
        result.entries = [_sniff(root, entry) for entry in result.entries]
    result.entries.sort(key=lambda entry: entry.path)
    return result


def stat_entry(root: Path, rel: str, config: Config) -> ScanEntry | Literal["dir"] | None:
    """One path's entry without listing its folder (the watcher's single-file case); the caller
    checks ignore rules. None when it does not exist or is not a file, link or folder."""
    absolute = os.path.join(root, rel)
    try:
        if through_link(root, rel, False):
            return None
        return _entry_from_stat(os.lstat(absolute), absolute, rel, binary_extension_set(config))
    except OSError:
        return None


def through_link(root: Path, rel: str, itself: bool) -> bool:
    """Whether a folder above ``rel`` (or ``rel`` itself, with ``itself``) is a symlink: what
    is behind it may lie outside the project. ``rel`` is a normalised project-relative path."""
    parts = rel.strip("/").split("/")
    current = str(root)
    for part in parts if itself else parts[:-1]:
        current = os.path.join(current, part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return True
        except FileNotFoundError:
            return False
    return False


def _classify(
    child: os.DirEntry[str],
    rel: str,
    matcher: ProjectIgnore,
    extensions: frozenset[str],
    result: ScanResult,
) -> ScanEntry | Literal["dir"] | None:
    try:
        info = child.stat(follow_symlinks=False)
    except OSError as exc:
        result.errors.append(f"{rel}: {exc.strerror or exc}")
        return None
    if matcher.matches(rel, stat.S_ISDIR(info.st_mode)):
        result.ignored += 1
        if stat.S_ISREG(info.st_mode) and is_temp_name(child.name):
            result.temp_files.append(rel)
        return None
    try:
        return _entry_from_stat(info, child.path, rel, extensions)
    except OSError as exc:
        result.errors.append(f"{rel}: {exc.strerror or exc}")
        return None


def _entry_from_stat(
    info: os.stat_result, absolute: str, rel: str, extensions: frozenset[str]
) -> ScanEntry | Literal["dir"] | None:
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return ScanEntry(rel, "symlink", info.st_size, info.st_mtime, os.readlink(absolute))
    if not stat.S_ISREG(mode):
        return None  # sockets, fifos, devices: nothing to index
    kind: EntryKind = "binary" if has_binary_extension(rel, extensions) else "text"
    return ScanEntry(rel, kind, info.st_size, info.st_mtime)


def _sniff(root: Path, entry: ScanEntry) -> ScanEntry:
    if entry.kind != "text":
        return entry
    try:
        with open(root / entry.path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return entry
    if looks_binary(head):
        return ScanEntry(entry.path, "binary", entry.size, entry.mtime)
    return entry


def remove_stale_temps(root: Path, temp_files: list[str]) -> list[str]:
    """Delete the temp files among ``temp_files`` whose writer is gone (a write killed between
    creating its temp file and renaming it); returns those removed. A temp file being written
    right now is left alone."""
    removed: list[str] = []
    for rel in temp_files:
        if writer_alive(rel.rsplit("/", 1)[-1]):
            continue
        try:
            os.unlink(os.path.join(root, rel))
        except FileNotFoundError:
            continue
        except OSError:
            continue  # read-only folder: it stays, still never indexed
        removed.append(rel)
    return removed
